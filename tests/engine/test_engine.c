/*
 * test_engine.c — the engine core, the null backend contract and the sim
 * backend's models, all in virtual time (exact, no wall clock).
 *
 * The anchor test takes every published figure of engine/profiles as the
 * engine loads it, with its evidence, and checks that the sim reproduces it
 * within 2%, measured from a jittered run, not only the nominal.
 */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/paths.h"
#include "engine/calibrate.h"
#include "engine/engine.h"
#include "luadata/luadata.h"
#include "engine/profile.h"
#include "kernels/kernels.h"
#include "engine/netdef.h"
#include "tests/tcheck.h"
#include "ts_config.h"

static char err[1024];

static void set(char **field, const char *v)
{
	free(*field);
	*field = strdup(v);
}

static struct ts_engine_cfg cfg_of(const char *backend, const char *fw, const char *model,
				   const char *gpu, const char *mode, const char *prec,
				   uint64_t batch, uint64_t gpus)
{
	struct ts_engine_cfg c;
	if (ts_engine_cfg_defaults(&c, err, sizeof(err)) < 0) {
		fprintf(stderr, "defaults: %s\n", err);
		exit(1);
	}
	set(&c.backend, backend);
	set(&c.framework, fw);
	set(&c.model, model);
	set(&c.gpu, gpu);
	set(&c.mode, mode);
	set(&c.precision, prec);
	c.batch = batch;
	c.gpus = gpus;
	return c;
}

/* Run @steps steps with batches always ready (no stall); return samples/s. */
static double run_unstalled(struct ts_engine *e, int steps)
{
	struct ts_engine_step st;
	for (int i = 0; i < steps; i++)
		CHECK(ts_engine_step(e, 0, 0, &st) == 0);
	struct ts_engine_report r;
	ts_engine_report(e, &r);
	CHECK_NEAR(r.au, 1.0, 1e-12);
	return r.samples_per_s;
}

static void test_null_and_au(void)
{
	struct ts_engine_cfg c = cfg_of("null", "", "any", "", "train", "", 32, 1);
	c.step_ns = 100 * TS_NS_PER_MS;
	struct ts_engine *e;
	CHECK(ts_engine_new(&c, &e, err, sizeof(err)) == 0);
	CHECK(strcmp(e->ops->name, "null") == 0);
	/*
	 * A scripted pipeline with known stalls. Step i's batch is ready at
	 * ready[i]; the GPU computes 100 ms per step.
	 *   step 0: ready 0,    runs 0..100       (excluded from AU)
	 *   step 1: ready 50,   runs 100..200     wait 0
	 *   step 2: ready 350,  runs 350..450     wait 150
	 *   step 3: ready 360,  runs 450..550     wait 0
	 *   step 4: ready 900,  runs 900..1000    wait 350
	 * AU = 4 x 100 / (1000 - 100) = 4/9, samples/s = 4 x 32 / 0.9 s.
	 */
	static const uint64_t ready_ms[] = { 0, 50, 350, 360, 900 };
	static const uint64_t wait_ms[] = { 0, 0, 150, 0, 350 };
	struct ts_engine_step st;
	for (size_t i = 0; i < TS_ARRAY_SIZE(ready_ms); i++) {
		CHECK(ts_engine_step(e, ready_ms[i] * TS_NS_PER_MS, 0, &st) == 0);
		CHECK_EQ_U64(st.wait_ns, wait_ms[i] * TS_NS_PER_MS);
		CHECK_EQ_U64(st.compute_ns, 100 * TS_NS_PER_MS);
		CHECK_EQ_U64(st.comm_ns, 0);
		CHECK_EQ_U64(st.end_ns, st.start_ns + 100 * TS_NS_PER_MS);
		CHECK_EQ_U64(st.samples, 32);
	}
	struct ts_engine_report r;
	ts_engine_report(e, &r);
	CHECK_EQ_U64(r.steps, 5);
	CHECK_EQ_U64(r.samples, 4 * 32);
	CHECK_EQ_U64(r.wall_ns, 900 * TS_NS_PER_MS);
	CHECK_EQ_U64(r.wait_ns, 500 * TS_NS_PER_MS);
	CHECK_EQ_U64(r.first_step_ns, 100 * TS_NS_PER_MS);
	CHECK(fabs(r.au - 4.0 / 9.0) < 1e-15);
	CHECK(r.au_compute == r.au); /* no communication */
	CHECK(fabs(r.samples_per_s - 128.0 / 0.9) < 1e-9);
	CHECK_EQ_U64(r.info.mem_bytes, 0);
	json_t *j = ts_engine_report_json(&r);
	CHECK(j && json_real_value(json_object_get(j, "au")) == r.au);
	CHECK(j && json_real_value(json_object_get(j, "au_compute")) == r.au_compute);
	CHECK(j && json_object_get(json_object_get(j, "engine"), "basis"));
	json_decref(j);
	ts_engine_free(e);

	/* begin() sets where the first wait counts from; a short batch */
	CHECK(ts_engine_new(&c, &e, err, sizeof(err)) == 0);
	ts_engine_begin(e, 0);
	CHECK(ts_engine_step(e, 40 * TS_NS_PER_MS, 7, &st) == 0);
	CHECK_EQ_U64(st.wait_ns, 40 * TS_NS_PER_MS);
	CHECK_EQ_U64(st.samples, 7);
	ts_engine_report(e, &r);
	CHECK_EQ_U64(r.first_step_ns, 140 * TS_NS_PER_MS);
	CHECK(r.au == 0); /* fewer than two steps */
	ts_engine_free(e);
	ts_engine_cfg_free(&c);
}

static int bad_init(struct ts_engine *e, char *e2, size_t n) { return 0; }
static int bad_step(struct ts_engine *e, uint64_t s, uint64_t *c, uint64_t *m) { return 0; }

static void test_registry(void)
{
	CHECK(ts_engine_backend_find("sim") != NULL);
	CHECK(ts_engine_backend_find("null") != NULL);
	CHECK(ts_engine_backend_find("nope") == NULL);
	for (const struct ts_engine_ops *const *o = ts_engine_backends(); *o; o++)
		CHECK(ts_engine_ops_check(*o, err, sizeof(err)) == 0);
	struct ts_engine_ops bad = { .name = "bad", .version = TS_ENGINE_OPS_VERSION + 1,
				     .init = bad_init, .step = bad_step };
	CHECK(ts_engine_ops_check(&bad, err, sizeof(err)) == TS_E_VERSION);
	CHECK(strstr(err, "bad") != NULL);
	bad.version = TS_ENGINE_OPS_VERSION;
	CHECK(ts_engine_ops_check(&bad, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "cleanup") != NULL);

	struct ts_engine_cfg c = cfg_of("warp", "nvcaffe", "alexnet", "K80", "train", "", 8, 1);
	struct ts_engine *e;
	CHECK(ts_engine_new(&c, &e, err, sizeof(err)) == TS_E_UNKNOWN && !e);
	set(&c.backend, "sim");
	set(&c.gpu, "Z9000");
	CHECK(ts_engine_new(&c, &e, err, sizeof(err)) == TS_E_UNKNOWN);
	CHECK(strstr(err, "Z9000") && strstr(err, "P100-PCIe"));
	set(&c.gpu, "K80");
	set(&c.mode, "fly");
	CHECK(ts_engine_new(&c, &e, err, sizeof(err)) == TS_E_PARSE);
	ts_engine_cfg_free(&c);
}

