/*
 * engine_int.h — what the engine's backends share and callers do not need:
 * the ops tables of the built-in backends.
 */
#ifndef TS_ENGINE_INT_H
#define TS_ENGINE_INT_H

#include "engine/engine.h"
#include "ts_config.h"

extern const struct ts_engine_ops ts_engine_null_ops;
extern const struct ts_engine_ops ts_engine_sim_ops;
#if TS_HAVE_CUDA
extern const struct ts_engine_ops ts_engine_cuda_ops;
#endif

#endif
