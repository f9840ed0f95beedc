/*
 * kernels.cu — the CUDA kernels of kernels.h: GPU preprocessing, the SGD
 * momentum update and a deterministic fill for random weights.
 */
#include <cuda_runtime.h>

#include "kernels/hash.h"
#include "kernels/kernels.h"

/* One thread per output element (image, channel, y, x): reads are
 * scattered within a row, writes coalesced. */
__global__ void preprocess_kernel(const uint8_t *src, int n, int src_h, int src_w,
				  const struct ts_k_crop *crops, int out_h, int out_w, float m0,
				  float m1, float m2, float s0, float s1, float s2, float *dst)
{
	size_t total = (size_t)n * 3 * out_h * out_w;
	for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < total;
	     k += (size_t)gridDim.x * blockDim.x) {
		int x = (int)(k % out_w);
		int y = (int)((k / out_w) % out_h);
		int c = (int)((k / ((size_t)out_w * out_h)) % 3);
		int i = (int)(k / ((size_t)3 * out_w * out_h));
		struct ts_k_crop cr = crops[i];
		int sx = cr.x + (cr.flip ? out_w - 1 - x : x);
		int sy = cr.y + y;
		float v = src[(size_t)i * src_h * src_w * 3 + ((size_t)sy * src_w + sx) * 3 + c];
		float mean = c == 0 ? m0 : c == 1 ? m1 : m2;
		float sd = c == 0 ? s0 : c == 1 ? s1 : s2;
		dst[k] = (v * (1.0f / 255.0f) - mean) / sd;
	}
}

__global__ void sgd_kernel(float *w, const float *g, float *v, size_t n, float lr, float mom,
			   float decay)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		float vi = mom * v[i] + (g[i] + decay * w[i]);
		v[i] = vi;
		w[i] = w[i] - lr * vi;
	}
}

__global__ void fill_kernel(float *p, size_t n, uint64_t seed, float scale)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		p[i] = ts_hash_uniform(seed, i, scale);
}

static unsigned blocks_for(size_t n)
{
	size_t b = (n + 255) / 256;
	return (unsigned)(b > 65535 ? 65535 : b ? b : 1);
}

static int launched(void)
{
	cudaError_t e = cudaGetLastError();
	return e == cudaSuccess ? 0 : -(int)e;
}

extern "C" int ts_k_preprocess(const uint8_t *src, int n, int src_h, int src_w,
			       const struct ts_k_crop *crops, int out_h, int out_w,
			       const float mean[3], const float std[3], float *dst, void *stream)
{
	size_t total = (size_t)n * 3 * out_h * out_w;
	preprocess_kernel<<<blocks_for(total), 256, 0, (cudaStream_t)stream>>>(
		src, n, src_h, src_w, crops, out_h, out_w, mean[0], mean[1], mean[2], std[0],
		std[1], std[2], dst);
	return launched();
}

extern "C" int ts_k_sgd_momentum(float *w, const float *g, float *v, size_t n, float lr,
				 float momentum, float decay, void *stream)
{
	sgd_kernel<<<blocks_for(n), 256, 0, (cudaStream_t)stream>>>(w, g, v, n, lr, momentum,
								       decay);
	return launched();
}

extern "C" int ts_k_fill_uniform(float *p, size_t n, uint64_t seed, float scale, void *stream)
{
	fill_kernel<<<blocks_for(n), 256, 0, (cudaStream_t)stream>>>(p, n, seed, scale);
	return launched();
}
