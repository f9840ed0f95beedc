/*
 * cuda.h — what the cuda engine backend offers beyond the ops table: the
 * checks and the device description that `tiersim calibrate engine --gpu`
 * and the GPU tests use. Only built when TS_HAVE_CUDA.
 *
 * The backend itself (engine/cuda.c, kernels/) is a module,
 * tiersim-cuda.so, that engine/cuda_load.c opens the first time the cuda
 * backend or one of the functions below is used: a run that never asks
 * for the GPU never maps libcudart, cuDNN or cuBLAS. It is looked for in
 * $TIERSIM_CUDA_MODULE (a file), beside the program, in ../engine from it
 * (the build tree) and in the install's library directory.
 */
#ifndef TS_ENGINE_CUDA_H
#define TS_ENGINE_CUDA_H

#include <stddef.h>

#include "core/ts.h"

struct ts_cuda_device {
	char name[256];
	int major, minor, sms;
	double mem_gib, usable_mib, fp32_tflops, mem_gbs;
	int cudnn_version, cuda_runtime;
};

/* 0, or TS_E_NO_GPU with a one-line reason in @err. */
TS_WUR int ts_cuda_device(struct ts_cuda_device *d, char *err, size_t errlen);

/* Run network @netdef forward at @batch with random weights and input and
 * compare every convolution's and fully connected layer's output with a
 * CPU reference computed from the same inputs; *max_rel gets the largest
 * error relative to the layer's largest output magnitude. */
TS_WUR int ts_cuda_check_layers(const char *netdef, int batch, double *max_rel, int *layers,
				char *err, size_t errlen);

/* The module's file name, and what it exports under ts_cuda_module. */
#define TS_CUDA_MODULE_FILE "tiersim-cuda.so"
#define TS_CUDA_MODULE_ABI 2
/* The backend's line in the registry's help. */
#define TS_CUDA_HELP "the network's layers with cuDNN and cuBLAS on GPU 0, timed with CUDA events"
#define TS_CUDA_MODULE_EXPORT __attribute__((visibility("default")))

struct ts_engine_ops;
struct ts_cuda_module {
	unsigned abi;		/* TS_CUDA_MODULE_ABI */
	const char *version;	/* TS_VERSION of its build: must be the program's */
	size_t engine_size;	/* sizeof(struct ts_engine) it was built with */
	size_t device_size;	/* sizeof(struct ts_cuda_device), which it fills */
	const struct ts_engine_ops *ops;
	int (*device)(struct ts_cuda_device *d, char *err, size_t errlen);
	int (*check_layers)(const char *netdef, int batch, double *max_rel, int *layers,
			    char *err, size_t errlen);
};
extern const struct ts_cuda_module ts_cuda_module;

/* The module, opened once (0), or a one-line reason naming the file. */
TS_WUR int ts_cuda_module_load(const struct ts_cuda_module **m, char *err, size_t errlen);

#endif