/* Every published count in models.lua matches the layer graph. */
static void test_netdef(void)
{
	static const struct {
		const char *net;
		uint64_t params; /* torchvision num_params */
		double gmacs;	 /* torchvision _ops */
	} ref[] = {
		{ "alexnet", 61100840, 0.714 },	   { "vgg16", 138357544, 15.47 },
		{ "resnet50", 25557032, 4.089 },   { "inception3", 27161264, 5.713 },
	};
	for (size_t i = 0; i < TS_ARRAY_SIZE(ref); i++) {
		struct ts_net *n;
		CHECK(ts_net_build(ref[i].net, &n) == 0);
		if (!n)
			continue;
		CHECK_EQ_U64(n->params, ref[i].params);
		CHECK_NEAR((double)n->macs_infer / 1e9, ref[i].gmacs, 0.005);
		CHECK_EQ_U64(n->tensors[n->ntensors - 1].c, 1000);
		ts_net_free(n);
	}
	struct ts_net *n;
	CHECK(ts_net_build("inception3", &n) == 0);
	CHECK_EQ_U64(n->params_infer, 23834568); /* without the auxiliary head */
	ts_net_free(n);
	CHECK(ts_net_build("googlenet", &n) == 0);
	CHECK(n->params > n->params_infer); /* two auxiliary heads in training */
	ts_net_free(n);
	CHECK(ts_net_build("lenet", &n) == TS_E_UNKNOWN && !n);
}

/* The built-in profiles as the engine reads them: the published figures of
 * engine/profiles/anchors.lua with their evidence, typed by luadata. */
