/*
 * netdef.c — layer graphs of the engine's networks (see netdef.h).
 *
 * Architectures as published; where two variants exist, the one the
 * cited parameter counts describe:
 *  alexnet     torchvision alexnet.py (the one-tower AlexNet of "One weird
 *              trick", Krizhevsky 2014): 61,100,840 parameters.
 *  vgg16       Simonyan & Zisserman 2014, configuration D (torchvision vgg.py).
 *  resnet50    He et al. 2015, bottleneck v1.5 (stride in the 3x3 conv, as
 *              torchvision resnet.py and NVIDIA's DeepLearningExamples).
 *  googlenet   Szegedy et al. 2014 as BVLC Caffe's bvlc_googlenet train_val:
 *              5x5 branches, LRN, biases, two auxiliary heads in training.
 *              Caffe pools round up; a pad of 1 gives the same sizes here.
 *  inception3  Szegedy et al. 2015 as torchvision inception.py, with the
 *              auxiliary head in training (27,161,264 parameters with it).
 *  cifar10     TensorFlow's CIFAR-10 tutorial model (tensorflow/models
 *              tutorials/image/cifar10/cifar10.py): 24x24 crops, two 5x5
 *              convs with LRN, fully connected 384 and 192.
 *  lstm-ptb-*  tensorflow/models tutorials/rnn/ptb/ptb_word_lm.py: 2 layers,
 *              35 steps, vocabulary 10,000; medium 650, large 1500 units.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/netdef.h"

struct builder {
	struct ts_net *n;
	bool train_only;
	int err;
	struct ts_layer sink; /* what add_layer hands out after an error */
};

static int add_tensor(struct builder *b, int c, int h, int w)
{
	struct ts_net *n = b->n;
	if (b->err)
		return 0;
	if (n->ntensors == n->tcap) {
		int cap = n->tcap ? 2 * n->tcap : 64;
		struct ts_shape *t = realloc(n->tensors, (size_t)cap * sizeof(*t));
		if (!t) {
			b->err = -ENOMEM;
			return 0;
		}
		n->tensors = t;
		n->tcap = cap;
	}
	n->tensors[n->ntensors] = (struct ts_shape){ c, h, w };
	return n->ntensors++;
}

static struct ts_layer *add_layer(struct builder *b, enum ts_layer_op op, int in)
{
	struct ts_net *n = b->n;
	if (b->err)
		return memset(&b->sink, 0, sizeof(b->sink));
	if (n->nlayers == n->lcap) {
		int cap = n->lcap ? 2 * n->lcap : 64;
		struct ts_layer *l = realloc(n->layers, (size_t)cap * sizeof(*l));
		if (!l) {
			b->err = -ENOMEM;
			return memset(&b->sink, 0, sizeof(b->sink));
		}
		n->layers = l;
		n->lcap = cap;
	}
	struct ts_layer *l = &n->layers[n->nlayers++];
	memset(l, 0, sizeof(*l));
	l->op = op;
	l->in[0] = in;
	l->nin = 1;
	l->train_only = b->train_only;
	return l;
}

static struct ts_shape shape(struct builder *b, int t)
{
	return b->err ? (struct ts_shape){ 1, 1, 1 } : b->n->tensors[t];
}

static int window(struct builder *b, enum ts_layer_op op, int in, int c, int kh, int kw,
		  int sh, int sw, int ph, int pw, bool bias)
{
	struct ts_shape s = shape(b, in);
	int ho = (s.h + 2 * ph - kh) / sh + 1, wo = (s.w + 2 * pw - kw) / sw + 1;
	struct ts_layer *l = add_layer(b, op, in);
	l->kh = kh, l->kw = kw, l->sh = sh, l->sw = sw, l->ph = ph, l->pw = pw;
	l->bias = bias;
	l->out = add_tensor(b, c, ho, wo);
	return l->out;
}

/* Convolution, cout filters of kh x kw, stride s, padding ph/pw. */
static int conv(struct builder *b, int in, int cout, int kh, int kw, int s, int ph, int pw,
		bool bias)
{
	return window(b, TS_L_CONV, in, cout, kh, kw, s, s, ph, pw, bias);
}

