/*
 * netdef.h — the layer graphs of the networks the engine knows, as data
 * both backends share: the sim backend takes parameter counts, FLOPs and
 * activation sizes from them (its memory and compute models), the cuda
 * backend executes them layer by layer with cuDNN and cuBLAS.
 *
 * Shapes are per sample (C, H, W); the batch is the backend's business.
 * Layers are in topological order; tensor 0 is the input. Layers marked
 * train_only (the auxiliary classifiers of GoogLeNet and Inception-v3) run
 * only in training, as in the frameworks.
 */
#ifndef TS_NETDEF_H
#define TS_NETDEF_H

#include <stdbool.h>
#include <stdint.h>

#include "core/ts.h"

enum ts_layer_op {
	TS_L_CONV,
	TS_L_FC,
	TS_L_BN,
	TS_L_RELU,
	TS_L_MAXPOOL,
	TS_L_AVGPOOL,
	TS_L_LRN,
	TS_L_CONCAT,
	TS_L_ADD,
	TS_L_SOFTMAX,
	TS_L_DROPOUT,
};

#define TS_LAYER_MAX_IN 4

struct ts_shape {
	int c, h, w;
};

struct ts_layer {
	enum ts_layer_op op;
	int in[TS_LAYER_MAX_IN], nin;
	int out;
	int kh, kw, sh, sw, ph, pw; /* conv and pooling window */
	bool bias;		    /* conv / fc */
	bool train_only;
};

enum ts_net_kind {
	TS_NET_CNN, /* a layer graph */
	TS_NET_RNN, /* an LSTM language model: counts only, no layer graph */
};

struct ts_net {
	char name[32];
	enum ts_net_kind kind;
	struct ts_layer *layers;
	int nlayers, lcap;
	struct ts_shape *tensors;
	int ntensors, tcap;
	/* Totals per sample. "train" includes the train_only layers. */
	uint64_t params, params_infer;
	uint64_t macs_infer, macs_train;   /* forward multiply-adds */
	uint64_t act_infer, act_train;	   /* elements of layer outputs kept (ReLU and
					      dropout in place, as the frameworks do) */
	uint64_t act_max_pair;		   /* largest input + output of one layer */
	int rnn_hidden, rnn_layers, rnn_steps, rnn_vocab;
};

/* Build a network by netdef name ("alexnet", "googlenet", "resnet50",
 * "vgg16", "inception3", "cifar10", "lstm-ptb-medium", "lstm-ptb-large").
 * TS_E_UNKNOWN for another name, -ENOMEM. */
TS_WUR int ts_net_build(const char *name, struct ts_net **out);
void ts_net_free(struct ts_net *n);
/* FLOPs per sample of layer graph @name: 2 x multiply-adds forward, x 3
 * in training (backward costs about twice the forward: gradients with
 * respect to inputs and to weights). The sim backend's compute model and
 * the profiles' efficiency fit both take it. */
TS_WUR int ts_net_flops(const char *name, bool train, double *flops);
/* Parameter count of one layer. */
uint64_t ts_layer_params(const struct ts_net *n, const struct ts_layer *l);
/* Forward multiply-adds of one layer per sample. */
uint64_t ts_layer_macs(const struct ts_net *n, const struct ts_layer *l);
/* CPU reference of a convolution or fully connected layer over @batch
 * samples: @x input (NCHW), @w weights (conv: out, in, kh, kw; fc: out, in),
 * @b bias (NULL without), @y output in double. The GPU checks compare
 * cuDNN's and cuBLAS's results with it. */
void ts_layer_forward_ref(const struct ts_net *n, const struct ts_layer *l, int batch,
			  const float *x, const float *w, const float *b, double *y);
/* NULL-terminated list of the names ts_net_build() knows. */
const char *const *ts_net_names(void);

#endif