static struct ts_profiles *builtin_profiles(void)
{
	struct ts_profiles *p = NULL;
	if (ts_profiles_load(NULL, &p, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		tc_failures++;
	}
	return p;
}

/* Every figure says where it comes from: a label, a source, and the factors
 * an assumed one may be off by. */
static bool labelled(const struct ts_luadata_ev *ev)
{
	return ev->label != TS_LUADATA_NONE && ev->source && *ev->source &&
	       (ev->label != TS_LUADATA_ASSUMED || ev->has_range);
}

static void test_anchors(void)
{
	struct ts_profiles *p = builtin_profiles();
	if (!p)
		return;
	size_t n = p->nanchors, assumed = 0;
	CHECK(n >= 60);
	for (size_t i = 0; i < n; i++) {
		const struct ts_prof_anchor *a = &p->anchors[i];
		CHECK(labelled(&a->ev));
		assumed += a->ev.label == TS_LUADATA_ASSUMED;
		struct ts_engine_cfg c = cfg_of("sim", a->framework, a->model, a->gpu, a->mode,
						a->precision, (uint64_t)a->batch, 1);
		c.seed = 1000 + (uint64_t)i;
		struct ts_engine *e;
		int rc = ts_engine_new(&c, &e, err, sizeof(err));
		CHECK(rc == 0);
		if (rc) {
			fprintf(stderr, "anchor %zu: %s\n", i, err);
		} else {
			CHECK(e->info.basis == TS_BASIS_ANCHORED);
			CHECK(strcmp(e->info.source, a->ev.source) == 0);
			double x = run_unstalled(e, 400);
			if (fabs(x - a->value) > 0.02 * a->value)
				fprintf(stderr, "anchor %s %s %s %s b%.0f: %.1f vs %.1f\n", a->framework,
					a->model, a->gpu, a->mode, a->batch, x, a->value);
			CHECK_NEAR(x, a->value, 0.02);
			ts_engine_free(e);
		}
		ts_engine_cfg_free(&c);
	}
	/* the H100 figure is derived, not published: assumed, up to 8% low */
	CHECK(assumed == 1);
	printf("anchors: %zu published figures reproduced within 2%% (%zu assumed)\n", n,
	       assumed);
	ts_profiles_free(p);
}

static double estimate_x(const char *fw, const char *model, const char *gpu, const char *mode,
			 const char *prec, uint64_t batch, uint64_t gpus, int *rc)
{
	struct ts_engine_cfg c = cfg_of("sim", fw, model, gpu, mode, prec, batch, gpus);
	struct ts_engine_info info;
	*rc = ts_engine_estimate(&c, &info, err, sizeof(err));
	ts_engine_cfg_free(&c);
	return info.samples_per_s;
}

static void test_scaling_checks(void)
{
	struct ts_profiles *p = builtin_profiles();
	if (!p)
		return;
	size_t scaling = 0, oom = 0;
	for (size_t i = 0; i < p->nchecks; i++) {
		const struct ts_prof_check *a = &p->checks[i];
		int rc;
		CHECK(labelled(&a->ev));
		if (a->oom) {
			oom++;
			estimate_x(a->framework, a->model, a->gpu, a->mode, "", (uint64_t)a->batch,
				   1, &rc);
			CHECK(rc == TS_E_GPU_OOM);
			estimate_x(a->framework, a->model, a->gpu, a->mode, "", (uint64_t)a->fits, 1,
				   &rc);
			CHECK(rc == 0);
			continue;
		}
		scaling++;
		double x = estimate_x(a->framework, a->model, a->gpu, "train", a->precision,
				      (uint64_t)a->batch, (uint64_t)a->gpus, &rc);
		CHECK(rc == 0);
		printf("scaling %-16s %-10s %-9s x%.0f: %8.1f vs published %8.1f (%+.1f%%, tol "
		       "%.0f%%)\n",
		       a->framework, a->model, a->gpu, a->gpus, x, a->value,
		       (x / a->value - 1) * 100, a->tol * 100);
		CHECK_NEAR(x, a->value, a->tol);
	}
	CHECK(scaling >= 16 && oom >= 2);
	ts_profiles_free(p);
}

/* The study's 8 x P100 GoogLeNet tables ran out of memory at large batches
 * (the exact batch is not published): NVCaffe keeps data and diff of every
 * blob, so a 16 GB P100 fits batch 256 and not 512. */
static void test_oom(void)
{
	struct ts_engine_cfg c = cfg_of("sim", "nvcaffe", "googlenet", "P100-PCIe", "train", "",
					512, 8);
	struct ts_engine *e;
	CHECK(ts_engine_new(&c, &e, err, sizeof(err)) == TS_E_GPU_OOM && !e);
	CHECK(strstr(err, "out of GPU memory") && strstr(err, "googlenet"));
	struct ts_engine_info info;
	CHECK(ts_engine_estimate(&c, &info, err, sizeof(err)) == TS_E_GPU_OOM);
	CHECK(info.mem_bytes > info.mem_capacity);
	c.batch = 256;
	CHECK(ts_engine_estimate(&c, &info, err, sizeof(err)) == 0);
	CHECK(info.mem_bytes < info.mem_capacity);
	c.batch = 32;
	CHECK(ts_engine_estimate(&c, &info, err, sizeof(err)) == 0);
	ts_engine_cfg_free(&c);
}

static void test_multi_gpu(void)
{
	static const char *const models[] = { "alexnet", "googlenet", "resnet50" };
	/*
	 * TensorFlow 2017 at its published batches (published 8-GPU efficiency:
	 * AlexNet 75% < ResNet-50 99%); NVCaffe at the batches of BVLC Caffe's
	 * train_val.prototxt files (AlexNet 256, GoogLeNet 32) and at one batch
	 * for all three; PyTorch at one batch for all three. At batch 64
	 * AlexNet's 244 MB of gradients take longer to exchange than its step
	 * takes: 2 GPUs are slower than 1 there, so that setup checks the order
	 * only.
	 */
	static const struct {
		const char *fw, *gpu;
		uint64_t batch[3];
		bool monotone, order;
	} setups[] = {
		{ "tensorflow-2017", "P100-SXM2", { 512, 64, 64 }, true, true },
		{ "nvcaffe", "P100-PCIe", { 256, 32, 32 }, true, true },
		{ "nvcaffe", "P100-PCIe", { 64, 64, 64 }, false, true },
		{ "pytorch-2021", "V100", { 128, 128, 128 }, true, true },
	};
	for (size_t s = 0; s < TS_ARRAY_SIZE(setups); s++) {
		double eff8[3];
		for (size_t m = 0; m < 3; m++) {
			int rc;
			double x1 = estimate_x(setups[s].fw, models[m], setups[s].gpu, "train", "",
					   setups[s].batch[m], 1, &rc);
			CHECK(rc == 0);
			double prev = x1;
			for (uint64_t n = 2; n <= 8; n *= 2) {
				double x = estimate_x(setups[s].fw, models[m], setups[s].gpu, "train",
						  "", setups[s].batch[m], n, &rc);
				CHECK(rc == 0);
				if (setups[s].monotone)
					CHECK(x > prev);	/* monotone */
				CHECK(x < (double)n * x1);	/* below linear */
				prev = x;
			}
			eff8[m] = prev / (8 * x1);
		}
		printf("8-GPU efficiency %-16s %-9s b%3" PRIu64 "/%3" PRIu64 "/%3" PRIu64
		       ": AlexNet %.3f GoogLeNet %.3f ResNet-50 %.3f\n",
		       setups[s].fw, setups[s].gpu, setups[s].batch[0], setups[s].batch[1],
		       setups[s].batch[2], eff8[0], eff8[1], eff8[2]);
		if (setups[s].order) {
			CHECK(eff8[0] < eff8[2]);
			CHECK(eff8[0] < eff8[1]);
		}
	}
	/* inference is embarrassingly parallel: exactly linear */
	int rc;
	double i1 = estimate_x("nvcaffe", "googlenet", "P100-PCIe", "infer", "", 64, 1, &rc);
	double i8 = estimate_x("nvcaffe", "googlenet", "P100-PCIe", "infer", "", 64, 8, &rc);
	CHECK_NEAR(i8, 8 * i1, 1e-9);
}

static void test_batch_and_basis(void)
{
	int rc;
	/* small batches underuse the GPU: per-GPU throughput rises with batch */
	double prev = 0;
	for (uint64_t b = 1; b <= 256; b *= 2) {
		double x = estimate_x("nvcaffe", "googlenet", "P100-PCIe", "train", "", b, 1, &rc);
		CHECK(rc == 0 && x > prev);
		prev = x;
	}
	struct ts_engine_cfg c = cfg_of("sim", "nvcaffe", "googlenet", "P100-PCIe", "train", "",
					32, 1);
	struct ts_engine_info info;
	CHECK(ts_engine_estimate(&c, &info, err, sizeof(err)) == 0);
	CHECK(info.basis == TS_BASIS_MODELED && strstr(info.source, "modeled"));
	/* an extrapolated anchor keeps its whole citation (about 210 characters) */
	struct ts_engine_cfg h = cfg_of("sim", "pytorch-2021", "resnet50", "H100", "train", "amp",
					128, 1);
	struct ts_engine_info hi;
	CHECK(ts_engine_estimate(&h, &hi, err, sizeof(err)) == 0);
	CHECK(hi.basis == TS_BASIS_INTERPOLATED && strstr(hi.source, "extrapolated from") &&
	      strstr(hi.source, "silvertonconsulting.com 2023/07/12)"));
	ts_engine_cfg_free(&h);
	set(&c.framework, "mxnet");
	set(&c.model, "resnet50");
	set(&c.gpu, "V100");
	set(&c.mode, "infer");
	c.batch = 16;
	CHECK(ts_engine_estimate(&c, &info, err, sizeof(err)) == 0);
	CHECK(info.basis == TS_BASIS_INTERPOLATED);
	/* between the published 699 img/s at 8 and 1077 at 32 */
	CHECK(info.samples_per_s > 699 && info.samples_per_s < 1077);
	ts_engine_cfg_free(&c);
}

static void test_seed(void)
{
	uint64_t a[50], b[50], d[50];
	for (int run = 0; run < 3; run++) {
		struct ts_engine_cfg c = cfg_of("sim", "tensorflow-2017", "resnet50", "K80",
						"train", "", 64, 2);
		c.seed = run == 2 ? 8 : 7;
		struct ts_engine *e;
		CHECK(ts_engine_new(&c, &e, err, sizeof(err)) == 0);
		struct ts_engine_step st;
		for (int i = 0; i < 50; i++) {
			CHECK(ts_engine_step(e, 0, 0, &st) == 0);
			(run == 0 ? a : run == 1 ? b : d)[i] = st.compute_ns;
		}
		ts_engine_free(e);
		ts_engine_cfg_free(&c);
	}
	CHECK(memcmp(a, b, sizeof(a)) == 0);
	CHECK(memcmp(a, d, sizeof(a)) != 0);
	bool varies = false;
	for (int i = 1; i < 50; i++)
		varies |= a[i] != a[0];
	CHECK(varies); /* jitter is on */
}

/* AU against a scripted pipeline with the sim backend: exact, whatever the
 * jittered step times are, because the engine's arithmetic is checked
 * against the steps it returned. */
static void test_sim_au(void)
{
	struct ts_engine_cfg c = cfg_of("sim", "nvcaffe", "alexnet", "P100-PCIe", "train", "",
					256, 4);
	struct ts_engine *e;
	CHECK(ts_engine_new(&c, &e, err, sizeof(err)) == 0);
	struct ts_rng r;
	ts_rng_seed(&r, 3);
	uint64_t ready = 0, busy = 0, wall_from = 0, last = 0, samples = 0;
	for (int i = 0; i < 200; i++) {
		ready += ts_rng_below(&r, 3 * e->info.compute_ns); /* a pipeline that often lags */
		struct ts_engine_step st;
		CHECK(ts_engine_step(e, ready, 0, &st) == 0);
		CHECK(st.start_ns == (st.ready_ns > last ? st.ready_ns : last));
		if (i == 0) {
			wall_from = st.end_ns;
		} else {
			busy += st.compute_ns + st.comm_ns;
			samples += st.samples;
		}
		last = st.end_ns;
	}
	struct ts_engine_report rep;
	ts_engine_report(e, &rep);
	CHECK_EQ_U64(rep.wall_ns, last - wall_from);
	CHECK_EQ_U64(rep.compute_ns + rep.comm_ns, busy);
	CHECK(rep.au == (double)busy / (double)(last - wall_from));
	CHECK(rep.au_compute < rep.au); /* 4 GPUs: some time goes to the allreduce */
	CHECK(rep.au_compute == (double)rep.compute_ns / (double)(last - wall_from));
	printf("scripted pipeline: AU %.4f, wait %.3f s of %.3f s\n", rep.au, rep.wait_ns / 1e9,
	       rep.wall_ns / 1e9);
	CHECK(rep.au > 0.3 && rep.au < 1.0);
	CHECK(rep.samples_per_s == (double)samples * 1e9 / (double)(last - wall_from));
	CHECK(rep.step_p50_ns > 0 && rep.step_p99_ns >= rep.step_p50_ns);
	char d[256];
	ts_engine_describe(e, d, sizeof(d));
	CHECK(strstr(d, "sim") && strstr(d, "P100-PCIe") && strstr(d, "nvcaffe"));
	ts_engine_free(e);
	ts_engine_cfg_free(&c);
}

/* The CPU references the GPU kernels are checked against, on values
 * worked by hand. */
static void test_kernel_refs(void)
{
	/* one 2 x 3 RGB image, value 10y + 3x + c; crop 2 x 2 at x = 1, mirrored */
	uint8_t img[2 * 3 * 3];
	for (int y = 0; y < 2; y++)
		for (int x = 0; x < 3; x++)
			for (int c = 0; c < 3; c++)
				img[(y * 3 + x) * 3 + c] = (uint8_t)(10 * y + 3 * x + c);
	struct ts_k_crop crop = { 0, 1, 1 };
	const float mean[3] = { 0, 0, 0 }, sd[3] = { 1, 1, 1 };
	float out[3 * 2 * 2];
	ts_k_preprocess_ref(img, 1, 2, 3, &crop, 2, 2, mean, sd, out);
	for (int c = 0; c < 3; c++)
		for (int y = 0; y < 2; y++)
			for (int x = 0; x < 2; x++) {
				int sx = 1 + (1 - x); /* mirrored inside the crop */
				float want = (float)(10 * y + 3 * sx + c) * (1.0f / 255.0f);
				CHECK(out[(c * 2 + y) * 2 + x] == want);
			}
	const float m2[3] = { 0.5f, 0.5f, 0.5f }, s2[3] = { 0.25f, 0.5f, 1.0f };
	ts_k_preprocess_ref(img, 1, 2, 3, &crop, 2, 2, m2, s2, out);
	CHECK_NEAR(out[0], (6.0 / 255.0 - 0.5) / 0.25, 1e-6); /* c 0, y 0, x 0 <- src x 2 */

	float w = 1.0f, g = 0.5f, v = 0.2f;
	ts_k_sgd_momentum_ref(&w, &g, &v, 1, 0.1f, 0.9f, 0.01f);
	CHECK_NEAR(v, 0.9 * 0.2 + 0.5 + 0.01 * 1.0, 1e-6);
	CHECK_NEAR(w, 1.0 - 0.1 * 0.69, 1e-6);

	float a[1000], b[1000];
	ts_k_fill_uniform_ref(a, 1000, 5, 0.5f);
	ts_k_fill_uniform_ref(b, 1000, 5, 0.5f);
	CHECK(memcmp(a, b, sizeof(a)) == 0);
	ts_k_fill_uniform_ref(b, 1000, 6, 0.5f);
	CHECK(memcmp(a, b, sizeof(a)) != 0);
	double sum = 0;
	for (int i = 0; i < 1000; i++) {
		CHECK(a[i] >= -0.5f && a[i] < 0.5f);
		sum += a[i];
	}
	CHECK(fabs(sum / 1000) < 0.05);
}

/* Whether this process has the CUDA runtime mapped (/proc/self/maps). */
static bool cudart_mapped(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	bool found = false;
	CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f))
		found |= strstr(line, "/libcudart") != NULL;
	if (f)
		fclose(f);
	return found;
}