static int pool(struct builder *b, enum ts_layer_op op, int in, int k, int s, int p)
{
	return window(b, op, in, shape(b, in).c, k, k, s, s, p, p, false);
}

static int same(struct builder *b, enum ts_layer_op op, int in)
{
	struct ts_shape s = shape(b, in);
	struct ts_layer *l = add_layer(b, op, in);
	l->out = add_tensor(b, s.c, s.h, s.w);
	return l->out;
}

static int relu(struct builder *b, int in)
{
	return same(b, TS_L_RELU, in);
}

static int fc(struct builder *b, int in, int out)
{
	struct ts_layer *l = add_layer(b, TS_L_FC, in);
	l->bias = true;
	l->out = add_tensor(b, out, 1, 1);
	return l->out;
}

static int concat(struct builder *b, const int *in, int k)
{
	int c = 0;
	for (int i = 0; i < k; i++)
		c += shape(b, in[i]).c;
	struct ts_shape s = shape(b, in[0]);
	struct ts_layer *l = add_layer(b, TS_L_CONCAT, in[0]);
	for (int i = 0; i < k; i++)
		l->in[i] = in[i];
	l->nin = k;
	l->out = add_tensor(b, c, s.h, s.w);
	return l->out;
}

static int add2(struct builder *b, int x, int y)
{
	struct ts_shape s = shape(b, x);
	struct ts_layer *l = add_layer(b, TS_L_ADD, x);
	l->in[1] = y;
	l->nin = 2;
	l->out = add_tensor(b, s.c, s.h, s.w);
	return l->out;
}

/* conv + bias + ReLU (the 2012–2014 networks). */
static int cr(struct builder *b, int in, int cout, int k, int s, int p)
{
	return relu(b, conv(b, in, cout, k, k, s, p, p, true));
}

/* conv (no bias) + batch norm + ReLU; @relu_too false for a residual tail. */
static int cbn(struct builder *b, int in, int cout, int kh, int kw, int s, int ph, int pw,
	       bool act)
{
	int t = same(b, TS_L_BN, conv(b, in, cout, kh, kw, s, ph, pw, false));
	return act ? relu(b, t) : t;
}

static int cbr(struct builder *b, int in, int cout, int k, int s, int p)
{
	return cbn(b, in, cout, k, k, s, p, p, true);
}

static int classifier(struct builder *b, int in, int classes)
{
	return same(b, TS_L_SOFTMAX, fc(b, in, classes));
}

static void build_alexnet(struct builder *b)
{
	int t = add_tensor(b, 3, 224, 224);
	t = cr(b, t, 64, 11, 4, 2);
	t = pool(b, TS_L_MAXPOOL, t, 3, 2, 0);
	t = cr(b, t, 192, 5, 1, 2);
	t = pool(b, TS_L_MAXPOOL, t, 3, 2, 0);
	t = cr(b, t, 384, 3, 1, 1);
	t = cr(b, t, 256, 3, 1, 1);
	t = cr(b, t, 256, 3, 1, 1);
	t = pool(b, TS_L_MAXPOOL, t, 3, 2, 0);
	t = same(b, TS_L_DROPOUT, t);
	t = relu(b, fc(b, t, 4096));
	t = same(b, TS_L_DROPOUT, t);
	t = relu(b, fc(b, t, 4096));
	classifier(b, t, 1000);
}

static void build_vgg16(struct builder *b)
{
	static const int cfg[] = { 64, 64, 0, 128, 128, 0, 256, 256, 256, 0,
				   512, 512, 512, 0, 512, 512, 512, 0 };
	int t = add_tensor(b, 3, 224, 224);
	for (size_t i = 0; i < TS_ARRAY_SIZE(cfg); i++)
		t = cfg[i] ? cr(b, t, cfg[i], 3, 1, 1) : pool(b, TS_L_MAXPOOL, t, 2, 2, 0);
	t = relu(b, fc(b, t, 4096));
	t = same(b, TS_L_DROPOUT, t);
	t = relu(b, fc(b, t, 4096));
	t = same(b, TS_L_DROPOUT, t);
	classifier(b, t, 1000);
}

