/*
 * hash.h — the counter-based hash behind ts_k_fill_uniform, shared by the
 * CUDA kernel and its CPU reference so both produce the same numbers
 * (splitmix64's finalizer).
 */
#ifndef TS_KERNELS_HASH_H
#define TS_KERNELS_HASH_H

#include <stdint.h>

#ifdef __CUDACC__
#define TS_HD __host__ __device__
#else
#define TS_HD
#endif

static inline TS_HD float ts_hash_uniform(uint64_t seed, uint64_t i, float scale)
{
	uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	/* 24 random bits -> [0, 1) exactly representable in float */
	float u = (float)(z >> 40) * (1.0f / 16777216.0f);
	return (2.0f * u - 1.0f) * scale;
}

#endif