/* Asking for the cuda backend where it cannot run gives one clear line;
 * nothing of CUDA is mapped before it is asked for (a sim engine does not
 * map it), the cuda module is once it is. */
static void test_cuda_absent(void)
{
	struct ts_engine_cfg s = cfg_of("sim", "nvcaffe", "resnet50", "P100-PCIe", "train", "", 8,
					1);
	struct ts_engine *e = NULL;
	CHECK(ts_engine_new(&s, &e, err, sizeof(err)) == 0);
	ts_engine_free(e);
	ts_engine_cfg_free(&s);
	CHECK(!cudart_mapped());
	struct ts_engine_cfg c = cfg_of("cuda", "nvcaffe", "resnet50", "", "train", "", 8, 1);
	int rc = ts_engine_new(&c, &e, err, sizeof(err));
#if TS_HAVE_CUDA
	CHECK(ts_engine_backend_find("cuda") != NULL);
	CHECK(cudart_mapped());
	if (rc == 0) {
		printf("cuda backend: a GPU is present (checked by test_gpu)\n");
		ts_engine_free(e);
	} else {
		CHECK(rc == TS_E_NO_GPU && strstr(err, "no CUDA GPU") && !strchr(err, '\n'));
	}
#else
	CHECK(ts_engine_backend_find("cuda") == NULL);
	CHECK(rc == TS_E_UNKNOWN && strstr(err, "no CUDA"));
#endif
	ts_engine_cfg_free(&c);
}

/* Real time: hold() returns once the monotonic clock has passed the step's
 * end (an order, not a duration, is checked). */
static void test_hold(void)
{
	struct ts_engine_cfg c = cfg_of("null", "", "any", "", "infer", "", 1, 1);
	c.step_ns = 2 * TS_NS_PER_MS;
	struct ts_engine *e;
	CHECK(ts_engine_new(&c, &e, err, sizeof(err)) == 0);
	struct ts_engine_step st;
	for (int i = 0; i < 3; i++) {
		CHECK(ts_engine_step(e, ts_now_ns(), 0, &st) == 0);
		ts_engine_hold(e, &st);
		CHECK(ts_now_ns() >= st.end_ns);
	}
	ts_engine_free(e);
	ts_engine_cfg_free(&c);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* A new file from the mkstemp template @path, holding @text. */
static void temp_file(char *path, const char *text)
{
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	write_file(path, text);
}

/* A broken extra profile is refused with its file named. */
static void test_bad_profiles(void)
{
	static const char *const bad[] = {
		"return 42",
		"return { gpus = { { name = 'Z1', mem_gib = 8, fp32_tflops = 30 } } }",
		"gpu 'Z0' { mem_gib = 8 }",
		("anchor { framework = 'mxnet', model = 'vgg16', gpu = 'Z1', "
		 "mode = 'train', precision = 'fp32', batch = 8, value = 10 }"),
		"framework 'x' { allreduce_eff = 'fast' }",
		"model 'm' { netdef = 'vgg16', b_half = 'big' }",
		"gpu 'Z0' { name = 'Z0', mem_gib = 8, fp32_tflops = 30 }",
		"os.execute('true')",
		"this is not Lua",
	};
	char path[] = "/tmp/tiersim-engine-profile-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	for (size_t i = 0; i < TS_ARRAY_SIZE(bad); i++) {
		write_file(path, bad[i]);
		struct ts_engine_cfg c = cfg_of("sim", "mxnet", "vgg16", "K80", "infer", "", 8, 1);
		set(&c.profile, path);
		struct ts_engine *e = NULL;
		int rc = ts_engine_new(&c, &e, err, sizeof(err));
		CHECK(rc == TS_E_PROFILE && !e);
		if (!strstr(err, "tiersim-engine-profile") || strchr(err, 10))
			fprintf(stderr, "bad profile %zu: %s\n", i, err);
		CHECK(strstr(err, "tiersim-engine-profile") != NULL && !strchr(err, 10));
		ts_engine_cfg_free(&c);
	}
	/* a good one adds a GPU and its anchor */
	write_file(path, "anchor { framework = 'mxnet', model = 'vgg16', gpu = 'Z1', mode = 'infer',"
			 " precision = 'fp32', batch = 32, value = 999,"
			 " evidence = { 'measured', 'test' } }\n"
			 "gpu 'Z1' { mem_gib = 24, fp32_tflops = 30, link = 'pcie3' }\n");
	struct ts_engine_cfg c = cfg_of("sim", "mxnet", "vgg16", "Z1", "infer", "", 32, 1);
	set(&c.profile, path);
	struct ts_engine_info info;
	CHECK(ts_engine_estimate(&c, &info, err, sizeof(err)) == 0);
	CHECK_NEAR(info.samples_per_s, 999, 1e-9);
	CHECK(info.basis == TS_BASIS_ANCHORED && strcmp(info.source, "test") == 0);
	ts_engine_cfg_free(&c);
	unlink(path);
}

