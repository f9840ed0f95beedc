/*
 * vsim.h — a scenario's configuration predicted in virtual time: the same
 * tier model that tierfs drives (fs/tier.h), the same engine profiles
 * (engine/engine.h, sim backend) and the loader's decode calibration, moved
 * by a discrete-event clock instead of the wall clock, so an ImageNet-scale
 * epoch on 8 GPUs is predicted in seconds.
 *
 * The loader is modeled stage by stage as pipeline/loader.h runs it: QD
 * reads in flight, each one a tier-model request (open + read of a file per
 * sample, or a read of its record in a packed file); a pool of `vcpus`
 * decode workers each charging the calibrated cost of its image; in-order
 * batches; and no read of batch k before batch k - prefetch has been taken
 * by the engine.
 */
#ifndef TS_VSIM_H
#define TS_VSIM_H

#include "runner.h"

TS_WUR int ts_vsim_exec(struct ts_runner *R, struct ts_scenario *s, enum ts_action act,
			const struct ts_scn_run *run, struct ts_row *w, char *err, size_t errlen);

#endif
