/*
 * cuda.c — the cuda engine backend: the networks of engine/netdef.c run
 * layer by layer on a real GPU, with cuDNN for convolution (forward,
 * backward-data, backward-filter, algorithms that cuDNN measures fastest),
 * pooling, activation, LRN, batch norm and softmax, cuBLAS for the fully
 * connected layers, and kernels/ for the GPU preprocessing and the SGD
 * momentum update. Weights are random and the loss gradient is a stand-in:
 * what matters is that the GPU does the work of a real training step.
 * Step times come from CUDA events.
 *
 * Memory layout: every tensor has its own output buffer (NCHW, FP32) and,
 * in training, its own gradient buffer, all in two arenas. In backward the
 * first gradient written into a tensor overwrites it (beta = 0) and later
 * ones add (beta = 1), so that a tensor read by several layers (inception
 * branches, residual shortcuts) gets the sum of its gradients without a
 * clear of the arena each step (grad=clear in TIERSIM_CUDA_OPTS restores
 * the clear and beta = 1 throughout).
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
#include <time.h>

#include "engine/cuda.h"
#include "engine/engine_int.h"
#include "kernels/kernels.h"
#include "engine/netdef.h"

#define SRC_SIDE 256 /* decoded images before the crop, as ImageNet loaders resize */

/*
 * The backend's choices, each switchable through the environment variable
 * TIERSIM_CUDA_OPTS (comma-separated key=value) so that variants can be
 * timed side by side on one GPU (tests/engine/test_gpu --variants):
 *   algo=heuristic|find   cuDNN's ranked heuristics (cudnnGet*Algorithm_v7)
 *                         or its measured ranking (cudnnFind*AlgorithmEx)
 *   ws_mib=N              largest workspace one algorithm may ask for
 *   bn=spatial|persistent batch-norm mode in training
 *   grad=clear|overwrite  clear the activation-gradient arena each step and
 *                         accumulate (beta = 1), or let the first gradient
 *                         written to a tensor in backward overwrite (beta = 0)
 *   add=copy|op           residual add as a copy then an add, or one
 *                         cudnnOpTensor
 *   profile=0|1           time every call with CUDA events and print the
 *                         step's time by kind of layer at cleanup (stderr)
 */
struct cuda_opts {
	bool find, bn_persistent, grad_overwrite, add_op, profile;
	size_t ws_limit;
};
/* The default is the fastest variant measured (engine/README.md, "Where
 * the cuda backend's step time goes"). */
#define OPTS_DEFAULT "algo=find,ws_mib=16384,bn=persistent,grad=overwrite,add=op,profile=0"

/* kinds of work a step's time is split into (profile=1) */
enum {
	P_CONV_F, P_BN_F, P_RELU_F, P_ADD_F, P_OTHER_F, P_CONV_BD, P_CONV_BF, P_BN_B, P_RELU_B,
	P_ADD_B, P_OTHER_B, P_CLEAR, P_UPDATE, P_N
};
static const char *const p_names[P_N] = {
	"conv fwd", "bn fwd", "relu fwd", "add fwd", "other fwd", "conv bwd data",
	"conv bwd filter", "bn bwd", "relu bwd", "add bwd", "other bwd", "grad clear",
	"sgd update",
};

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
	bool gfirst[TS_LAYER_MAX_IN]; /* grad=overwrite: first gradient into this input */
	bool clear_dy;		      /* grad=overwrite: nobody writes this output's gradient */
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
	struct cuda_opts o;
	size_t ws_cap; /* the workspace limit, or less where the GPU has less free */
	cudnnBatchNormMode_t bn_mode; /* in training */
	cudnnOpTensorDescriptor_t add;
	/* profile=1: an event after each call, its kind, and the sums */
	cudaEvent_t *pev;
	int *pcat, npev, maxev, psteps;
	double psum[P_N], phost;
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