/* profile_nonstring_and_link_overflow: a non-string where a name goes
 * was read as "", and allreduce_eff links past the eighth were dropped,
 * both without a word; an anchor without its source passed. Each is now
 * refused with the file and line. So is a figure's evidence that is not
 * luadata's schema (label, source, case, range), and a scaling or oom check
 * of the wrong type, which only the tests used to read. */
static void test_profile_types(void)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "\ngpu 'Z0' { mem_gib = 8, fp32_tflops = 30, link = 5 }", ":2: gpu 'Z0': link is a "
									   "number, not a string" },
		{ "framework 'x' { allreduce_eff = { a = 1, b = 1, c = 1, d = 1, e = 1, f = 1, g = 1, "
		  "h = 1, i = 1, default = 1 } }",
		  ":1: framework 'x': allreduce_eff names more than 8 links" },
		{ "model 'm' { aliases = { 'a', 7 } }", ":1: model 'm': aliases[2] is not a name" },
		{ "anchor { framework = 'mxnet', model = 'vgg16', gpu = 'K80', mode = 'train', "
		  "precision = 'fp32', batch = 8, value = 10 }",
		  ":1: anchor: needs evidence = {" },
		/* the evidence schema, read by luadata's typed getter as a tier's */
		{ "\nanchor { framework = 'mxnet', model = 'vgg16', gpu = 'K80', mode = 'train', "
		  "precision = 'fp32', batch = 8, value = 10, evidence = 'tf2017' }",
		  ":2: anchor: evidence: expected { \"measured\"|\"spec\"|\"assumed\", \"source\" }, "
		  "not a string" },
		{ "anchor { framework = 'mxnet', model = 'vgg16', gpu = 'K80', mode = 'train', "
		  "precision = 'fp32', batch = 8, value = 10, evidence = { 'assumed', 'a guess' } }",
		  ":1: anchor: evidence: an assumed value needs its range = { LO, HI }" },
		{ "anchor { framework = 'mxnet', model = 'vgg16', gpu = 'K80', mode = 'train', "
		  "precision = 'fp32', batch = 8, value = 10, evidence = { 'measured', 'x', "
		  "case = 7 } }",
		  ":1: anchor: evidence: case is a number, not a string" },
		{ "anchor { framework = 'mxnet', model = 'vgg16', gpu = 'K80', mode = 'train', "
		  "precision = 'fp32', batch = 8, value = 10, src = 'tf2017' }",
		  ":1: anchor: unknown key 'src'" },
		/* the checks were read by the tests alone, a wrong type taken as 0 */
		{ "\n\nscaling { framework = 'mxnet', model = 'vgg16', gpu = 'K80', precision = 'fp32', "
		  "batch = 8, gpus = '8', value = 10, tol = 0.1, evidence = { 'measured', 'x' } }",
		  ":3: scaling: gpus is a string, not a number" },
		{ "scaling { framework = 'mxnet', model = 'vgg16', gpu = 'K80', precision = 'fp32', "
		  "batch = 8, gpus = 8, value = 10, tol = 0.1, evidence = { 'measured' } }",
		  ":1: scaling: evidence: missing its source" },
		{ "oom { framework = 'mxnet', model = 'vgg16', gpu = 'K81', mode = 'infer', "
		  "batch = 128, fits = 64, evidence = { 'measured', 'x' } }",
		  ":1: oom: mxnet/vgg16/K81 names an unknown gpu" },
		{ "oom { framework = 'mxnet', model = 'vgg16', gpu = 'K80', mode = 'infer', "
		  "batch = 128, fits = 64, evidence = { 'spec', 'x', range = { 2, 3 } } }",
		  ":1: oom: evidence: range: expected { LO, HI } with 0 < LO <= 1 <= HI" },
		/* a gpu's, link's, model's or framework's numbers: the value form of
		 * the schema, as host profiles write it; these were read as bare
		 * numbers, a table refused */
		{ "gpu 'Z0' { mem_gib = 8,\n  fp32_tflops = { 30, 'datasheet' }, link = 'pcie3' }",
		  ":1: gpu 'Z0': fp32_tflops: missing its label" },
		{ "gpu 'Z0' { mem_gib = { '8', 'spec', 'x' }, fp32_tflops = 30 }",
		  ":1: gpu 'Z0': mem_gib: missing its value" },
		{ "\nlink 'l' { bw_gbs = 10, lat_us = { 5, 'assumed', 'a round trip' } }",
		  ":2: link 'l': lat_us: an assumed value needs low = and high =" },
		{ "framework 'x' { allreduce_eff = { pcie3 = { 0.1, 'measured' }, default = 1 } }",
		  ":1: framework 'x': allreduce_eff.pcie3: missing its source" },
		{ "framework 'x' { context_mib = 'lots' }",
		  ":1: framework 'x': context_mib: expected { VALUE, " },
		{ "framework 'x' { allreduce_eff = { 0.5, 'spec' } }",
		  ":1: framework 'x': allreduce_eff: missing its source" },
		{ "model 'm' { netdef = 'vgg16', b_half = { 7, 'measured', 'x', low = 8 } }",
		  ":1: model 'm': b_half: needs 0 <= low <= value <= high" },
	};
	char path[] = "/tmp/tiersim-engine-profile-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	for (size_t i = 0; i < TS_ARRAY_SIZE(bad); i++) {
		write_file(path, bad[i].text);
		struct ts_engine_cfg c = cfg_of("sim", "mxnet", "vgg16", "K80", "infer", "", 8, 1);
		set(&c.profile, path);
		struct ts_engine *e = NULL;
		err[0] = 0;
		int rc = ts_engine_new(&c, &e, err, sizeof(err));
		if (rc != TS_E_PROFILE || !strstr(err, bad[i].want) || !strstr(err, path))
			fprintf(stderr, "profile type case %zu: %s\n", i, err);
		CHECK(rc == TS_E_PROFILE && !e && strstr(err, bad[i].want) && strstr(err, path));
		ts_engine_cfg_free(&c);
	}
	unlink(path);
}

/* A typo in a GPU profile (gpus.lua with V100's mem_gbs spelt mem_gbz) is
 * refused, naming the file, the line of the typo and the keys a GPU may
 * have, instead of the GPU silently taking the default for mem_gbs. */
static void test_gpu_profile_typo(void)
{
	char src[4096];
	CHECK(ts_data_find("engine/profiles/gpus.lua", src, sizeof(src)) == 0);
	FILE *in = fopen(src, "r");
	CHECK(in != NULL);
	if (!in)
		return;
	static char text[1 << 16];
	size_t len = fread(text, 1, sizeof(text) - 1, in);
	fclose(in);
	text[len] = 0;
	char *v100 = strstr(text, "gpu \"V100\"");
	char *key = v100 ? strstr(v100, "mem_gbs = { 900") : NULL;
	CHECK(key != NULL);
	if (!key)
		return;
	key[6] = 'z'; /* mem_gbz */
	int line = 1;
	for (const char *p = text; p < key; p++)
		line += *p == '\n';

	char path[] = "/tmp/tiersim-gpus-typo-XXXXXX";
	temp_file(path, text);
	struct ts_engine_cfg c = cfg_of("sim", "mxnet", "vgg16", "V100", "infer", "", 8, 1);
	set(&c.profile, path);
	struct ts_engine *e = NULL;
	CHECK(ts_engine_new(&c, &e, err, sizeof(err)) == TS_E_PROFILE && !e);
	char where[128];
	snprintf(where, sizeof(where), "%s:%d: gpu 'V100': unknown key 'mem_gbz'", path, line);
	if (!strstr(err, where))
		fprintf(stderr, "expected '%s' in: %s\n", where, err);
	CHECK(strstr(err, where) != NULL);
	CHECK(strstr(err, "(known: aliases, mem_gib, usable_mib, fp32_tflops, tf32_tflops, "
			  "fp16_tflops, mem_gbs, link, efficiency_as)") != NULL);
	ts_engine_cfg_free(&c);
	unlink(path);
}