static int bottleneck(struct builder *b, int in, int width, int stride, bool down)
{
	int t = cbr(b, in, width, 1, 1, 0);
	t = cbr(b, t, width, 3, stride, 1);
	t = cbn(b, t, width * 4, 1, 1, 1, 0, 0, false);
	int id = down ? cbn(b, in, width * 4, 1, 1, stride, 0, 0, false) : in;
	return relu(b, add2(b, t, id));
}

static void build_resnet50(struct builder *b)
{
	static const int blocks[] = { 3, 4, 6, 3 };
	int t = add_tensor(b, 3, 224, 224);
	t = cbr(b, t, 64, 7, 2, 3);
	t = pool(b, TS_L_MAXPOOL, t, 3, 2, 1);
	for (int s = 0; s < 4; s++)
		for (int i = 0; i < blocks[s]; i++)
			t = bottleneck(b, t, 64 << s, i == 0 && s > 0 ? 2 : 1, i == 0);
	t = pool(b, TS_L_AVGPOOL, t, 7, 1, 0);
	classifier(b, t, 1000);
}

/* GoogLeNet inception module: 1x1, 3x3 reduce + 3x3, 5x5 reduce + 5x5, pool proj. */
static int inception(struct builder *b, int in, int c1, int r3, int c3, int r5, int c5, int pp)
{
	int br[4];
	br[0] = cr(b, in, c1, 1, 1, 0);
	br[1] = cr(b, cr(b, in, r3, 1, 1, 0), c3, 3, 1, 1);
	br[2] = cr(b, cr(b, in, r5, 1, 1, 0), c5, 5, 1, 2);
	br[3] = cr(b, pool(b, TS_L_MAXPOOL, in, 3, 1, 1), pp, 1, 1, 0);
	return concat(b, br, 4);
}

static void googlenet_aux(struct builder *b, int in)
{
	b->train_only = true;
	int t = pool(b, TS_L_AVGPOOL, in, 5, 3, 0);
	t = cr(b, t, 128, 1, 1, 0);
	t = relu(b, fc(b, t, 1024));
	t = same(b, TS_L_DROPOUT, t);
	classifier(b, t, 1000);
	b->train_only = false;
}

static void build_googlenet(struct builder *b)
{
	int t = add_tensor(b, 3, 224, 224);
	t = cr(b, t, 64, 7, 2, 3);
	t = pool(b, TS_L_MAXPOOL, t, 3, 2, 1);
	t = same(b, TS_L_LRN, t);
	t = cr(b, t, 64, 1, 1, 0);
	t = cr(b, t, 192, 3, 1, 1);
	t = same(b, TS_L_LRN, t);
	t = pool(b, TS_L_MAXPOOL, t, 3, 2, 1);
	t = inception(b, t, 64, 96, 128, 16, 32, 32);
	t = inception(b, t, 128, 128, 192, 32, 96, 64);
	t = pool(b, TS_L_MAXPOOL, t, 3, 2, 1);
	t = inception(b, t, 192, 96, 208, 16, 48, 64);
	googlenet_aux(b, t);
	t = inception(b, t, 160, 112, 224, 24, 64, 64);
	t = inception(b, t, 128, 128, 256, 24, 64, 64);
	t = inception(b, t, 112, 144, 288, 32, 64, 64);
	googlenet_aux(b, t);
	t = inception(b, t, 256, 160, 320, 32, 128, 128);
	t = pool(b, TS_L_MAXPOOL, t, 3, 2, 1);
	t = inception(b, t, 256, 160, 320, 32, 128, 128);
	t = inception(b, t, 384, 192, 384, 48, 128, 128);
	t = pool(b, TS_L_AVGPOOL, t, 7, 1, 0);
	t = same(b, TS_L_DROPOUT, t);
	classifier(b, t, 1000);
}