/* TIERSIM_CUDA_OPTS over the defaults; a bad entry is named in @err. */
static int parse_opts(struct cuda_opts *o, char *err, size_t errlen)
{
	const char *env = getenv("TIERSIM_CUDA_OPTS");
	char buf[512];
	snprintf(buf, sizeof(buf), "%s,%s", OPTS_DEFAULT, env ? env : "");
	memset(o, 0, sizeof(*o));
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *v = strchr(t, '=');
		char *end = NULL;
		if (!v)
			goto bad;
		*v++ = 0;
		if (!strcmp(t, "algo") && (!strcmp(v, "heuristic") || !strcmp(v, "find")))
			o->find = !strcmp(v, "find");
		else if (!strcmp(t, "ws_mib") && (o->ws_limit = strtoull(v, &end, 10)) > 0 && !*end)
			o->ws_limit <<= 20;
		else if (!strcmp(t, "bn") && (!strcmp(v, "spatial") || !strcmp(v, "persistent")))
			o->bn_persistent = !strcmp(v, "persistent");
		else if (!strcmp(t, "grad") && (!strcmp(v, "clear") || !strcmp(v, "overwrite")))
			o->grad_overwrite = !strcmp(v, "overwrite");
		else if (!strcmp(t, "add") && (!strcmp(v, "copy") || !strcmp(v, "op")))
			o->add_op = !strcmp(v, "op");
		else if (!strcmp(t, "profile") && (!strcmp(v, "0") || !strcmp(v, "1")))
			o->profile = !strcmp(v, "1");
		else
			goto bad;
		continue;
bad:
		snprintf(err, errlen,
			 "cuda backend: TIERSIM_CUDA_OPTS: bad entry '%s' (algo=heuristic|find, "
			 "ws_mib=N, bn=spatial|persistent, grad=clear|overwrite, add=copy|op, "
			 "profile=0|1)",
			 t);
		return -EINVAL;
	}
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
				      (res)[k_].memory > c->ws_cap))                \
			k_++;                                                         \
		if (k_ == (cnt))                                                      \
			return dnn_fail(CUDNN_STATUS_NOT_SUPPORTED, what, err, errlen); \
		(dst) = (res)[k_].algo;                                               \
		c->ws_size = TS_MAX(c->ws_size, (res)[k_].memory);                    \
	} while (0)

