/*
 * cuda.c — the cuda engine backend: the networks of engine/netdef.c run
 * layer by layer on a real GPU, with cuDNN for convolution (forward,
 * backward-data, backward-filter, algorithms from cuDNN's heuristics),
 * pooling, activation, LRN, batch norm and softmax, cuBLAS for the fully
 * connected layers, and kernels/ for the GPU preprocessing and the SGD
 * momentum update. Weights are random and the loss gradient is a stand-in:
 * what matters is that the GPU does the work of a real training step.
 * Step times come from CUDA events.
 *
 * Memory layout: every tensor has its own output buffer (NCHW, FP32) and,
 * in training, its own gradient buffer, all in two arenas so that one
 * memset clears every gradient before backward. Backward accumulates into
 * input gradients (beta = 1) so that a tensor read by several layers
 * (inception branches, residual shortcuts) gets the sum of its gradients.
 *
 * One GPU per engine. Multi-GPU data parallelism (NCCL) is not built.
 *
 * This file is built as the module tiersim-cuda.so, loaded by
 * engine/cuda_load.c only when the cuda backend runs (so that no other run
 * maps the CUDA libraries); it exports one symbol, ts_cuda_module.
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/cuda.h"
#include "engine/engine_int.h"
#include "kernels/kernels.h"
#include "engine/netdef.h"

#define WS_LIMIT (1ULL << 30) /* largest cuDNN workspace an algorithm may ask for */
#define SRC_SIDE 256	      /* decoded images before the crop, as ImageNet loaders resize */

struct ct {
	float *y, *dy;
	size_t elems; /* per batch */
	cudnnTensorDescriptor_t d;
};

struct cl {
	const struct ts_layer *l;
	cudnnFilterDescriptor_t fd;
	cudnnConvolutionDescriptor_t cd;
	cudnnConvolutionFwdAlgo_t fa;
	cudnnConvolutionBwdDataAlgo_t ba;
	cudnnConvolutionBwdFilterAlgo_t bfa;
	cudnnTensorDescriptor_t pd_desc; /* bias (1,C,1,1) or batch-norm parameters */
	cudnnPoolingDescriptor_t pool;
	cudnnTensorDescriptor_t slice[TS_LAYER_MAX_IN]; /* concat: strided views */
	size_t slice_off[TS_LAYER_MAX_IN];
	float *w, *dw, *vw;	 /* weights (conv, fc, bn scale) */
	float *b, *db, *vb;	 /* bias (conv, fc, bn shift) */
	size_t wn, bn;
	float *mean, *var, *smean, *sinv; /* batch norm statistics */
};

struct cuda {
	cudnnHandle_t dnn;
	cublasHandle_t blas;
	cudaStream_t st;
	cudaEvent_t ev0, ev1;
	struct ts_net *net;
	int batch;
	bool train;
	struct ct *t;
	struct cl *L;
	void *ws;
	size_t ws_size;
	float *arena_y, *arena_dy, *arena_p, *ones;
	size_t n_y, n_p;
	cudnnActivationDescriptor_t relu;
	cudnnLRNDescriptor_t lrn;
	uint8_t *src;
	struct ts_k_crop *crops;
	uint64_t seed;
};

static int cuda_fail(cudaError_t e, const char *what, char *err, size_t errlen)
{
	if (e == cudaSuccess)
		return 0;
	snprintf(err, errlen, "cuda backend: %s: %s", what, cudaGetErrorString(e));
	return e == cudaErrorMemoryAllocation ? TS_E_GPU_OOM : -EIO;
}

static int dnn_fail(cudnnStatus_t s, const char *what, char *err, size_t errlen)
{
	if (s == CUDNN_STATUS_SUCCESS)
		return 0;
	snprintf(err, errlen, "cuda backend: %s: %s", what, cudnnGetErrorString(s));
	return s == CUDNN_STATUS_ALLOC_FAILED ? TS_E_GPU_OOM : -EIO;
}

static int blas_fail(cublasStatus_t s, const char *what, char *err, size_t errlen)
{
	if (s == CUBLAS_STATUS_SUCCESS)
		return 0;
	snprintf(err, errlen, "cuda backend: %s: cuBLAS status %d", what, (int)s);
	return s == CUBLAS_STATUS_ALLOC_FAILED ? TS_E_GPU_OOM : -EIO;
}

/* Stop at the first failing call of a block, keeping its message. */
#define CU(call, what)                                                          \
	do {                                                                    \
		if ((rc = cuda_fail((call), (what), err, errlen)) < 0)          \
			return rc;                                              \
	} while (0)
#define DNN(call, what)                                                         \
	do {                                                                    \
		if ((rc = dnn_fail((call), (what), err, errlen)) < 0)           \
			return rc;                                              \
	} while (0)
#define BLAS(call, what)                                                        \
	do {                                                                    \
		if ((rc = blas_fail((call), (what), err, errlen)) < 0)          \
			return rc;                                              \
	} while (0)

static const float one = 1.0f, zero = 0.0f;