/* Inception-v3 modules, named as in torchvision (InceptionA..E). */
static int inc_a(struct builder *b, int in, int pf)
{
	int br[4];
	br[0] = cbr(b, in, 64, 1, 1, 0);
	br[1] = cbr(b, cbr(b, in, 48, 1, 1, 0), 64, 5, 1, 2);
	br[2] = cbr(b, cbr(b, cbr(b, in, 64, 1, 1, 0), 96, 3, 1, 1), 96, 3, 1, 1);
	br[3] = cbr(b, pool(b, TS_L_AVGPOOL, in, 3, 1, 1), pf, 1, 1, 0);
	return concat(b, br, 4);
}

static int inc_b(struct builder *b, int in)
{
	int br[3];
	br[0] = cbr(b, in, 384, 3, 2, 0);
	br[1] = cbr(b, cbr(b, cbr(b, in, 64, 1, 1, 0), 96, 3, 1, 1), 96, 3, 2, 0);
	br[2] = pool(b, TS_L_MAXPOOL, in, 3, 2, 0);
	return concat(b, br, 3);
}

/* 1x7 then 7x1 (or the reverse). */
static int c17(struct builder *b, int in, int c) { return cbn(b, in, c, 1, 7, 1, 0, 3, true); }
static int c71(struct builder *b, int in, int c) { return cbn(b, in, c, 7, 1, 1, 3, 0, true); }

static int inc_c(struct builder *b, int in, int c7)
{
	int br[4];
	br[0] = cbr(b, in, 192, 1, 1, 0);
	br[1] = c71(b, c17(b, cbr(b, in, c7, 1, 1, 0), c7), 192);
	br[2] = c17(b, c71(b, c17(b, c71(b, cbr(b, in, c7, 1, 1, 0), c7), c7), c7), 192);
	br[3] = cbr(b, pool(b, TS_L_AVGPOOL, in, 3, 1, 1), 192, 1, 1, 0);
	return concat(b, br, 4);
}

static int inc_d(struct builder *b, int in)
{
	int br[3];
	br[0] = cbr(b, cbr(b, in, 192, 1, 1, 0), 320, 3, 2, 0);
	br[1] = cbr(b, c71(b, c17(b, cbr(b, in, 192, 1, 1, 0), 192), 192), 192, 3, 2, 0);
	br[2] = pool(b, TS_L_MAXPOOL, in, 3, 2, 0);
	return concat(b, br, 3);
}

static int split13(struct builder *b, int in)
{
	int two[2] = { cbn(b, in, 384, 1, 3, 1, 0, 1, true), cbn(b, in, 384, 3, 1, 1, 1, 0, true) };
	return concat(b, two, 2);
}

static int inc_e(struct builder *b, int in)
{
	int br[4];
	br[0] = cbr(b, in, 320, 1, 1, 0);
	br[1] = split13(b, cbr(b, in, 384, 1, 1, 0));
	br[2] = split13(b, cbr(b, cbr(b, in, 448, 1, 1, 0), 384, 3, 1, 1));
	br[3] = cbr(b, pool(b, TS_L_AVGPOOL, in, 3, 1, 1), 192, 1, 1, 0);
	return concat(b, br, 4);
}

static void build_inception3(struct builder *b)
{
	int t = add_tensor(b, 3, 299, 299);
	t = cbr(b, t, 32, 3, 2, 0);
	t = cbr(b, t, 32, 3, 1, 0);
	t = cbr(b, t, 64, 3, 1, 1);
	t = pool(b, TS_L_MAXPOOL, t, 3, 2, 0);
	t = cbr(b, t, 80, 1, 1, 0);
	t = cbr(b, t, 192, 3, 1, 0);
	t = pool(b, TS_L_MAXPOOL, t, 3, 2, 0);
	t = inc_a(b, t, 32);
	t = inc_a(b, t, 64);
	t = inc_a(b, t, 64);
	t = inc_b(b, t);
	t = inc_c(b, t, 128);
	t = inc_c(b, t, 160);
	t = inc_c(b, t, 160);
	t = inc_c(b, t, 192);
	b->train_only = true;
	int a = pool(b, TS_L_AVGPOOL, t, 5, 3, 0);
	a = cbr(b, a, 128, 1, 1, 0);
	a = cbr(b, a, 768, 5, 1, 0);
	classifier(b, a, 1000);
	b->train_only = false;
	t = inc_d(b, t);
	t = inc_e(b, t);
	t = inc_e(b, t);
	t = pool(b, TS_L_AVGPOOL, t, 8, 1, 0);
	t = same(b, TS_L_DROPOUT, t);
	classifier(b, t, 1000);
}