/* Every number of the shipped gpu, link, model and framework declarations
 * carries its evidence (label and source, an assumed one its low and high),
 * read by luadata's typed getter; a user's profile may still write a bare
 * number, which stays unlabelled with its file and line, and a labelled one
 * replaces the shipped figure's evidence with its own. */
static void test_figures_labelled(void)
{
	struct ts_profiles *p = builtin_profiles();
	if (!p)
		return;
	size_t n[4] = { 0 }, spec_fp32 = 0, lat = 0;
	for (size_t i = 0; i < p->nfigs; i++) {
		const struct ts_prof_fig *f = &p->figs[i];
		if (!labelled(&f->ev))
			fprintf(stderr, "unlabelled: %s %s %s\n", f->kind, f->of, f->key);
		CHECK(labelled(&f->ev));
		n[f->ev.label]++;
		spec_fp32 += strcmp(f->key, "fp32_tflops") == 0 && f->ev.label == TS_LUADATA_SPEC;
		if (strcmp(f->kind, "link") == 0 && strcmp(f->key, "lat_us") == 0) {
			lat++;
			CHECK(f->ev.label == TS_LUADATA_ASSUMED && f->ev.lo < 5 && f->ev.hi > 5);
		}
	}
	CHECK(spec_fp32 == p->ngpus && lat == p->nlinks);
	CHECK(n[TS_LUADATA_MEASURED] > 0 && n[TS_LUADATA_SPEC] > 0 && n[TS_LUADATA_ASSUMED] > 0);
	printf("profile numbers: %zu measured, %zu spec, %zu assumed\n", n[TS_LUADATA_MEASURED],
	       n[TS_LUADATA_SPEC], n[TS_LUADATA_ASSUMED]);
	size_t before = p->nfigs;
	ts_profiles_free(p);

	char path[] = "/tmp/tiersim-engine-profile-XXXXXX";
	temp_file(path, "\ngpu 'V100' { mem_gib = 16, link = 'nvlink2',\n"
			"  fp32_tflops = { 14, 'measured', 'a run here' } }\n");
	p = NULL;
	CHECK(ts_profiles_load(path, &p, err, sizeof(err)) == 0 && p);
	if (!p)
		return;
	size_t v100 = 0, bare = 0;
	for (size_t i = 0; i < p->nfigs; i++) {
		const struct ts_prof_fig *f = &p->figs[i];
		if (strcmp(f->kind, "gpu") || strcmp(f->of, "V100"))
			continue;
		v100++;
		if (strcmp(f->key, "mem_gib") == 0) {
			bare++;
			CHECK(f->ev.label == TS_LUADATA_NONE && f->ev.value == 16);
			CHECK(strstr(f->ev.source, path) && strstr(f->ev.source, ":2"));
		} else {
			CHECK(strcmp(f->key, "fp32_tflops") == 0 && f->ev.value == 14 &&
			      strcmp(f->ev.source, "a run here") == 0);
		}
	}
	/* the shipped V100's five numbers gave way to the profile's two */
	CHECK(v100 == 2 && bare == 1 && p->nfigs == before - 5 + 2);
	CHECK(ts_prof_gpu_find(p, "V100")->fp32_tflops == 14);
	ts_profiles_free(p);
	unlink(path);
}

/* The figure @key of @kind @of in @p, NULL when none. */
static const struct ts_prof_fig *fig_of(const struct ts_profiles *p, const char *kind,
					const char *of, const char *key)
{
	for (size_t i = 0; i < p->nfigs; i++)
		if (!strcmp(p->figs[i].kind, kind) && !strcmp(p->figs[i].of, of) &&
		    !strcmp(p->figs[i].key, key))
			return &p->figs[i];
	return NULL;
}

/* --band's direction table covers every number the shipped profiles hold
 * (a key without one is refused at load, so every load here also checks
 * the declarations' keys); at a band end a ranged number takes the end its
 * direction says, a memory figure and an unranged one keep their values. */