static int cuda_device(struct ts_cuda_device *d, char *err, size_t errlen)
{
	int n = 0, dev = 0, khz = 0, mem_khz = 0, bus = 0;
	memset(d, 0, sizeof(*d));
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess || n == 0) {
		snprintf(err, errlen,
			 "cuda backend: no CUDA GPU on this machine (%s); use backend=sim",
			 e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
		return TS_E_NO_GPU;
	}
	struct cudaDeviceProp p;
	if (cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
		snprintf(err, errlen, "cuda backend: cannot read the properties of GPU 0");
		return TS_E_NO_GPU;
	}
	snprintf(d->name, sizeof(d->name), "%s", p.name);
	d->major = p.major;
	d->minor = p.minor;
	d->sms = p.multiProcessorCount;
	d->mem_gib = (double)p.totalGlobalMem / TS_GiB;
	size_t free_b = 0, total_b = 0;
	if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess)
		d->usable_mib = (double)total_b / TS_MiB;
	cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev);
	cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev);
	cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, dev);
	/*
	 * FP32 lanes per SM by compute capability (CUDA C Programming Guide,
	 * "Arithmetic Instructions" throughput table): 64 on 7.x and 8.0, 128
	 * on 8.6 and later. Peak = SMs x lanes x 2 (FMA) x boost clock.
	 */
	int lanes = (d->major == 8 && d->minor == 0) || d->major < 8 ? 64 : 128;
	d->fp32_tflops = (double)d->sms * lanes * 2.0 * khz * 1e3 / 1e12;
	d->mem_gbs = 2.0 * mem_khz * 1e3 * (bus / 8) / 1e9; /* double data rate */
	d->cudnn_version = (int)cudnnGetVersion();
	cudaRuntimeGetVersion(&d->cuda_runtime);
	return 0;
}

static void set4d(cudnnTensorDescriptor_t d, int n, struct ts_shape s)
{
	cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, s.c, s.h, s.w);
}

static size_t per_sample(struct ts_shape s)
{
	return (size_t)s.c * s.h * s.w;
}

/* Weight and bias counts of a layer (conv, fc: weights + bias; bn: scale + shift). */
static void param_counts(const struct ts_net *n, const struct ts_layer *l, size_t *wn, size_t *bn)
{
	struct ts_shape i = n->tensors[l->in[0]], o = n->tensors[l->out];
	*wn = *bn = 0;
	if (l->op == TS_L_CONV) {
		*wn = (size_t)i.c * o.c * l->kh * l->kw;
		*bn = l->bias ? (size_t)o.c : 0;
	} else if (l->op == TS_L_FC) {
		*wn = per_sample(i) * o.c;
		*bn = (size_t)o.c;
	} else if (l->op == TS_L_BN) {
		*wn = *bn = (size_t)o.c;
	}
}

static bool runs(const struct cuda *c, const struct ts_layer *l)
{
	return c->train || !l->train_only;
}

/* The first of cuDNN's ranked results that succeeded within the workspace
 * limit (the three perf-result types share these field names). */
#define PICK(res, cnt, dst, what)                                                     \
	do {                                                                          \
		int k_ = 0;                                                           \
		while (k_ < (cnt) && ((res)[k_].status != CUDNN_STATUS_SUCCESS ||     \
				      (res)[k_].memory > WS_LIMIT))                  \
			k_++;                                                         \
		if (k_ == (cnt))                                                      \
			return dnn_fail(CUDNN_STATUS_NOT_SUPPORTED, what, err, errlen); \
		(dst) = (res)[k_].algo;                                               \
		c->ws_size = TS_MAX(c->ws_size, (res)[k_].memory);                    \
	} while (0)