static void build_cifar10(struct builder *b)
{
	int t = add_tensor(b, 3, 24, 24);
	t = cr(b, t, 64, 5, 1, 2);
	t = pool(b, TS_L_MAXPOOL, t, 3, 2, 1);
	t = same(b, TS_L_LRN, t);
	t = cr(b, t, 64, 5, 1, 2);
	t = same(b, TS_L_LRN, t);
	t = pool(b, TS_L_MAXPOOL, t, 3, 2, 1);
	t = relu(b, fc(b, t, 384));
	t = relu(b, fc(b, t, 192));
	classifier(b, t, 10);
}

uint64_t ts_layer_params(const struct ts_net *n, const struct ts_layer *l)
{
	struct ts_shape i = n->tensors[l->in[0]], o = n->tensors[l->out];
	switch (l->op) {
	case TS_L_CONV:
		return (uint64_t)i.c * o.c * l->kh * l->kw + (l->bias ? o.c : 0);
	case TS_L_FC:
		return (uint64_t)i.c * i.h * i.w * o.c + (l->bias ? o.c : 0);
	case TS_L_BN:
		return 2ULL * o.c; /* scale and shift; running statistics are not trained */
	default:
		return 0;
	}
}

uint64_t ts_layer_macs(const struct ts_net *n, const struct ts_layer *l)
{
	struct ts_shape i = n->tensors[l->in[0]], o = n->tensors[l->out];
	switch (l->op) {
	case TS_L_CONV:
		return (uint64_t)o.c * o.h * o.w * i.c * l->kh * l->kw;
	case TS_L_FC:
		return (uint64_t)i.c * i.h * i.w * o.c;
	default:
		return 0;
	}
}

void ts_layer_forward_ref(const struct ts_net *n, const struct ts_layer *l, int batch,
			  const float *x, const float *w, const float *b, double *y)
{
	struct ts_shape is = n->tensors[l->in[0]], os = n->tensors[l->out];
	size_t in = (size_t)is.c * is.h * is.w;
	for (int s = 0; s < batch; s++)
		for (int o = 0; o < os.c; o++)
			for (int oy = 0; oy < os.h; oy++)
				for (int ox = 0; ox < os.w; ox++) {
					double acc = b ? b[o] : 0;
					if (l->op == TS_L_FC) {
						for (size_t k = 0; k < in; k++)
							acc += (double)w[(size_t)o * in + k] * x[s * in + k];
					} else {
						for (int ci = 0; ci < is.c; ci++)
							for (int ky = 0; ky < l->kh; ky++) {
								int iy = oy * l->sh - l->ph + ky;
								if (iy < 0 || iy >= is.h)
									continue;
								for (int kx = 0; kx < l->kw; kx++) {
									int ix = ox * l->sw - l->pw + kx;
									if (ix < 0 || ix >= is.w)
										continue;
									size_t wi = (((size_t)o * is.c + ci) * l->kh + ky) * l->kw + kx;
									size_t xi = (((size_t)s * is.c + ci) * is.h + iy) * is.w + ix;
									acc += (double)w[wi] * x[xi];
								}
							}
					}
					y[(((size_t)s * os.c + o) * os.h + oy) * os.w + ox] = acc;
				}
}

static uint64_t elems(struct ts_shape s)
{
	return (uint64_t)s.c * s.h * s.w;
}