static void test_band_directions(void)
{
	enum ts_prof_band d;
	CHECK(ts_prof_band_dir("link", "lat_us", &d) == 0 && d == TS_PROF_BAND_SLOW_HIGH);
	CHECK(ts_prof_band_dir("framework", "allreduce_eff.pcie3", &d) == 0 &&
	      d == TS_PROF_BAND_SLOW_LOW);
	CHECK(ts_prof_band_dir("model", "b_half", &d) == 0 && d == TS_PROF_BAND_SLOW_HIGH);
	CHECK(ts_prof_band_dir("framework", "context_mib", &d) == 0 && d == TS_PROF_BAND_KEEP);
	CHECK(ts_prof_band_dir("anchor", "value", &d) == 0 && d == TS_PROF_BAND_SLOW_LOW);
	CHECK(ts_prof_band_dir("gpu", "aliases", &d) == -ENOENT); /* text */
	CHECK(ts_prof_band_dir("gpu", "b_half", &d) == -ENOENT);

	struct ts_profiles *p[3] = { NULL, NULL, NULL }; /* slow, nominal, fast */
	for (int e = -1; e <= 1; e++)
		if (ts_profiles_load_band(NULL, e, &p[e + 1], err, sizeof(err)))
			fprintf(stderr, "band end %d: %s\n", e, err), tc_failures++;
	if (!p[0] || !p[1] || !p[2])
		goto out;
	CHECK(p[0]->nfigs == p[1]->nfigs && p[2]->nfigs == p[1]->nfigs);
	size_t moved = 0;
	for (size_t i = 0; i < p[1]->nfigs; i++) {
		const struct ts_prof_fig *f = &p[1]->figs[i];
		int rc = ts_prof_band_dir(f->kind, f->key, &d);
		if (rc)
			fprintf(stderr, "no band direction: %s %s %s\n", f->kind, f->of, f->key);
		CHECK(rc == 0 && f->used == f->ev.value);
		bool moves = !rc && d != TS_PROF_BAND_KEEP && f->ev.has_range;
		double slow = d == TS_PROF_BAND_SLOW_HIGH ? f->ev.hi : f->ev.lo;
		double fast = d == TS_PROF_BAND_SLOW_HIGH ? f->ev.lo : f->ev.hi;
		const struct ts_prof_fig *at_slow = fig_of(p[0], f->kind, f->of, f->key);
		const struct ts_prof_fig *at_fast = fig_of(p[2], f->kind, f->of, f->key);
		CHECK(at_slow && at_slow->used == (moves ? slow : f->ev.value));
		CHECK(at_fast && at_fast->used == (moves ? fast : f->ev.value));
		moved += moves && f->ev.lo < f->ev.hi;
	}
	CHECK(moved > 0);
	printf("band: %zu ranged figures move at the band's ends\n", moved);
	/* a per-link table's figures in name order, whatever Lua's hash order */
	const char *const order[] = { "allreduce_eff.default", "allreduce_eff.nvlink1",
				      "allreduce_eff.pcie3" };
	size_t seen = 0;
	for (size_t i = 0; i < p[1]->nfigs; i++) {
		const struct ts_prof_fig *g = &p[1]->figs[i];
		if (!strcmp(g->of, "tensorflow-2017") && !strncmp(g->key, "allreduce_eff.", 14)) {
			CHECK(seen < 3 && !strcmp(g->key, order[seen]));
			seen++;
		}
	}
	CHECK(seen == 3);
	/* worked by hand from the profiles */
	const struct ts_prof_link *l[3];
	const struct ts_prof_model *m[3];
	const struct ts_prof_fw *f[3];
	for (int k = 0; k < 3; k++) {
		l[k] = ts_prof_link_find(p[k], "pcie3");
		m[k] = ts_prof_model_find(p[k], "googlenet");
		f[k] = ts_prof_fw_find(p[k], "tensorflow-2017");
	}
	CHECK(l[0]->lat_us == 20 && l[1]->lat_us == 5 && l[2]->lat_us == 1);
	CHECK(m[0]->b_half == 16.6 && m[1]->b_half == 15.8 && m[2]->b_half == 2.65);
	CHECK(f[0]->allreduce_eff == 0.0175 && f[1]->allreduce_eff == 0.035 &&
	      f[2]->allreduce_eff == 1.0);
	/* measured without a range: the same at both ends */
	CHECK(ts_prof_fw_allreduce_eff(f[0], "nvlink1") == 0.035 &&
	      ts_prof_fw_allreduce_eff(f[2], "nvlink1") == 0.035);
	/* memory: kept */
	CHECK(f[0]->context_mib == 400 && f[2]->context_mib == 400);
	CHECK(f[0]->act_train == 1.1 && f[2]->act_train == 1.1);
	const struct ts_prof_fig *ctx = fig_of(p[1], "framework", "tensorflow-2017", "context_mib");
	CHECK(ctx && ctx->ev.has_range && ctx->ev.lo < ctx->ev.hi);
	/* the derived H100 anchor: x1 .. x1.08 on its own curve; the efficiency
	 * fit keeps the published value, so the fit is the same at both ends */
	CHECK(p[0]->mu == p[1]->mu && p[2]->mu == p[1]->mu);
	for (size_t k = 0; k < p[1]->nanchors; k++) {
		const struct ts_prof_anchor *a = &p[1]->anchors[k];
		bool ranged = a->ev.has_range;
		CHECK(!p[1]->anchors[k].moved && p[0]->anchors[k].moved == ranged &&
		      p[2]->anchors[k].moved == ranged);
		CHECK(p[0]->anchors[k].band_value == a->value * (ranged ? a->ev.lo : 1));
		CHECK(p[2]->anchors[k].band_value == a->value * (ranged ? a->ev.hi : 1));
		CHECK(p[0]->anchors[k].value == a->value && p[2]->anchors[k].value == a->value);
		if (!strcmp(a->gpu, "H100"))
			CHECK(ranged && p[2]->anchors[k].band_value == 2470 * 1.8 * 1.08);
	}
out:
	for (int k = 0; k < 3; k++)
		ts_profiles_free(p[k]);
}

/* The engine at a band end, exact: a network modeled from the fitted
 * efficiency whose b_half is assumed between 1 and 64 (8 nominal) runs
 * slower at the slow end and faster at the fast one; the ratio of two
 * batches' throughput at one end is (b1 / b2) (b2 + bh) / (b1 + bh) with the
 * end's b_half scaled to the P100 (x 9.3 / 15.7, gpus.lua), whatever the
 * efficiency. The band names what moved that the run reads (not the link's
 * latency of a 1-GPU run), memory figures keep the OOM check as it is. */
static void test_band_engine(void)
{
	char path[] = "/tmp/tiersim-engine-band-XXXXXX";
	temp_file(path, "model 'bandnet' { netdef = 'googlenet', unit = 'images',\n"
			"  b_half = { 8, 'assumed', 'a test', low = 1, high = 64 } }\n");
	struct ts_engine_cfg c =
		cfg_of("sim", "nvcaffe", "bandnet", "P100-PCIe", "infer", "", 8, 1);
	set(&c.profile, path);
	struct ts_engine_info at[3], at32[3];
	const double bh[3] = { 64, 8, 1 };
	for (int k = 0; k < 3; k++) {
		c.band_end = k - 1;
		c.batch = 8;
		CHECK(ts_engine_estimate(&c, &at[k], err, sizeof(err)) == 0);
		c.batch = 32;
		CHECK(ts_engine_estimate(&c, &at32[k], err, sizeof(err)) == 0);
		CHECK(at[k].basis == TS_BASIS_MODELED);
		double b = bh[k] * 9.3 / 15.7;
		CHECK_NEAR(at[k].samples_per_s_1gpu / at32[k].samples_per_s_1gpu,
			   8.0 / 32.0 * (32 + b) / (8 + b), 1e-12);
	}
	CHECK(at[0].mem_bytes == at[1].mem_bytes && at[2].mem_bytes == at[1].mem_bytes);
	CHECK(at[0].samples_per_s < at[1].samples_per_s &&
	      at[1].samples_per_s < at[2].samples_per_s);
	CHECK(at[1].band[0] == 0);
	for (int k = 0; k < 3; k += 2) {
		CHECK(strstr(at[k].band, "bandnet b_half") &&
		      strstr(at[k].band, "nvcaffe jitter_p99"));
		CHECK(!strstr(at[k].band, "lat_us") && !strstr(at[k].band, "overlap") &&
		      !strstr(at[k].band, "context_mib") && !strstr(at[k].band, "googlenet"));
	}
	CHECK(!strcmp(at[0].band, at[2].band));
	CHECK(at[0].jitter_p99 == 1.1 && at[1].jitter_p99 == 1.02 && at[2].jitter_p99 == 1.0);

	/* two GPUs training: the exchange's figures and the link's move too */
	struct ts_engine_info t[3];
	set(&c.mode, "train");
	c.gpus = 2;
	c.batch = 8;
	for (int k = 0; k < 3; k++) {
		c.band_end = k - 1;
		CHECK(ts_engine_estimate(&c, &t[k], err, sizeof(err)) == 0);
	}
	CHECK(strstr(t[0].band, "pcie3 lat_us") && strstr(t[0].band, "nvcaffe overlap") &&
	      strstr(t[0].band, "nvcaffe sync_ms") && strstr(t[0].band, "nvcaffe allreduce_gbs"));
	CHECK(t[0].comm_ns > t[1].comm_ns && t[1].comm_ns > t[2].comm_ns);
	CHECK(t[0].samples_per_s < t[1].samples_per_s && t[1].samples_per_s < t[2].samples_per_s);
	ts_engine_cfg_free(&c);
	unlink(path);
}

