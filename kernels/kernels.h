/*
 * kernels.h — tiersim's own CUDA kernels, callable from C: what cuDNN and
 * cuBLAS do not do for a training step. Each has a CPU reference of the same
 * name with _ref (kernels/ref.c, built everywhere) that the GPU checks compare
 * against.
 *
 * Launch functions return 0 or a negative cudaError_t (never blocking: they
 * queue on @stream).
 */
#ifndef TS_KERNELS_H
#define TS_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Per-image geometry of the preprocessing step. */
struct ts_k_crop {
	int32_t y, x; /* top-left corner of the crop in the source image */
	int32_t flip; /* mirror horizontally */
};

/*
 * The GPU preprocessing step: a batch of @n decoded images, u8 HWC (RGB)
 * @src_h x @src_w, packed one after another, becomes float CHW @out_h x
 * @out_w: crop at crops[i], mirror if asked, then (v / 255 - mean[c]) / std[c].
 * @crops is in device memory; @mean and @std are passed by value.
 */
int ts_k_preprocess(const uint8_t *src, int n, int src_h, int src_w, const struct ts_k_crop *crops,
		    int out_h, int out_w, const float mean[3], const float std[3], float *dst,
		    void *stream);
void ts_k_preprocess_ref(const uint8_t *src, int n, int src_h, int src_w,
			 const struct ts_k_crop *crops, int out_h, int out_w, const float mean[3],
			 const float std[3], float *dst);

/*
 * SGD with momentum and weight decay, as Caffe and PyTorch apply it:
 *   v = momentum * v + (g + decay * w);  w = w - lr * v
 */
int ts_k_sgd_momentum(float *w, const float *g, float *v, size_t n, float lr, float momentum,
		      float decay, void *stream);
void ts_k_sgd_momentum_ref(float *w, const float *g, float *v, size_t n, float lr,
			   float momentum, float decay);

/* Uniform values in [-scale, scale) from a counter-based hash of (seed,
 * index): the same on every device and on the CPU. */
int ts_k_fill_uniform(float *p, size_t n, uint64_t seed, float scale, void *stream);
void ts_k_fill_uniform_ref(float *p, size_t n, uint64_t seed, float scale);

#ifdef __cplusplus
}
#endif

#endif
