/*
 * cuda.h — what the cuda engine backend offers beyond the ops table: the
 * checks and the device description that `tiersim calibrate engine --gpu`
 * and the GPU tests use. Only built when TS_HAVE_CUDA.
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

#endif
