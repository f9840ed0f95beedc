/* ref.c — CPU references of the CUDA kernels (see kernels.h). */
#include "kernels/hash.h"
#include "kernels/kernels.h"

void ts_k_preprocess_ref(const uint8_t *src, int n, int src_h, int src_w,
			 const struct ts_k_crop *crops, int out_h, int out_w, const float mean[3],
			 const float std[3], float *dst)
{
	for (int i = 0; i < n; i++) {
		const uint8_t *img = src + (size_t)i * src_h * src_w * 3;
		float *out = dst + (size_t)i * 3 * out_h * out_w;
		for (int c = 0; c < 3; c++)
			for (int y = 0; y < out_h; y++)
				for (int x = 0; x < out_w; x++) {
					int sx = crops[i].x + (crops[i].flip ? out_w - 1 - x : x);
					int sy = crops[i].y + y;
					float v = img[((size_t)sy * src_w + sx) * 3 + c];
					out[((size_t)c * out_h + y) * out_w + x] =
						(v * (1.0f / 255.0f) - mean[c]) / std[c];
				}
	}
}

void ts_k_sgd_momentum_ref(float *w, const float *g, float *v, size_t n, float lr,
			   float momentum, float decay)
{
	for (size_t i = 0; i < n; i++) {
		v[i] = momentum * v[i] + (g[i] + decay * w[i]);
		w[i] = w[i] - lr * v[i];
	}
}

void ts_k_fill_uniform_ref(float *p, size_t n, uint64_t seed, float scale)
{
	for (size_t i = 0; i < n; i++)
		p[i] = ts_hash_uniform(seed, i, scale);
}