static void totals(struct ts_net *n)
{
	for (int k = 0; k < n->nlayers; k++) {
		const struct ts_layer *l = &n->layers[k];
		uint64_t p = ts_layer_params(n, l), m = ts_layer_macs(n, l);
		bool inplace = l->op == TS_L_RELU || l->op == TS_L_DROPOUT;
		uint64_t a = inplace ? 0 : elems(n->tensors[l->out]);
		n->params += p;
		n->macs_train += m;
		n->act_train += a;
		if (!l->train_only) {
			n->params_infer += p;
			n->macs_infer += m;
			n->act_infer += a;
		}
		uint64_t pair = elems(n->tensors[l->in[0]]) + elems(n->tensors[l->out]);
		n->act_max_pair = TS_MAX(n->act_max_pair, pair);
	}
	n->act_train += elems(n->tensors[0]);
	n->act_infer += elems(n->tensors[0]);
}

/*
 * The LSTM language model has no layer graph here (the cuda backend does
 * not run it); its counts follow TensorFlow's BasicLSTMCell: a kernel of
 * (input + hidden) x 4 hidden and a bias of 4 hidden per layer, embedding
 * and softmax of vocabulary x hidden. Per sample = one sequence of
 * rnn_steps words.
 */
static void build_lstm(struct ts_net *n, int hidden)
{
	uint64_t h = (uint64_t)hidden, v = 10000, layers = 2, steps = 35;
	n->kind = TS_NET_RNN;
	n->rnn_hidden = hidden, n->rnn_layers = (int)layers, n->rnn_steps = (int)steps;
	n->rnn_vocab = (int)v;
	n->params = v * h + layers * (2 * h * 4 * h + 4 * h) + h * v + v;
	n->params_infer = n->params;
	n->macs_infer = steps * (layers * 2 * h * 4 * h + h * v);
	n->macs_train = n->macs_infer;
	/* gates (4h) + cell and hidden state (2h) per layer and step, logits per step */
	n->act_infer = steps * (layers * 6 * h + v);
	n->act_train = n->act_infer;
	n->act_max_pair = steps * (h + v);
}

static const char *const names[] = {
	"alexnet", "googlenet", "resnet50", "vgg16", "inception3",
	"cifar10", "lstm-ptb-medium", "lstm-ptb-large", NULL,
};

const char *const *ts_net_names(void)
{
	return names;
}

int ts_net_build(const char *name, struct ts_net **out)
{
	static const struct {
		const char *name;
		void (*build)(struct builder *b);
	} cnn[] = {
		{ "alexnet", build_alexnet },	  { "googlenet", build_googlenet },
		{ "resnet50", build_resnet50 },	  { "vgg16", build_vgg16 },
		{ "inception3", build_inception3 }, { "cifar10", build_cifar10 },
	};
	*out = NULL;
	struct ts_net *n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	snprintf(n->name, sizeof(n->name), "%s", name);
	struct builder b = { .n = n };
	bool found = false;
	for (size_t i = 0; i < TS_ARRAY_SIZE(cnn); i++) {
		if (strcmp(cnn[i].name, name) == 0) {
			cnn[i].build(&b);
			found = true;
		}
	}
	if (strcmp(name, "lstm-ptb-medium") == 0 || strcmp(name, "lstm-ptb-large") == 0) {
		build_lstm(n, name[9] == 'm' ? 650 : 1500);
		found = true;
	}
	if (!found || b.err) {
		ts_net_free(n);
		return found ? b.err : TS_E_UNKNOWN;
	}
	if (n->kind == TS_NET_CNN)
		totals(n);
	*out = n;
	return 0;
}

int ts_net_flops(const char *name, bool train, double *flops)
{
	struct ts_net *n;
	int rc = ts_net_build(name, &n);
	if (rc < 0)
		return rc;
	*flops = 2.0 * (double)(train ? n->macs_train : n->macs_infer) * (train ? 3.0 : 1.0);
	ts_net_free(n);
	return 0;
}

void ts_net_free(struct ts_net *n)
{
	if (!n)
		return;
	free(n->layers);
	free(n->tensors);
	free(n);
}