/* Each convolution's algorithms, from cuDNN's heuristics (the _v7 queries). */
static int pick_algos(struct cuda *c, struct cl *L, char *err, size_t errlen)
{
	const struct ts_layer *l = L->l;
	cudnnTensorDescriptor_t x = c->t[l->in[0]].d, y = c->t[l->out].d;
	cudnnConvolutionFwdAlgoPerf_t fp[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
	cudnnConvolutionBwdDataAlgoPerf_t bp[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
	cudnnConvolutionBwdFilterAlgoPerf_t fpf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
	int cnt = 0, rc;
	DNN(cudnnGetConvolutionForwardAlgorithm_v7(c->dnn, x, L->fd, L->cd, y,
						   CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &cnt, fp),
	    "cudnnGetConvolutionForwardAlgorithm_v7");
	PICK(fp, cnt, L->fa, "no forward convolution algorithm");
	if (!c->train)
		return 0;
	DNN(cudnnGetConvolutionBackwardDataAlgorithm_v7(c->dnn, L->fd, y, L->cd, x,
							CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
							&cnt, bp),
	    "cudnnGetConvolutionBackwardDataAlgorithm_v7");
	PICK(bp, cnt, L->ba, "no backward-data algorithm");
	DNN(cudnnGetConvolutionBackwardFilterAlgorithm_v7(c->dnn, x, y, L->cd, L->fd,
							  CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT,
							  &cnt, fpf),
	    "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
	PICK(fpf, cnt, L->bfa, "no backward-filter algorithm");
	return 0;
}

static int setup_layer(struct cuda *c, struct cl *L, bool strict_fp32, char *err, size_t errlen)
{
	const struct ts_layer *l = L->l;
	const struct ts_net *n = c->net;
	struct ts_shape i = n->tensors[l->in[0]], o = n->tensors[l->out];
	int rc;
	switch (l->op) {
	case TS_L_CONV:
		DNN(cudnnCreateFilterDescriptor(&L->fd), "filter descriptor");
		DNN(cudnnSetFilter4dDescriptor(L->fd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, o.c, i.c,
					       l->kh, l->kw),
		    "filter descriptor");
		DNN(cudnnCreateConvolutionDescriptor(&L->cd), "convolution descriptor");
		DNN(cudnnSetConvolution2dDescriptor(L->cd, l->ph, l->pw, l->sh, l->sw, 1, 1,
						    CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
		    "convolution descriptor");
		/* FP32 strictly (FMA) or TF32 tensor cores where the GPU has them */
		DNN(cudnnSetConvolutionMathType(L->cd, strict_fp32 ? CUDNN_FMA_MATH
								   : CUDNN_DEFAULT_MATH),
		    "convolution math type");
		if ((rc = pick_algos(c, L, err, errlen)) < 0)
			return rc;
		/* and the bias descriptor, as for batch norm's parameters */
		__attribute__((fallthrough));
	case TS_L_BN:
		DNN(cudnnCreateTensorDescriptor(&L->pd_desc), "parameter descriptor");
		if (l->op == TS_L_BN)
			DNN(cudnnDeriveBNTensorDescriptor(L->pd_desc, c->t[l->in[0]].d,
							  CUDNN_BATCHNORM_SPATIAL),
			    "batch-norm descriptor");
		else
			DNN(cudnnSetTensor4dDescriptor(L->pd_desc, CUDNN_TENSOR_NCHW,
						       CUDNN_DATA_FLOAT, 1, o.c, 1, 1),
			    "bias descriptor");
		break;
	case TS_L_FC:
		DNN(cudnnCreateTensorDescriptor(&L->pd_desc), "bias descriptor");
		DNN(cudnnSetTensor4dDescriptor(L->pd_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1,
					       o.c, 1, 1),
		    "bias descriptor");
		break;
	case TS_L_MAXPOOL:
	case TS_L_AVGPOOL:
		DNN(cudnnCreatePoolingDescriptor(&L->pool), "pooling descriptor");
		DNN(cudnnSetPooling2dDescriptor(
			    L->pool,
			    l->op == TS_L_MAXPOOL ? CUDNN_POOLING_MAX
						  : CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
			    CUDNN_NOT_PROPAGATE_NAN, l->kh, l->kw, l->ph, l->pw, l->sh, l->sw),
		    "pooling descriptor");
		break;
	case TS_L_CONCAT: {
		size_t off = 0;
		for (int k = 0; k < l->nin; k++) {
			struct ts_shape s = n->tensors[l->in[k]];
			DNN(cudnnCreateTensorDescriptor(&L->slice[k]), "concat view");
			DNN(cudnnSetTensor4dDescriptorEx(L->slice[k], CUDNN_DATA_FLOAT, c->batch, s.c,
							 s.h, s.w, (int)per_sample(o), s.h * s.w,
							 s.w, 1),
			    "concat view");
			L->slice_off[k] = off;
			off += per_sample(s);
		}
		break;
	}
	default:
		break;
	}
	return 0;
}

static void cuda_free(struct cuda *c)
{
	if (!c)
		return;
	if (c->L) {
		for (int k = 0; k < c->net->nlayers; k++) {
			struct cl *L = &c->L[k];
			if (L->fd)
				cudnnDestroyFilterDescriptor(L->fd);
			if (L->cd)
				cudnnDestroyConvolutionDescriptor(L->cd);
			if (L->pd_desc)
				cudnnDestroyTensorDescriptor(L->pd_desc);
			if (L->pool)
				cudnnDestroyPoolingDescriptor(L->pool);
			for (int j = 0; j < TS_LAYER_MAX_IN; j++)
				if (L->slice[j])
					cudnnDestroyTensorDescriptor(L->slice[j]);
		}
	}
	if (c->t)
		for (int k = 0; k < c->net->ntensors; k++)
			if (c->t[k].d)
				cudnnDestroyTensorDescriptor(c->t[k].d);
	cudaFree(c->arena_y);
	cudaFree(c->arena_dy);
	cudaFree(c->arena_p);
	cudaFree(c->ones);
	cudaFree(c->ws);
	cudaFree(c->src);
	cudaFree(c->crops);
	if (c->relu)
		cudnnDestroyActivationDescriptor(c->relu);
	if (c->lrn)
		cudnnDestroyLRNDescriptor(c->lrn);
	if (c->ev0)
		cudaEventDestroy(c->ev0);
	if (c->ev1)
		cudaEventDestroy(c->ev1);
	if (c->blas)
		cublasDestroy(c->blas);
	if (c->dnn)
		cudnnDestroy(c->dnn);
	if (c->st)
		cudaStreamDestroy(c->st);
	free(c->L);
	free(c->t);
	ts_net_free(c->net);
	free(c);
}

/* Build the network on the GPU: descriptors, algorithms, buffers, random
 * weights (uniform, He-style scale by fan-in) and input.
 *
 * Why one long function: passes over the network's tensors and layers in
 * order (descriptors and algorithms, workspace, parameter and BN buffers,
 * weights, input), each using the sizes the one before found.
 */
static int cuda_build(struct cuda *c, const char *netdef, int batch, bool train, bool strict_fp32,
		      uint64_t seed, char *err, size_t errlen)
{
	int rc = ts_net_build(netdef, &c->net);
	if (rc < 0) {
		snprintf(err, errlen, "cuda backend: no layer graph '%s'", netdef);
		return rc == -ENOMEM ? rc : TS_E_UNKNOWN;
	}
	if (c->net->kind != TS_NET_CNN) {
		snprintf(err, errlen,
			 "cuda backend: %s has no layer graph to run (LSTM models are sim only)",
			 netdef);
		return TS_E_UNKNOWN;
	}
	struct ts_net *n = c->net;
	c->batch = batch;
	c->train = train;
	c->seed = seed;
	CU(cudaSetDevice(0), "cudaSetDevice");
	CU(cudaStreamCreate(&c->st), "cudaStreamCreate");
	CU(cudaEventCreate(&c->ev0), "cudaEventCreate");
	CU(cudaEventCreate(&c->ev1), "cudaEventCreate");
	DNN(cudnnCreate(&c->dnn), "cudnnCreate");
	DNN(cudnnSetStream(c->dnn, c->st), "cudnnSetStream");
	BLAS(cublasCreate(&c->blas), "cublasCreate");
	BLAS(cublasSetStream(c->blas, c->st), "cublasSetStream");
	BLAS(cublasSetMathMode(c->blas, strict_fp32 ? CUBLAS_PEDANTIC_MATH
						     : CUBLAS_TF32_TENSOR_OP_MATH),
	     "cublasSetMathMode");
	DNN(cudnnCreateActivationDescriptor(&c->relu), "activation descriptor");
	DNN(cudnnSetActivationDescriptor(c->relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0),
	    "activation descriptor");
	/* Caffe's LRN defaults as bvlc_googlenet uses them: 5 channels, 1e-4, 0.75, k 1 */
	DNN(cudnnCreateLRNDescriptor(&c->lrn), "LRN descriptor");
	DNN(cudnnSetLRNDescriptor(c->lrn, 5, 1e-4, 0.75, 1.0), "LRN descriptor");

	c->t = calloc((size_t)n->ntensors, sizeof(*c->t));
	c->L = calloc((size_t)n->nlayers, sizeof(*c->L));
	if (!c->t || !c->L)
		return -ENOMEM;
	for (int k = 0; k < n->ntensors; k++) {
		c->t[k].elems = per_sample(n->tensors[k]) * (size_t)batch;
		c->n_y += c->t[k].elems;
		DNN(cudnnCreateTensorDescriptor(&c->t[k].d), "tensor descriptor");
		/* fully connected outputs are (N, C, 1, 1) like any other tensor */
		set4d(c->t[k].d, batch, n->tensors[k]);
	}
	for (int k = 0; k < n->nlayers; k++) {
		struct cl *L = &c->L[k];
		L->l = &n->layers[k];
		param_counts(n, L->l, &L->wn, &L->bn);
		c->n_p += L->wn + L->bn;
		if (runs(c, L->l) && (rc = setup_layer(c, L, strict_fp32, err, errlen)) < 0)
			return rc;
	}
	size_t pmul = train ? 3 : 1; /* weights, gradients, momentum */
	CU(cudaMalloc((void **)&c->arena_y, c->n_y * sizeof(float)), "activations");
	if (train)
		CU(cudaMalloc((void **)&c->arena_dy, c->n_y * sizeof(float)), "activation gradients");
	CU(cudaMalloc((void **)&c->arena_p, (c->n_p * pmul + 1) * sizeof(float)), "weights");
	CU(cudaMalloc((void **)&c->ones, (size_t)batch * sizeof(float)), "ones");
	if (c->ws_size)
		CU(cudaMalloc(&c->ws, c->ws_size), "cuDNN workspace");
	/* BN statistics: 4 vectors per BN layer, after the parameters */
	size_t off = 0;
	for (int k = 0; k < n->ntensors; k++) {
		c->t[k].y = c->arena_y + off;
		if (train)
			c->t[k].dy = c->arena_dy + off;
		off += c->t[k].elems;
	}
	float *p = c->arena_p;
	for (int k = 0; k < n->nlayers; k++) {
		struct cl *L = &c->L[k];
		L->w = p, p += L->wn;
		L->b = p, p += L->bn;
	}
	if (train) {
		for (int k = 0; k < n->nlayers; k++) {
			struct cl *L = &c->L[k];
			L->dw = p, p += L->wn;
			L->db = p, p += L->bn;
		}
		for (int k = 0; k < n->nlayers; k++) {
			struct cl *L = &c->L[k];
			L->vw = p, p += L->wn;
			L->vb = p, p += L->bn;
		}
		CU(cudaMemsetAsync(c->arena_p + c->n_p, 0, c->n_p * 2 * sizeof(float), c->st),
		   "momentum");
	}
	for (int k = 0; k < n->nlayers; k++) {
		struct cl *L = &c->L[k];
		if (L->l->op == TS_L_BN) {
			size_t ch = L->wn;
			CU(cudaMalloc((void **)&L->mean, 4 * ch * sizeof(float)), "batch-norm stats");
			L->var = L->mean + ch;
			L->smean = L->var + ch;
			L->sinv = L->smean + ch;
			CU(cudaMemsetAsync(L->mean, 0, ch * sizeof(float), c->st), "bn mean");
			if ((rc = ts_k_fill_uniform(L->w, ch, seed + (uint64_t)k, 0.1f, c->st)) < 0)
				return cuda_fail((cudaError_t)-rc, "bn scale", err, errlen);
			if ((rc = ts_k_fill_uniform(L->b, ch, ~seed + (uint64_t)k, 0.1f, c->st)) < 0)
				return cuda_fail((cudaError_t)-rc, "bn shift", err, errlen);
			continue;
		}
		if (!L->wn)
			continue;
		struct ts_shape in = n->tensors[L->l->in[0]];
		double fan_in = L->l->op == TS_L_CONV ? (double)in.c * L->l->kh * L->l->kw
						      : (double)per_sample(in);
		float scale = (float)sqrt(6.0 / fan_in);
		if ((rc = ts_k_fill_uniform(L->w, L->wn, seed + (uint64_t)k, scale, c->st)) < 0)
			return cuda_fail((cudaError_t)-rc, "weights", err, errlen);
		if (L->bn && (rc = ts_k_fill_uniform(L->b, L->bn, ~seed + (uint64_t)k, 0.01f, c->st)) < 0)
			return cuda_fail((cudaError_t)-rc, "bias", err, errlen);
	}
	/* BN running variance starts at 1 */
	for (int k = 0; k < n->nlayers; k++) {
		struct cl *L = &c->L[k];
		if (L->l->op != TS_L_BN)
			continue;
		float *h = malloc(L->wn * sizeof(float));
		if (!h)
			return -ENOMEM;
		for (size_t j = 0; j < L->wn; j++)
			h[j] = 1.0f;
		rc = cuda_fail(cudaMemcpy(L->var, h, L->wn * sizeof(float), cudaMemcpyHostToDevice),
			       "bn var", err, errlen);
		free(h);
		if (rc < 0)
			return rc;
	}
	float *h1 = malloc((size_t)batch * sizeof(float));
	if (!h1)
		return -ENOMEM;
	for (int j = 0; j < batch; j++)
		h1[j] = 1.0f;
	rc = cuda_fail(cudaMemcpy(c->ones, h1, (size_t)batch * sizeof(float), cudaMemcpyHostToDevice),
		       "ones", err, errlen);
	free(h1);
	if (rc < 0)
		return rc;
	/* synthetic input, and the u8 source images the preprocessing step crops */
	if ((rc = ts_k_fill_uniform(c->t[0].y, c->t[0].elems, seed ^ 0x5eed, 1.0f, c->st)) < 0)
		return cuda_fail((cudaError_t)-rc, "input", err, errlen);
	struct ts_shape in = n->tensors[0];
	int side = TS_MAX(SRC_SIDE, TS_MAX(in.h, in.w));
	size_t src_bytes = (size_t)batch * side * side * 3;
	CU(cudaMalloc((void **)&c->src, src_bytes), "source images");
	CU(cudaMemsetAsync(c->src, 0x80, src_bytes, c->st), "source images");
	CU(cudaMalloc((void **)&c->crops, (size_t)batch * sizeof(*c->crops)), "crops");
	struct ts_k_crop *hc = calloc((size_t)batch, sizeof(*hc));
	if (!hc)
		return -ENOMEM;
	for (int j = 0; j < batch; j++)
		hc[j] = (struct ts_k_crop){ (side - in.h) / 2, (side - in.w) / 2, j & 1 };
	rc = cuda_fail(cudaMemcpy(c->crops, hc, (size_t)batch * sizeof(*hc), cudaMemcpyHostToDevice),
		       "crops", err, errlen);
	free(hc);
	if (rc < 0)
		return rc;
	return cuda_fail(cudaStreamSynchronize(c->st), "setup", err, errlen);
}

static int forward(struct cuda *c, char *err, size_t errlen)
{
	const struct ts_net *n = c->net;
	int rc, N = c->batch;
	for (int k = 0; k < n->nlayers; k++) {
		struct cl *L = &c->L[k];
		const struct ts_layer *l = L->l;
		if (!runs(c, l))
			continue;
		struct ct *x = &c->t[l->in[0]], *y = &c->t[l->out];
		struct ts_shape is = n->tensors[l->in[0]], os = n->tensors[l->out];
		switch (l->op) {
		case TS_L_CONV:
			DNN(cudnnConvolutionForward(c->dnn, &one, x->d, x->y, L->fd, L->w, L->cd,
						    L->fa, c->ws, c->ws_size, &zero, y->d, y->y),
			    "convolution forward");
			if (L->bn)
				DNN(cudnnAddTensor(c->dnn, &one, L->pd_desc, L->b, &one, y->d, y->y),
				    "bias");
			break;
		case TS_L_FC: {
			int in = (int)per_sample(is), out = os.c;
			/* y (out x N) = W^T (out x in) x (in x N), column-major */
			BLAS(cublasSgemm(c->blas, CUBLAS_OP_T, CUBLAS_OP_N, out, N, in, &one, L->w,
					 in, x->y, in, &zero, y->y, out),
			     "fully connected forward");
			DNN(cudnnAddTensor(c->dnn, &one, L->pd_desc, L->b, &one, y->d, y->y), "bias");
			break;
		}
		case TS_L_BN:
			if (c->train)
				DNN(cudnnBatchNormalizationForwardTraining(
					    c->dnn, CUDNN_BATCHNORM_SPATIAL, &one, &zero, x->d, x->y,
					    y->d, y->y, L->pd_desc, L->w, L->b, 0.1, L->mean, L->var,
					    1e-5, L->smean, L->sinv),
				    "batch norm forward");
			else
				DNN(cudnnBatchNormalizationForwardInference(
					    c->dnn, CUDNN_BATCHNORM_SPATIAL, &one, &zero, x->d, x->y,
					    y->d, y->y, L->pd_desc, L->w, L->b, L->mean, L->var, 1e-5),
				    "batch norm forward");
			break;
		case TS_L_RELU:
			DNN(cudnnActivationForward(c->dnn, c->relu, &one, x->d, x->y, &zero, y->d,
						   y->y),
			    "ReLU forward");
			break;
		case TS_L_MAXPOOL:
		case TS_L_AVGPOOL:
			DNN(cudnnPoolingForward(c->dnn, L->pool, &one, x->d, x->y, &zero, y->d, y->y),
			    "pooling forward");
			break;
		case TS_L_LRN:
			DNN(cudnnLRNCrossChannelForward(c->dnn, c->lrn, CUDNN_LRN_CROSS_CHANNEL_DIM1,
							&one, x->d, x->y, &zero, y->d, y->y),
			    "LRN forward");
			break;
		case TS_L_CONCAT:
			for (int j = 0; j < l->nin; j++) {
				struct ct *s = &c->t[l->in[j]];
				DNN(cudnnTransformTensor(c->dnn, &one, s->d, s->y, &zero, L->slice[j],
							 y->y + L->slice_off[j]),
				    "concat");
			}
			break;
		case TS_L_ADD:
			CU(cudaMemcpyAsync(y->y, x->y, y->elems * sizeof(float),
					   cudaMemcpyDeviceToDevice, c->st),
			   "residual add");
			DNN(cudnnAddTensor(c->dnn, &one, c->t[l->in[1]].d, c->t[l->in[1]].y, &one,
					   y->d, y->y),
			    "residual add");
			break;
		case TS_L_SOFTMAX:
			DNN(cudnnSoftmaxForward(c->dnn, CUDNN_SOFTMAX_ACCURATE,
						CUDNN_SOFTMAX_MODE_INSTANCE, &one, x->d, x->y, &zero,
						y->d, y->y),
			    "softmax forward");
			break;
		case TS_L_DROPOUT:
			/* the mask multiply is memory-bound and small: a copy stands in */
			CU(cudaMemcpyAsync(y->y, x->y, y->elems * sizeof(float),
					   cudaMemcpyDeviceToDevice, c->st),
			   "dropout");
			break;
		}
	}
	return 0;
}

static int backward(struct cuda *c, char *err, size_t errlen)
{
	const struct ts_net *n = c->net;
	int rc, N = c->batch;
	CU(cudaMemsetAsync(c->arena_dy, 0, c->n_y * sizeof(float), c->st), "clear gradients");
	for (int k = n->nlayers - 1; k >= 0; k--) {
		struct cl *L = &c->L[k];
		const struct ts_layer *l = L->l;
		struct ct *x = &c->t[l->in[0]], *y = &c->t[l->out];
		bool need_dx = l->in[0] != 0; /* no gradient for the input images */
		struct ts_shape is = n->tensors[l->in[0]], os = n->tensors[l->out];
		switch (l->op) {
		case TS_L_CONV:
			if (L->bn)
				DNN(cudnnConvolutionBackwardBias(c->dnn, &one, y->d, y->dy, &zero,
								 L->pd_desc, L->db),
				    "bias backward");
			DNN(cudnnConvolutionBackwardFilter(c->dnn, &one, x->d, x->y, y->d, y->dy,
							   L->cd, L->bfa, c->ws, c->ws_size, &zero,
							   L->fd, L->dw),
			    "convolution backward filter");
			if (need_dx)
				DNN(cudnnConvolutionBackwardData(c->dnn, &one, L->fd, L->w, y->d, y->dy,
								 L->cd, L->ba, c->ws, c->ws_size, &one,
								 x->d, x->dy),
				    "convolution backward data");
			break;
		case TS_L_FC: {
			int in = (int)per_sample(is), out = os.c;
			BLAS(cublasSgemm(c->blas, CUBLAS_OP_N, CUBLAS_OP_T, in, out, N, &one, x->y, in,
					 y->dy, out, &zero, L->dw, in),
			     "fully connected weight gradient");
			BLAS(cublasSgemv(c->blas, CUBLAS_OP_N, out, N, &one, y->dy, out, c->ones, 1,
					 &zero, L->db, 1),
			     "fully connected bias gradient");
			if (need_dx)
				BLAS(cublasSgemm(c->blas, CUBLAS_OP_N, CUBLAS_OP_N, in, N, out, &one,
						 L->w, in, y->dy, out, &one, x->dy, in),
				     "fully connected input gradient");
			break;
		}
		case TS_L_BN:
			DNN(cudnnBatchNormalizationBackward(c->dnn, CUDNN_BATCHNORM_SPATIAL, &one, &one,
							    &one, &zero, x->d, x->y, y->d, y->dy,
							    x->d, x->dy, L->pd_desc, L->w, L->dw,
							    L->db, 1e-5, L->smean, L->sinv),
			    "batch norm backward");
			break;
		case TS_L_RELU:
			DNN(cudnnActivationBackward(c->dnn, c->relu, &one, y->d, y->y, y->d, y->dy,
						    x->d, x->y, &one, x->d, x->dy),
			    "ReLU backward");
			break;
		case TS_L_MAXPOOL:
		case TS_L_AVGPOOL:
			DNN(cudnnPoolingBackward(c->dnn, L->pool, &one, y->d, y->y, y->d, y->dy, x->d,
						 x->y, &one, x->d, x->dy),
			    "pooling backward");
			break;
		case TS_L_LRN:
			DNN(cudnnLRNCrossChannelBackward(c->dnn, c->lrn, CUDNN_LRN_CROSS_CHANNEL_DIM1,
							 &one, y->d, y->y, y->d, y->dy, x->d, x->y,
							 &one, x->d, x->dy),
			    "LRN backward");
			break;
		case TS_L_CONCAT:
			for (int j = 0; j < l->nin; j++) {
				struct ct *s = &c->t[l->in[j]];
				DNN(cudnnTransformTensor(c->dnn, &one, L->slice[j],
							 y->dy + L->slice_off[j], &one, s->d, s->dy),
				    "concat backward");
			}
			break;
		case TS_L_ADD:
			for (int j = 0; j < 2; j++) {
				struct ct *s = &c->t[l->in[j]];
				DNN(cudnnAddTensor(c->dnn, &one, y->d, y->dy, &one, s->d, s->dy),
				    "residual backward");
			}
			break;
		case TS_L_SOFTMAX:
			/* the loss gradient stands in as the output itself (y - 0) */
			CU(cudaMemcpyAsync(y->dy, y->y, y->elems * sizeof(float),
					   cudaMemcpyDeviceToDevice, c->st),
			   "loss gradient");
			DNN(cudnnSoftmaxBackward(c->dnn, CUDNN_SOFTMAX_ACCURATE,
						 CUDNN_SOFTMAX_MODE_INSTANCE, &one, y->d, y->y, y->d,
						 y->dy, &one, x->d, x->dy),
			    "softmax backward");
			break;
		case TS_L_DROPOUT:
			DNN(cudnnAddTensor(c->dnn, &one, y->d, y->dy, &one, x->d, x->dy),
			    "dropout backward");
			break;
		}
	}
	return 0;
}

/* SGD with momentum over every parameter, in one launch: the arenas hold
 * weights, gradients and momentum as three equal runs. */
static int update(struct cuda *c, char *err, size_t errlen)
{
	float *w = c->arena_p, *g = w + c->n_p, *v = g + c->n_p;
	int rc = ts_k_sgd_momentum(w, g, v, c->n_p, 0.01f, 0.9f, 1e-4f, c->st);
	return rc < 0 ? cuda_fail((cudaError_t)-rc, "SGD update", err, errlen) : 0;
}

static int preprocess(struct cuda *c, char *err, size_t errlen)
{
	/* ImageNet mean and standard deviation per channel (torchvision's) */
	static const float mean[3] = { 0.485f, 0.456f, 0.406f }, sd[3] = { 0.229f, 0.224f, 0.225f };
	struct ts_shape in = c->net->tensors[0];
	int side = TS_MAX(SRC_SIDE, TS_MAX(in.h, in.w));
	int rc = ts_k_preprocess(c->src, c->batch, side, side, c->crops, in.h, in.w, mean, sd,
				 c->t[0].y, c->st);
	return rc < 0 ? cuda_fail((cudaError_t)-rc, "preprocess", err, errlen) : 0;
}

/* One timed step; *ns gets its GPU time from CUDA events. */
static int timed_step(struct cuda *c, bool data, uint64_t *ns, char *err, size_t errlen)
{
	int rc;
	CU(cudaEventRecord(c->ev0, c->st), "cudaEventRecord");
	if (data && (rc = preprocess(c, err, errlen)) < 0)
		return rc;
	if ((rc = forward(c, err, errlen)) < 0)
		return rc;
	if (c->train) {
		if ((rc = backward(c, err, errlen)) < 0)
			return rc;
		if ((rc = update(c, err, errlen)) < 0)
			return rc;
	}
	CU(cudaEventRecord(c->ev1, c->st), "cudaEventRecord");
	CU(cudaEventSynchronize(c->ev1), "step");
	float ms = 0;
	CU(cudaEventElapsedTime(&ms, c->ev0, c->ev1), "cudaEventElapsedTime");
	*ns = (uint64_t)llround((double)ms * 1e6);
	return 0;
}

static int cuda_init(struct ts_engine *e, char *err, size_t errlen)
{
	struct ts_cuda_device dev;
	int rc = cuda_device(&dev, err, errlen);
	if (rc < 0)
		return rc;
	if (e->cfg.gpus != 1) {
		snprintf(err, errlen,
			 "cuda backend: runs one GPU per engine; multi-GPU (NCCL) is not built — "
			 "use gpus=1, or backend=sim for data-parallel runs");
		return -ENOTSUP;
	}
	const char *prec = *e->cfg.precision ? e->cfg.precision : "fp32";
	if (strcmp(prec, "fp32") && strcmp(prec, "tf32")) {
		snprintf(err, errlen, "cuda backend: precision '%s' is not built (fp32 or tf32)", prec);
		return -ENOTSUP;
	}
	struct cuda *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	e->priv = c;
	size_t free0 = 0, free1 = 0, total = 0;
	cudaMemGetInfo(&free0, &total);
	rc = cuda_build(c, e->cfg.model, (int)e->cfg.batch, e->mode == TS_ENGINE_TRAIN,
			strcmp(prec, "fp32") == 0, e->cfg.seed, err, errlen);
	if (rc == TS_E_GPU_OOM) {
		size_t used = strlen(err);
		snprintf(err + used, errlen - used, " (%s batch %" PRIu64 " on %s: out of GPU memory)",
			 e->cfg.model, e->cfg.batch, dev.name);
	}
	if (rc < 0)
		return rc;
	/* warm-up: the first steps pay for lazy module loading and allocations */
	uint64_t ns = 0;
	for (int i = 0; i < 3 && rc == 0; i++)
		rc = timed_step(c, e->cfg.data, &ns, err, errlen);
	if (rc < 0)
		return rc;
	cudaMemGetInfo(&free1, &total);

	struct ts_engine_info *i = &e->info;
	snprintf(i->model, sizeof(i->model), "%s", e->cfg.model);
	snprintf(i->gpu, sizeof(i->gpu), "%.47s", dev.name);
	snprintf(i->framework, sizeof(i->framework), "tiersim-cudnn");
	snprintf(i->link, sizeof(i->link), "none");
	snprintf(i->precision, sizeof(i->precision), "%s", prec);
	snprintf(i->source, sizeof(i->source),
		 "measured: CUDA events, cuDNN %d, CUDA runtime %d, %d SMs", dev.cudnn_version,
		 dev.cuda_runtime, dev.sms);
	i->mode = e->mode;
	i->gpus = 1;
	i->batch = e->cfg.batch;
	i->basis = TS_BASIS_MEASURED;
	i->compute_ns = ns;
	i->samples_per_s_1gpu = ns ? (double)e->cfg.batch * 1e9 / (double)ns : 0;
	i->samples_per_s = i->samples_per_s_1gpu;
	i->mem_bytes = free0 > free1 ? free0 - free1 : 0;
	i->mem_capacity = total;
	i->jitter_p99 = 1.0;
	return 0;
}

static int cuda_step(struct ts_engine *e, uint64_t samples, uint64_t *compute_ns,
		     uint64_t *comm_ns)
{
	char err[256];
	int rc = timed_step(e->priv, e->cfg.data, compute_ns, err, sizeof(err));
	if (rc < 0)
		fprintf(stderr, "tiersim: %s\n", err);
	*comm_ns = 0;
	return rc;
}

static void cuda_cleanup(struct ts_engine *e)
{
	cuda_free(e->priv);
	e->priv = NULL;
}

static const struct ts_engine_ops cuda_ops = {
	.name = "cuda",
	.version = TS_ENGINE_OPS_VERSION,
	.flags = TS_ENGINE_NEEDS_GPU,
	.help = TS_CUDA_HELP,
	.init = cuda_init,
	.step = cuda_step,
	.cleanup = cuda_cleanup,
};

/* ---- layer checks against a CPU reference ---------------------------- */

static float *fetch(const float *dev, size_t n)
{
	float *h = malloc(n * sizeof(float));
	if (h && cudaMemcpy(h, dev, n * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) {
		free(h);
		return NULL;
	}
	return h;
}

/* Largest |gpu - cpu| over the layer's largest |cpu|. */
static double compare(const double *ref, const float *y, size_t n)
{
	double maxdiff = 0, maxval = 1e-30;
	for (size_t i = 0; i < n; i++) {
		maxdiff = fmax(maxdiff, fabs(ref[i] - y[i]));
		maxval = fmax(maxval, fabs(ref[i]));
	}
	return maxdiff / maxval;
}

static int cuda_check_layers(const char *netdef, int batch, double *max_rel, int *layers,
			     char *err, size_t errlen)
{
	struct ts_cuda_device dev;
	int rc = cuda_device(&dev, err, errlen);
	if (rc < 0)
		return rc;
	struct cuda *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	*max_rel = 0;
	*layers = 0;
	rc = cuda_build(c, netdef, batch, false, true, 42, err, errlen);
	if (rc == 0)
		rc = forward(c, err, errlen);
	if (rc == 0)
		rc = cuda_fail(cudaStreamSynchronize(c->st), "forward", err, errlen);
	for (int k = 0; rc == 0 && k < c->net->nlayers; k++) {
		struct cl *L = &c->L[k];
		const struct ts_layer *l = L->l;
		if (l->train_only || (l->op != TS_L_CONV && l->op != TS_L_FC))
			continue;
		float *x = fetch(c->t[l->in[0]].y, c->t[l->in[0]].elems);
		float *y = fetch(c->t[l->out].y, c->t[l->out].elems);
		float *w = fetch(L->w, L->wn);
		float *b = L->bn ? fetch(L->b, L->bn) : NULL;
		double *ref = malloc(c->t[l->out].elems * sizeof(double));
		if (!x || !y || !w || (L->bn && !b) || !ref) {
			snprintf(err, errlen, "cuda backend: copying layer %d back failed", k);
			rc = -EIO;
		} else {
			ts_layer_forward_ref(c->net, l, batch, x, w, b, ref);
			*max_rel = fmax(*max_rel, compare(ref, y, c->t[l->out].elems));
			(*layers)++;
		}
		free(ref);
		free(x);
		free(y);
		free(w);
		free(b);
	}
	cuda_free(c);
	return rc;
}

/* The module's one exported symbol (engine/cuda.h). */
TS_CUDA_MODULE_EXPORT const struct ts_cuda_module ts_cuda_module = {
	.abi = TS_CUDA_MODULE_ABI,
	.version = TS_VERSION,
	.engine_size = sizeof(struct ts_engine),
	.device_size = sizeof(struct ts_cuda_device),
	.ops = &cuda_ops,
	.device = cuda_device,
	.check_layers = cuda_check_layers,
};