/* The CPU reference the GPU layer checks use, on a case worked by hand. */
static void test_layer_ref(void)
{
	struct ts_shape t[3] = { { 1, 3, 3 }, { 2, 2, 2 }, { 3, 1, 1 } };
	struct ts_layer conv = { .op = TS_L_CONV, .in = { 0 }, .nin = 1, .out = 1, .kh = 2,
				 .kw = 2, .sh = 1, .sw = 1, .ph = 0, .pw = 0, .bias = true };
	struct ts_net n = { .tensors = t, .ntensors = 3 };
	float x[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	float w[8] = { 1, 0, 0, 1, /* filter 0: x[i][j] + x[i+1][j+1] */
		       0, 0, 0, 0 }; /* filter 1: nothing but its bias */
	float b[2] = { 0.5f, -1 };
	double y[8];
	ts_layer_forward_ref(&n, &conv, 1, x, w, b, y);
	CHECK(y[0] == 6.5 && y[1] == 8.5 && y[2] == 12.5 && y[3] == 14.5);
	CHECK(y[4] == -1 && y[7] == -1);
	/* padding 1, stride 2: windows at -1 and 1 in each direction */
	t[1] = (struct ts_shape){ 1, 2, 2 };
	conv.ph = conv.pw = 1, conv.sh = conv.sw = 2;
	ts_layer_forward_ref(&n, &conv, 1, x, w, NULL, y);
	CHECK(y[0] == 1 && y[1] == 3 && y[2] == 7 && y[3] == 5 + 9);
	/* fully connected 2 x 2 x 2 -> 3 */
	struct ts_layer fcl = { .op = TS_L_FC, .in = { 1 }, .nin = 1, .out = 2, .bias = true };
	t[1] = (struct ts_shape){ 2, 2, 1 };
	float fx[4] = { 1, 2, 3, 4 }, fw[12] = { 1, 1, 1, 1, 0, 0, 0, 1, 1, -1, 0, 0 };
	float fb[3] = { 0, 10, 0 };
	ts_layer_forward_ref(&n, &fcl, 1, fx, fw, fb, y);
	CHECK(y[0] == 10 && y[1] == 14 && y[2] == -1);
}

/* hold_out: the run's own published figures leave the fit. At an anchored
 * batch the sim then interpolates (batch) or models (combination) and the
 * figure is no longer reproduced by construction; a hold-out with nothing
 * to hold out, or an unknown scope, is refused. */
static void test_hold_out(void)
{
	struct ts_engine_info a, hb, hc;
	struct ts_engine_cfg c = cfg_of("sim", "mxnet", "resnet50", "V100", "infer", "fp32", 32, 1);
	CHECK(ts_engine_estimate(&c, &a, err, sizeof(err)) == 0);
	CHECK(a.basis == TS_BASIS_ANCHORED);
	CHECK_NEAR(a.samples_per_s_1gpu, 1077, 1e-9);
	set(&c.hold_out, "batch");
	CHECK(ts_engine_estimate(&c, &hb, err, sizeof(err)) == 0);
	CHECK(hb.basis == TS_BASIS_INTERPOLATED);
	CHECK(strstr(hb.source, "held out (batch)") != NULL);
	/* between the published 8 (699) and 64 (1168), not the held-out 1077 */
	CHECK(hb.samples_per_s_1gpu > 699 && hb.samples_per_s_1gpu < 1168);
	CHECK(hb.samples_per_s_1gpu != a.samples_per_s_1gpu);
	set(&c.hold_out, "combination");
	CHECK(ts_engine_estimate(&c, &hc, err, sizeof(err)) == 0);
	CHECK(hc.basis == TS_BASIS_MODELED);
	CHECK(strstr(hc.source, "held out (combination)") != NULL);
	ts_engine_cfg_free(&c);

	/* a whole combination held out is modeled from the refitted factors,
	 * not read back: V100 AMP training is published at 1200 */
	struct ts_engine_info m2, tmp;
	c = cfg_of("sim", "pytorch-2021", "resnet50", "V100", "train", "amp", 256, 1);
	set(&c.hold_out, "combination");
	CHECK(ts_engine_estimate(&c, &m2, err, sizeof(err)) == 0);
	CHECK(m2.basis == TS_BASIS_MODELED);
	CHECK(fabs(m2.samples_per_s_1gpu - 1200) > 1);
	ts_engine_cfg_free(&c);

	/* nothing published at batch 48, no anchors at all for K80 amp */
	c = cfg_of("sim", "mxnet", "resnet50", "V100", "infer", "fp32", 48, 1);
	set(&c.hold_out, "batch");
	CHECK(ts_engine_estimate(&c, &tmp, err, sizeof(err)) == TS_E_UNKNOWN);
	CHECK(strstr(err, "hold_out=batch") && strstr(err, "at this batch"));
	set(&c.hold_out, "everything");
	CHECK(ts_engine_estimate(&c, &tmp, err, sizeof(err)) == TS_E_PARSE);
	CHECK(strstr(err, "'everything' is not batch or combination") != NULL);
	ts_engine_cfg_free(&c);
}

/* The H200 calibrations shipped as examples (engine/profiles/examples/, as
 * `tiersim calibrate engine --gpu` wrote them): they load on top of the
 * built-in profiles, their GPU is the built-in H200, and the sim reads each
 * measured batch back as an anchor, exactly. */
static void test_calib_examples(void)
{
	static const struct {
		const char *prec;
		uint64_t batch[3];
		double value[3];
	} ex[] = { { "fp32", { 64, 128, 256 }, { 762.04, 800.90, 826.35 } },
		   { "tf32", { 64, 128, 256 }, { 1571.14, 1683.35, 1716.26 } } };
	for (size_t k = 0; k < TS_ARRAY_SIZE(ex); k++) {
		char rel[96], path[4096];
		snprintf(rel, sizeof(rel), "engine/profiles/examples/h200-cudnn-%s.lua", ex[k].prec);
		CHECK(ts_data_find(rel, path, sizeof(path)) == 0);
		for (int i = 0; i < 3; i++) {
			struct ts_engine_cfg c = cfg_of("sim", "tiersim-cudnn", "resnet50", "H200",
							"train", ex[k].prec, ex[k].batch[i], 1);
			set(&c.profile, path);
			struct ts_engine_info info;
			int rc = ts_engine_estimate(&c, &info, err, sizeof(err));
			CHECK(rc == 0);
			if (rc)
				fprintf(stderr, "%s: %s\n", rel, err);
			else
				CHECK(info.basis == TS_BASIS_ANCHORED &&
				      fabs(info.samples_per_s - ex[k].value[i]) < 1e-9);
			ts_engine_cfg_free(&c);
		}
	}
}

/* calibrate engine's --batches: positive sizes, at most TS_CALIB_MAX_BATCHES. */
static void test_calib_batches(void)
{
	struct ts_calib_cfg c = { 0 };
	CHECK(ts_engine_calib_batches(&c, "16,32,64") == 0);
	CHECK(c.nbatches == 3 && c.batches[0] == 16 && c.batches[2] == 64);
	CHECK(ts_engine_calib_batches(&c, "16,,32") != 0);
	CHECK(ts_engine_calib_batches(&c, "0") != 0);
	CHECK(ts_engine_calib_batches(&c, "8x") != 0);
	CHECK(ts_engine_calib_batches(&c, "") != 0);
	CHECK(ts_engine_calib_batches(&c, "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17") != 0);
}

int main(void)
{
	test_calib_batches();
	test_calib_examples();
	test_layer_ref();
	test_hold();
	test_bad_profiles();
	test_profile_types();
	test_figures_labelled();
	test_band_directions();
	test_band_engine();
	test_gpu_profile_typo();
	test_kernel_refs();
	test_cuda_absent();
	test_null_and_au();
	test_registry();
	test_netdef();
	test_anchors();
	test_scaling_checks();
	test_hold_out();
	test_oom();
	test_multi_gpu();
	test_batch_and_basis();
	test_seed();
	test_sim_au();
	return tc_exit();
}
