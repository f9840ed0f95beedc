/*
 * layout.c — the loader's layout from its options, shared by the real
 * loader (loader.c) and its virtual twin (vpipe.c) so that both schedule
 * with the same queue depth, read buffers and prefetch window.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pipeline/host.h"
#include "pipeline/loader.h"
#include "pipeline/source.h"

#define SLOT_AUTO_MAX (1u << 20)

void ts_pipe_layout(const struct ts_pipe_cfg *cfg, const struct ts_source_ops *ops, uint64_t n,
		    uint64_t max_len, unsigned workers, struct ts_pipe_layout *out)
{
	uint64_t slot = cfg->slot_size ? cfg->slot_size
				       : TS_MIN((max_len + 4095) & ~4095ULL, SLOT_AUTO_MAX);
	if (slot < 4096)
		slot = 4096;
	bool hold_raw = workers == 0 || cfg->keep_raw;
	uint64_t window = cfg->prefetch * cfg->batch;
	/* Raw bytes ride in their batch: every sample of the window holds its
	 * buffer. Decoded: the buffers in flight are the reads and what the
	 * workers hold or have queued. */
	uint64_t slots = hold_raw ? window : TS_MIN(window, cfg->qd + 2 * cfg->vcpus);
	out->slot_size = slot;
	out->sched = (struct ts_sched_cfg){
		.samples = n,
		.batch = cfg->batch,
		.prefetch = cfg->prefetch,
		.epochs = cfg->epochs,
		.drop_last = cfg->drop_last,
		.shuffle = cfg->shuffle,
		.seed = cfg->seed,
		/* A source that fetches its own samples (a cursor, a corpus)
		 * does so one at a time, in the reader thread. */
		.qd = (ops->caps & TS_SRC_EXTENTS) ? cfg->qd : 1,
		.slots = slots ? slots : 1,
		.workers = workers,
		.hold_raw = hold_raw,
		.restart = cfg->restart,
	};
}

bool ts_pipe_decode_auto_modeled(uint64_t vcpus, const char *host, long cores)
{
	return (long)vcpus > cores || ts_host_is_profile(host);
}

int ts_pipe_decode_mode(const struct ts_pipe_cfg *cfg, const struct ts_source_ops *ops,
			long cores, enum ts_decode_mode *out, char *err, size_t errlen)
{
	const char *d = cfg->decode ? cfg->decode : "auto";
	bool text = !strcmp(ops->name, "text") || !strcmp(ops->name, "null");
	if (!strcmp(d, "none")) {
		*out = TS_DECODE_NONE;
	} else if (!strcmp(d, "real")) {
		*out = TS_DECODE_REAL;
	} else if (!strcmp(d, "modeled")) {
		*out = TS_DECODE_MODELED;
	} else if (!strcmp(d, "auto")) {
		/* A host profile is another CPU: charged, never run here. */
		if (text)
			*out = TS_DECODE_NONE;
		else
			*out = ts_pipe_decode_auto_modeled(cfg->vcpus, cfg->host, cores)
				       ? TS_DECODE_MODELED
				       : TS_DECODE_REAL;
	} else {
		snprintf(err, errlen, "option 'decode': '%s' is not one of auto, real, modeled, none", d);
		return TS_E_PARSE;
	}
	if (*out == TS_DECODE_REAL && ts_host_is_profile(cfg->host)) {
		snprintf(err, errlen, "option 'host': '%s' is another CPU, whose costs are charged, "
				      "not run: use decode=modeled (or auto), or host=this-machine",
			 cfg->host);
		return -EINVAL;
	}
	if (text && *out != TS_DECODE_NONE) {
		snprintf(err, errlen, "option 'decode': source '%s' has no images; use decode=none",
			 ops->name);
		return -EINVAL;
	}
	return 0;
}


int ts_pipe_range(const struct ts_pipe_cfg *cfg, const struct ts_source_ops *ops,
		  uint64_t total, uint64_t *n, char *err, size_t errlen)
{
	if (cfg->first && (ops->caps & TS_SRC_SEQUENTIAL)) {
		snprintf(err, errlen, "option 'first': source '%s' is read in its own order only",
			 ops->name);
		return -EINVAL;
	}
	if (cfg->first && cfg->first >= total) {
		snprintf(err, errlen, "option 'first': %" PRIu64 " is past the dataset's %" PRIu64
				      " samples", cfg->first, total);
		return -EINVAL;
	}
	*n = total - cfg->first;
	if (cfg->count && cfg->count < *n)
		*n = cfg->count;
	return 0;
}
