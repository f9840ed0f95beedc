/*
 * sim_model.h — the pieces of the sim backend's compute model that the
 * profile fit and the calibration writer share with it.
 */
#ifndef TS_SIM_MODEL_H
#define TS_SIM_MODEL_H

#include "profile.h"

/* FLOPs per sample of layer graph @netdef: 2 x multiply-adds forward, x 3
 * in training (backward costs about twice the forward: gradients with
 * respect to inputs and to weights). */
TS_WUR int ts_sim_flops(const char *netdef, bool train, double *flops);

/* The model's saturation batch on GPU @g: b_half (fitted on a V100) scaled
 * by the FP32 peak of @g over the V100's (both from gpus.lua). */
double ts_sim_b_half(const struct ts_profiles *p, const struct ts_prof_model *m,
		     const struct ts_prof_gpu *g);

#endif