/* Each convolution's algorithms, from cuDNN's heuristics (the _v7 queries). */
static int pick_algos(struct cuda *c, struct cl *L, char *err, size_t errlen)
{
	if (c->o.find)
		return 0; /* find_algos, once the buffers exist */
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

/*
 * algo=find: the algorithms cuDNN measures fastest on this GPU
 * (cudnnFind*AlgorithmEx on the engine's own buffers), as PyTorch's
 * cudnn.benchmark does. Convolutions of the same shape, math and workspace
 * limit share one search per process (ResNet-50's 53 have 23 shapes).
 */
struct algo_key {
	int x[4], f[4], pad[2], stride[2];
	cudnnMathType_t math;
	size_t ws_limit;
	bool train;
};
static struct algo_memo {
	struct algo_key k;
	cudnnConvolutionFwdAlgo_t fa;
	cudnnConvolutionBwdDataAlgo_t ba;
	cudnnConvolutionBwdFilterAlgo_t bfa;
	size_t ws;
} memo[128];
static int nmemo;

/* Field by field: the key's padding (after math and after train on LP64)
 * is no part of it, and a struct copy such as the memo's need not keep
 * the zeros find_algos() set there. */
static bool key_eq(const struct algo_key *a, const struct algo_key *b)
{
	return !memcmp(a->x, b->x, sizeof(a->x)) && !memcmp(a->f, b->f, sizeof(a->f)) &&
	       !memcmp(a->pad, b->pad, sizeof(a->pad)) &&
	       !memcmp(a->stride, b->stride, sizeof(a->stride)) && a->math == b->math &&
	       a->ws_limit == b->ws_limit && a->train == b->train;
}

static int find_algos(struct cuda *c, struct cl *L, void *ws, char *err, size_t errlen)
{
	const struct ts_layer *l = L->l;
	struct ct *x = &c->t[l->in[0]], *y = &c->t[l->out];
	struct algo_key k = { 0 };
	struct ts_shape is = c->net->tensors[l->in[0]], os = c->net->tensors[l->out];
	k.x[0] = c->batch, k.x[1] = is.c, k.x[2] = is.h, k.x[3] = is.w;
	k.f[0] = os.c, k.f[1] = is.c, k.f[2] = l->kh, k.f[3] = l->kw;
	k.pad[0] = l->ph, k.pad[1] = l->pw, k.stride[0] = l->sh, k.stride[1] = l->sw;
	cudnnGetConvolutionMathType(L->cd, &k.math);
	k.ws_limit = c->ws_cap;
	k.train = c->train;
	for (int i = 0; i < nmemo; i++)
		if (key_eq(&memo[i].k, &k)) {
			L->fa = memo[i].fa, L->ba = memo[i].ba, L->bfa = memo[i].bfa;
			c->ws_size = TS_MAX(c->ws_size, memo[i].ws);
			return 0;
		}
	cudnnConvolutionFwdAlgoPerf_t fp[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
	cudnnConvolutionBwdDataAlgoPerf_t bp[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
	cudnnConvolutionBwdFilterAlgoPerf_t fpf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
	int cnt = 0, rc;
	size_t before = c->ws_size;
	c->ws_size = 0;
	DNN(cudnnFindConvolutionForwardAlgorithmEx(c->dnn, x->d, x->y, L->fd, L->w, L->cd, y->d,
						   y->y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &cnt,
						   fp, ws, c->ws_cap),
	    "cudnnFindConvolutionForwardAlgorithmEx");
	PICK(fp, cnt, L->fa, "no forward convolution algorithm");
	if (c->train) {
		/* into the gradient buffers, which the first step overwrites or clears */
		DNN(cudnnFindConvolutionBackwardDataAlgorithmEx(
			    c->dnn, L->fd, L->w, y->d, y->y, L->cd, x->d, x->dy,
			    CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &cnt, bp, ws, c->ws_cap),
		    "cudnnFindConvolutionBackwardDataAlgorithmEx");
		PICK(bp, cnt, L->ba, "no backward-data algorithm");
		DNN(cudnnFindConvolutionBackwardFilterAlgorithmEx(
			    c->dnn, x->d, x->y, y->d, y->y, L->cd, L->fd, L->dw,
			    CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &cnt, fpf, ws, c->ws_cap),
		    "cudnnFindConvolutionBackwardFilterAlgorithmEx");
		PICK(fpf, cnt, L->bfa, "no backward-filter algorithm");
	}
	if (nmemo < (int)TS_ARRAY_SIZE(memo))
		memo[nmemo++] = (struct algo_memo){ k, L->fa, L->ba, L->bfa, c->ws_size };
	c->ws_size = TS_MAX(c->ws_size, before);
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
							  c->bn_mode),
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
	if (c->add)
		cudnnDestroyOpTensorDescriptor(c->add);
	if (c->pev) {
		if (c->psteps) {
			double tot = 0;
			fprintf(stderr, "cuda profile, %s batch %d, ms per step over %d steps:",
				c->net->name, c->batch, c->psteps);
			for (int k = 0; k < P_N; k++) {
				fprintf(stderr, "%s %s %.2f", k ? "," : "", p_names[k],
					c->psum[k] / c->psteps);
				tot += c->psum[k];
			}
			fprintf(stderr, "; total %.2f, host enqueue %.2f\n", tot / c->psteps,
				c->phost / c->psteps);
		}
		for (int k = 0; k < c->maxev; k++)
			cudaEventDestroy(c->pev[k]);
		free(c->pev);
		free(c->pcat);
	}
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

/*
 * grad=overwrite: in backward, the first gradient written into a tensor
 * (from its last reader in the forward order) overwrites it; later ones
 * add. An output that no layer reads and that is not a loss (softmax) gets
 * its gradient cleared each step.
 */
static int grad_plan(struct cuda *c)
{
	const struct ts_net *n = c->net;
	bool *seen = calloc((size_t)n->ntensors, sizeof(*seen));
	if (!seen)
		return -ENOMEM;
	for (int k = n->nlayers - 1; k >= 0; k--) {
		struct cl *L = &c->L[k];
		L->clear_dy = !seen[L->l->out] && L->l->op != TS_L_SOFTMAX;
		for (int j = 0; j < L->l->nin; j++) {
			L->gfirst[j] = !seen[L->l->in[j]];
			seen[L->l->in[j]] = true;
		}
	}
	free(seen);
	return 0;
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
	if ((rc = parse_opts(&c->o, err, errlen)) < 0)
		return rc;
	c->ws_cap = c->o.ws_limit;
	c->bn_mode = train && c->o.bn_persistent ? CUDNN_BATCHNORM_SPATIAL_PERSISTENT
						 : CUDNN_BATCHNORM_SPATIAL;
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
	DNN(cudnnCreateOpTensorDescriptor(&c->add), "add descriptor");
	DNN(cudnnSetOpTensorDescriptor(c->add, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT,
				       CUDNN_NOT_PROPAGATE_NAN),
	    "add descriptor");

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
	if ((rc = grad_plan(c)) < 0)
		return rc;
	if (c->o.find) {
		void *ws = NULL;
		size_t free_b = 0, total_b = 0;
		CU(cudaStreamSynchronize(c->st), "setup");
		/* the search's workspace: the limit, or half the memory left */
		CU(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
		c->ws_cap = TS_MIN(c->o.ws_limit, free_b / 2);
		CU(cudaMalloc(&ws, c->ws_cap), "cuDNN workspace for the algorithm search");
		for (int k = 0; k < n->nlayers && rc == 0; k++)
			if (c->L[k].l->op == TS_L_CONV && runs(c, c->L[k].l))
				rc = find_algos(c, &c->L[k], ws, err, errlen);
		cudaFree(ws);
		if (rc < 0)
			return rc;
	}
	if (c->ws_size)
		CU(cudaMalloc(&c->ws, c->ws_size), "cuDNN workspace");
	return cuda_fail(cudaStreamSynchronize(c->st), "setup", err, errlen);
}

/* beta for the gradient of input j of layer L */
static const float *gbeta(const struct cuda *c, const struct cl *L, int j)
{
	return c->o.grad_overwrite && L->gfirst[j] ? &zero : &one;
}

/* profile=1: an event now, closing an interval of kind @cat. */
static void mark(struct cuda *c, int cat)
{
	if (!c->pev || c->npev >= c->maxev)
		return;
	c->pcat[c->npev] = cat;
	cudaEventRecord(c->pev[c->npev++], c->st);
}

static int kind_f(int op)
{
	switch (op) {
	case TS_L_CONV:
		return P_CONV_F;
	case TS_L_BN:
		return P_BN_F;
	case TS_L_RELU:
		return P_RELU_F;
	case TS_L_ADD:
		return P_ADD_F;
	default:
		return P_OTHER_F;
	}
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
					    c->dnn, c->bn_mode, &one, &zero, x->d, x->y,
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
			if (c->o.add_op) {
				DNN(cudnnOpTensor(c->dnn, c->add, &one, x->d, x->y, &one,
						  c->t[l->in[1]].d, c->t[l->in[1]].y, &zero, y->d,
						  y->y),
				    "residual add");
				break;
			}
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
		mark(c, kind_f(l->op));
	}
	return 0;
}

static int backward(struct cuda *c, char *err, size_t errlen)
{
	const struct ts_net *n = c->net;
	int rc, N = c->batch;
	if (!c->o.grad_overwrite)
		CU(cudaMemsetAsync(c->arena_dy, 0, c->n_y * sizeof(float), c->st),
		   "clear gradients");
	mark(c, P_CLEAR);
	for (int k = n->nlayers - 1; k >= 0; k--) {
		struct cl *L = &c->L[k];
		const struct ts_layer *l = L->l;
		struct ct *x = &c->t[l->in[0]], *y = &c->t[l->out];
		bool need_dx = l->in[0] != 0; /* no gradient for the input images */
		struct ts_shape is = n->tensors[l->in[0]], os = n->tensors[l->out];
		const float *b0 = gbeta(c, L, 0);
		int kind = P_OTHER_B;
		if (c->o.grad_overwrite && L->clear_dy) {
			CU(cudaMemsetAsync(y->dy, 0, y->elems * sizeof(float), c->st),
			   "clear a gradient");
			mark(c, P_CLEAR);
		}
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
			mark(c, P_CONV_BF);
			if (need_dx)
				DNN(cudnnConvolutionBackwardData(c->dnn, &one, L->fd, L->w, y->d, y->dy,
								 L->cd, L->ba, c->ws, c->ws_size, b0,
								 x->d, x->dy),
				    "convolution backward data");
			kind = P_CONV_BD;
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
						 L->w, in, y->dy, out, b0, x->dy, in),
				     "fully connected input gradient");
			break;
		}
		case TS_L_BN:
			DNN(cudnnBatchNormalizationBackward(c->dnn, c->bn_mode, &one, b0,
							    &one, &zero, x->d, x->y, y->d, y->dy,
							    x->d, x->dy, L->pd_desc, L->w, L->dw,
							    L->db, 1e-5, L->smean, L->sinv),
			    "batch norm backward");
			kind = P_BN_B;
			break;
		case TS_L_RELU:
			DNN(cudnnActivationBackward(c->dnn, c->relu, &one, y->d, y->y, y->d, y->dy,
						    x->d, x->y, b0, x->d, x->dy),
			    "ReLU backward");
			kind = P_RELU_B;
			break;
		case TS_L_MAXPOOL:
		case TS_L_AVGPOOL:
			DNN(cudnnPoolingBackward(c->dnn, L->pool, &one, y->d, y->y, y->d, y->dy, x->d,
						 x->y, b0, x->d, x->dy),
			    "pooling backward");
			break;
		case TS_L_LRN:
			DNN(cudnnLRNCrossChannelBackward(c->dnn, c->lrn, CUDNN_LRN_CROSS_CHANNEL_DIM1,
							 &one, y->d, y->y, y->d, y->dy, x->d, x->y,
							 b0, x->d, x->dy),
			    "LRN backward");
			break;
		case TS_L_CONCAT:
			for (int j = 0; j < l->nin; j++) {
				struct ct *s = &c->t[l->in[j]];
				DNN(cudnnTransformTensor(c->dnn, &one, L->slice[j],
							 y->dy + L->slice_off[j], gbeta(c, L, j), s->d,
							 s->dy),
				    "concat backward");
			}
			break;
		case TS_L_ADD:
			for (int j = 0; j < 2; j++) {
				struct ct *s = &c->t[l->in[j]];
				DNN(cudnnAddTensor(c->dnn, &one, y->d, y->dy, gbeta(c, L, j), s->d,
						   s->dy),
				    "residual backward");
			}
			kind = P_ADD_B;
			break;
		case TS_L_SOFTMAX:
			/* the loss gradient stands in as the output itself (y - 0) */
			CU(cudaMemcpyAsync(y->dy, y->y, y->elems * sizeof(float),
					   cudaMemcpyDeviceToDevice, c->st),
			   "loss gradient");
			DNN(cudnnSoftmaxBackward(c->dnn, CUDNN_SOFTMAX_ACCURATE,
						 CUDNN_SOFTMAX_MODE_INSTANCE, &one, y->d, y->y, y->d,
						 y->dy, b0, x->d, x->dy),
			    "softmax backward");
			break;
		case TS_L_DROPOUT:
			DNN(cudnnAddTensor(c->dnn, &one, y->d, y->dy, b0, x->d, x->dy),
			    "dropout backward");
			break;
		}
		mark(c, kind);
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
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	c->npev = 0;
	CU(cudaEventRecord(c->ev0, c->st), "cudaEventRecord");
	mark(c, P_OTHER_F);
	if (data && (rc = preprocess(c, err, errlen)) < 0)
		return rc;
	if ((rc = forward(c, err, errlen)) < 0)
		return rc;
	if (c->train) {
		if ((rc = backward(c, err, errlen)) < 0)
			return rc;
		if ((rc = update(c, err, errlen)) < 0)
			return rc;
		mark(c, P_UPDATE);
	}
	CU(cudaEventRecord(c->ev1, c->st), "cudaEventRecord");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CU(cudaEventSynchronize(c->ev1), "step");
	float ms = 0;
	CU(cudaEventElapsedTime(&ms, c->ev0, c->ev1), "cudaEventElapsedTime");
	if (c->pev && c->npev > 1) {
		for (int k = 1; k < c->npev; k++) {
			float d = 0;
			cudaEventElapsedTime(&d, c->pev[k - 1], c->pev[k]);
			c->psum[c->pcat[k]] += d;
		}
		c->phost += (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
		c->psteps++;
	}
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
	if (c->o.profile) {
		/* at most two events per layer a pass, and a few more */
		c->maxev = 4 * c->net->nlayers + 8;
		c->pev = calloc((size_t)c->maxev, sizeof(*c->pev));
		c->pcat = calloc((size_t)c->maxev, sizeof(*c->pcat));
		if (!c->pev || !c->pcat)
			return -ENOMEM;
		for (int k = 0; k < c->maxev; k++)
			if (cudaEventCreate(&c->pev[k]) != cudaSuccess)
				return cuda_fail(cudaErrorMemoryAllocation, "profile events", err,
						 errlen);
	}

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
