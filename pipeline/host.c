/*
 * host.c — host profiles (see host.h): reading pipeline/hosts.lua and the
 * files users add, and turning a host and a library into a calibration.
 *
 * A measured host carries the costs measured on it. A carried host names
 * the host it is carried from and a per-core speed relative to it; its
 * costs are the other's divided by the speed, field by field, unless it
 * sets a field itself. The library multiplies the JPEG part: `decode`
 * scales the decode's share of the decode + transform cost (what a decode
 * benchmark compares), `transform` the whole of it (what was measured end to
 * end). Raw Datums cost the transform and the parse; no library enters.
 * A library's factor was measured on one CPU; a host that measured it on
 * its own (library_factors) uses its own, and so do the hosts carried from
 * it (the nearest measurement on the from = chain decides, as for a cost).
 */
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/paths.h"
#include "pipeline/host.h"
#include "luadata/luadata.h"

static const char *const field_names[TS_HF_NR] = {
	[TS_HF_DECODE_BASE] = "decode_base_ns",	  [TS_HF_DECODE_MPIX] = "decode_ns_per_mpix",
	[TS_HF_DECODE_SHARE] = "decode_share",	  [TS_HF_DATUM_XFORM] = "datum_xform_ns",
	[TS_HF_DATUM_PARSE] = "datum_parse_ns",	  [TS_HF_LMDB_PUT] = "lmdb_put_ns",
	[TS_HF_DLIO_SAMPLE] = "dlio_sample_ns",	  [TS_HF_DLIO_MIB] = "dlio_sample_ns_per_mib",
	[TS_HF_DLIO_STEP] = "dlio_step_ns",	  [TS_HF_DLIO_JPEG] = "dlio_jpeg_ns_per_mpix",
	[TS_HF_DLIO_REQ] = "dlio_request_ns",	  [TS_HF_DLIO_REQ_MIB] = "dlio_request_ns_per_mib",
	[TS_HF_DLIO_REQ_D] = "dlio_request_daemon_ns",
	[TS_HF_DLIO_REQ_D_MIB] = "dlio_request_daemon_ns_per_mib",
	[TS_HF_DLIO_HDF5] = "dlio_hdf5_sample_ns", [TS_HF_DLIO_HDF5_MIB] = "dlio_hdf5_sample_ns_per_mib",
	[TS_HF_DLIO_PNG] = "dlio_png_sample_ns",   [TS_HF_DLIO_PNG_MIB] = "dlio_png_sample_ns_per_mib",
	[TS_HF_DLIO_START] = "dlio_loader_start_ns",
	[TS_HF_DLIO_START_W] = "dlio_loader_start_ns_per_worker",
	[TS_HF_DLIO_RESTART] = "dlio_loader_restart_ns",
	[TS_HF_DLIO_RESTART_W] = "dlio_loader_restart_ns_per_worker",
	[TS_HF_DLIO_GC] = "dlio_worker_gc_ns",	   [TS_HF_DLIO_GC_AT] = "dlio_worker_gc_samples",
	[TS_HF_DLIO_SPREAD] = "dlio_worker_spread", [TS_HF_DLIO_WAIT] = "dlio_request_wait_ns",
	[TS_HF_DLIO_RUN] = "dlio_run_request_ns",
	[TS_HF_LOADER_SAMPLE] = "loader_sample_ns", [TS_HF_LOADER_BATCH] = "loader_batch_ns",
	[TS_HF_DLIO_COLLATE] = "dlio_collate_ns_per_mib", [TS_HF_DLIO_COLLATE_S] = "dlio_collate_ns",
	[TS_HF_DLIO_COLLATE_FRESH] = "dlio_collate_fresh_ns_per_mib",
	[TS_HF_DLIO_SPREAD_WAIT] = "dlio_worker_spread_wait",
	[TS_HF_DLIO_CPU_ALONE] = "dlio_worker_cpu_alone",
	[TS_HF_DLIO_SLICE] = "dlio_core_slice_ns",
};

static const char *const host_keys[] = { "desc", "cpu", "from", "replay_wake_cost_ns",
					 "replay_fuse_cpu_ns", "replay_fuse_cpu_page_ns",
					 "replay_fuse_cpu_lookup_ns", "replay_fuse_cpu_open_ns",
					 "replay_fuse_cpu_getattr_ns",
					 "replay_page_wake_ns", "replay_dev_read_cpu_ns",
					 "replay_fuse_size_ns", "replay_fuse_ra_ns",
					 "replay_fuse_stretch",
					 "speed",	   "library",	     "decode_base_ns",
					 "decode_ns_per_mpix", "decode_share", "datum_xform_ns",
					 "datum_parse_ns", "lmdb_put_ns",   "dlio_sample_ns",
					 "dlio_sample_ns_per_mib", "dlio_step_ns",
					 "dlio_jpeg_ns_per_mpix", "dlio_request_ns",
					 "dlio_request_ns_per_mib", "dlio_request_daemon_ns",
					 "dlio_request_daemon_ns_per_mib", "dlio_workload_step_ns",
					 "dlio_hdf5_sample_ns", "dlio_hdf5_sample_ns_per_mib",
					 "dlio_png_sample_ns", "dlio_png_sample_ns_per_mib",
					 "dlio_loader_start_ns", "dlio_loader_start_ns_per_worker",
					 "dlio_loader_restart_ns", "dlio_loader_restart_ns_per_worker",
					 "dlio_worker_gc_ns", "dlio_worker_gc_samples",
					 "dlio_worker_spread", "dlio_request_wait_ns",
					 "dlio_run_request_ns", "dlio_collate_ns_per_mib",
					 "dlio_collate_ns", "dlio_collate_fresh_ns_per_mib",
					 "dlio_worker_spread_wait", "dlio_worker_cpu_alone",
					 "dlio_core_slice_ns",
					 "loader_sample_ns", "loader_batch_ns",
					 "vcpus", "library_factors", "copy_tail_first", "map_window_ns", NULL };
static const char *const lib_keys[] = { "desc", "decode", "transform", NULL };

enum { K_HOST, K_LIB };
static const struct ts_luadata_kind kinds[] = {
	[K_HOST] = { .name = "host", .named = true, .keys = host_keys },
	[K_LIB] = { .name = "library", .named = true, .keys = lib_keys },
	{ NULL },
};

/* The mean ImageNet image (image-net.org: 469 x 387), for images/s. */
#define MEAN_MPIX (469.0 * 387.0 / 1e6)

/* One entry of a table keyed by name: a workload's DLIO step cost
 * (dlio_workload_step_ns["MODEL/FORMAT"] or ["MODEL"]), a library's factor
 * measured on the host (library_factors["LIBRARY"]). */
struct wstep {
	char *key;
	struct ts_host_num n;
};

struct host {
	char *name, *desc, *cpu, *from, *library, *where; /* where: "FILE:LINE" */
	struct ts_host_num f[TS_HF_NR];
	struct ts_host_num speed;
	struct ts_host_num vcpus; /* the machine's own: not carried by from = */
	/* the replay's wake-up rule, per e-fold of a request's time: the
	 * machine's (its virtualisation, its kernel), not carried by from = */
	struct ts_host_num wake_cost;
	/* the kernel-fs replay's in-kernel rule: a FUSE request's CPU on the
	 * calling thread beyond a kernel file system's for the same call (the
	 * machine's own, not carried by from =) */
	struct ts_host_num fuse_cpu;
	/* and its CPU a page of a direct read's or write's buffer */
	struct ts_host_num fuse_cpu_page;
	/* and a lookup's and a getattr's (GETATTR records), an open's: of
	 * their own where measured, else fuse_cpu's */
	struct ts_host_num fuse_cpu_lookup, fuse_cpu_open, fuse_cpu_getattr;
	/* the kernel-fs replay's page-lock wake-up (the machine's own, not
	 * carried by from =) */
	struct ts_host_num page_wake;
	/* and its IO path's CPU a device read (the machine's own) */
	struct ts_host_num dev_read_cpu;
	/* and a 128 KiB read's reply's size part through FUSE (the machine's
	 * own) */
	struct ts_host_num fuse_size;
	/* and a page-cache read's round trip through FUSE in a job's gap (the
	 * machine's own) */
	struct ts_host_num fuse_ra;
	/* and how much longer a job's own time after such a read runs
	 * through FUSE than on a kernel file system, a ratio (the machine's
	 * own) */
	struct ts_host_num fuse_stretch;
	/* 1: glibc's memcpy touches a copy's last page before the rest (no
	 * ERMS); 0: in order. The CPU's own: not carried by from = */
	struct ts_host_num copy_tf;
	/* the mapped reader's CPU a readahead window (tier/tier_base.h,
	 * ts_tier_req.map_window_ns): the machine's own, not carried by
	 * from = */
	struct ts_host_num map_win;
	struct wstep *ws;	  /* sorted by key */
	size_t nws;
	struct wstep *lf;	  /* library_factors, sorted by key */
	size_t nlf;
};

struct lib {
	char *name, *desc, *where;
	struct ts_host_num decode, transform;
};

struct ts_host_set {
	struct host *h;
	size_t nh;
	struct lib *l;
	size_t nl;
};

static void num_free(struct ts_host_num *n)
{
	free(n->what);
	memset(n, 0, sizeof(*n));
}

static void host_clear(struct host *h)
{
	free(h->name);
	free(h->desc);
	free(h->cpu);
	free(h->from);
	free(h->library);
	free(h->where);
	for (int i = 0; i < TS_HF_NR; i++)
		num_free(&h->f[i]);
	num_free(&h->speed);
	num_free(&h->vcpus);
	num_free(&h->wake_cost);
	num_free(&h->fuse_cpu);
	num_free(&h->fuse_cpu_page);
	num_free(&h->fuse_cpu_lookup);
	num_free(&h->fuse_cpu_open);
	num_free(&h->fuse_cpu_getattr);
	num_free(&h->page_wake);
	num_free(&h->dev_read_cpu);
	num_free(&h->fuse_size);
	num_free(&h->fuse_ra);
	num_free(&h->fuse_stretch);
	num_free(&h->copy_tf);
	num_free(&h->map_win);
	for (size_t i = 0; i < h->nws; i++) {
		free(h->ws[i].key);
		num_free(&h->ws[i].n);
	}
	free(h->ws);
	for (size_t i = 0; i < h->nlf; i++) {
		free(h->lf[i].key);
		num_free(&h->lf[i].n);
	}
	free(h->lf);
	memset(h, 0, sizeof(*h));
}

static void lib_clear(struct lib *l)
{
	free(l->name);
	free(l->desc);
	free(l->where);
	num_free(&l->decode);
	num_free(&l->transform);
	memset(l, 0, sizeof(*l));
}

const char *ts_host_find_cpu(const struct ts_host_set *s, const char *vendor, unsigned family,
			     unsigned model, unsigned vcpus)
{
	char kind[96], end[32];
	snprintf(kind, sizeof(kind), "(KVM guest; family %u model %u", family, model);
	snprintf(end, sizeof(end), ", %u vCPUs", vcpus);
	size_t vl = strlen(vendor), el = strlen(end);
	const char *hit = NULL;
	for (size_t i = 0; i < s->nh; i++) {
		const struct host *h = &s->h[i];
		const char *c = h->cpu, *k = c ? strstr(c, kind) : NULL;
		if (!k || !h->f[TS_HF_DLIO_SAMPLE].set || strncmp(c, vendor, vl) || c[vl] != ' ')
			continue;
		char after = k[strlen(kind)];
		size_t cl = strlen(c);
		if ((after == ',' || after == ')') && cl >= el && !strcmp(c + cl - el, end))
			hit = h->name;
	}
	return hit;
}

void ts_host_set_free(struct ts_host_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nh; i++)
		host_clear(&s->h[i]);
	for (size_t i = 0; i < s->nl; i++)
		lib_clear(&s->l[i]);
	free(s->h);
	free(s->l);
	free(s);
}

/* ---- Reading a file ----------------------------------------------------------- */

#define FAIL TS_LUADATA_FAIL

/* { VALUE, LABEL, "source", low = , high = } at @key of table @t:
 * luadata's evidence schema, in its value form. */
static int get_num(struct ts_luadata_rd *r, int t, const char *key, struct ts_host_num *n)
{
	struct ts_luadata_ev ev = { 0 };
	int rc = 0;

	if (lua_getfield(r->L, t, key) != LUA_TNIL)
		rc = ts_luadata_get_ev(r->d, &r->decl, -1, key, TS_LUADATA_EV_VALUE, NULL, &ev,
				       r->err, r->errlen);
	else
		ev.label = TS_LUADATA_NONE;
	lua_pop(r->L, 1);
	if (rc || ev.label == TS_LUADATA_NONE)
		return rc;
	num_free(n);
	*n = (struct ts_host_num){ .set = true,
				   .v = ev.value,
				   .low = ev.lo,
				   .high = ev.hi,
				   .label = (enum ts_host_label)ev.label,
				   .what = ev.source };
	free(ev.fit_case); /* the value form has none */
	return 0;
}
_Static_assert((int)TS_HOST_MEASURED == (int)TS_LUADATA_MEASURED &&
		       (int)TS_HOST_SPEC == (int)TS_LUADATA_SPEC &&
		       (int)TS_HOST_ASSUMED == (int)TS_LUADATA_ASSUMED,
	       "a host's evidence labels are luadata's");

static int wstep_cmp(const void *a, const void *b)
{
	return strcmp(((const struct wstep *)a)->key, ((const struct wstep *)b)->key);
}

/* @field = { [KEY] = { VALUE, LABEL, "source", ... }, ... } of table @t into
 * *@out (sorted by key); @shape names a key in the error, @what what it is. */
static int read_keyed(struct ts_luadata_rd *r, int t, const char *field, const char *shape,
		      const char *what, struct wstep **out, size_t *nout)
{
	lua_State *L = r->L;
	int rc = 0;
	if (lua_getfield(L, t, field) == LUA_TNIL) {
		lua_pop(L, 1);
		return 0;
	}
	if (!lua_istable(L, -1)) {
		lua_pop(L, 1);
		return FAIL(r, "%s: expected { [%s] = { VALUE, LABEL, \"source\", ... }, ... }", field,
			    shape);
	}
	int tt = lua_gettop(L);
	lua_pushnil(L);
	while (!rc && lua_next(L, tt)) {
		if (lua_type(L, -2) != LUA_TSTRING) {
			rc = FAIL(r, "%s: a value without %s", field, what);
			break;
		}
		char name[160];
		snprintf(name, sizeof(name), "%s[\"%s\"]", field, lua_tostring(L, -2));
		struct ts_luadata_ev ev = { 0 };
		rc = ts_luadata_get_ev(r->d, &r->decl, -1, name, TS_LUADATA_EV_VALUE, NULL, &ev, r->err,
				       r->errlen);
		lua_pop(L, 1);
		if (rc)
			break;
		free(ev.fit_case);
		struct wstep *nw = realloc(*out, (*nout + 1) * sizeof(*nw));
		char *key = nw ? strdup(lua_tostring(L, -1)) : NULL;
		if (nw)
			*out = nw;
		if (!key) {
			free(ev.source);
			rc = -ENOMEM;
			break;
		}
		(*out)[(*nout)++] = (struct wstep){
			.key = key,
			.n = { .set = true, .v = ev.value, .low = ev.lo, .high = ev.hi,
			       .label = (enum ts_host_label)ev.label, .what = ev.source } };
	}
	lua_settop(L, tt - 1);
	if (!rc && *nout)
		qsort(*out, *nout, sizeof(**out), wstep_cmp);
	return rc;
}

static int read_host(struct ts_luadata_rd *r, int t, struct host *h)
{
	int rc;
	if (!(h->where = ts_luadata_where(r->d, &r->decl)))
		return -ENOMEM;
	if ((rc = ts_luadata_dup_str(r, t, "desc", false, &h->desc)) ||
	    (rc = ts_luadata_dup_str(r, t, "cpu", false, &h->cpu)) ||
	    (rc = ts_luadata_dup_str(r, t, "from", false, &h->from)) ||
	    (rc = ts_luadata_dup_str(r, t, "library", false, &h->library)) ||
	    (rc = get_num(r, t, "speed", &h->speed)) || (rc = get_num(r, t, "vcpus", &h->vcpus)) ||
	    (rc = read_keyed(r, t, "dlio_workload_step_ns", "\"MODEL/FORMAT\"",
			     "a workload's name", &h->ws, &h->nws)) ||
	    (rc = read_keyed(r, t, "library_factors", "\"LIBRARY\"", "a library's name", &h->lf,
			     &h->nlf)) ||
	    (rc = get_num(r, t, "replay_wake_cost_ns", &h->wake_cost)) ||
	    (rc = get_num(r, t, "replay_fuse_cpu_ns", &h->fuse_cpu)) ||
	    (rc = get_num(r, t, "replay_fuse_cpu_page_ns", &h->fuse_cpu_page)) ||
	    (rc = get_num(r, t, "replay_fuse_cpu_lookup_ns", &h->fuse_cpu_lookup)) ||
	    (rc = get_num(r, t, "replay_fuse_cpu_open_ns", &h->fuse_cpu_open)) ||
	    (rc = get_num(r, t, "replay_fuse_cpu_getattr_ns", &h->fuse_cpu_getattr)) ||
	    (rc = get_num(r, t, "replay_page_wake_ns", &h->page_wake)) ||
	    (rc = get_num(r, t, "replay_dev_read_cpu_ns", &h->dev_read_cpu)) ||
	    (rc = get_num(r, t, "replay_fuse_size_ns", &h->fuse_size)) ||
	    (rc = get_num(r, t, "replay_fuse_ra_ns", &h->fuse_ra)) ||
	    (rc = get_num(r, t, "replay_fuse_stretch", &h->fuse_stretch)) ||
	    (rc = get_num(r, t, "copy_tail_first", &h->copy_tf)) ||
	    (rc = get_num(r, t, "map_window_ns", &h->map_win)))
		return rc;
	if (h->map_win.set && (h->map_win.v < 0 || h->map_win.low < 0 || h->map_win.v > 1e8))
		return FAIL(r, "map_window_ns: the reader's CPU a mapped readahead window, in ns, "
			       "0 to 100,000,000");
	if (h->copy_tf.set && ((h->copy_tf.v != 0 && h->copy_tf.v != 1) ||
			       h->copy_tf.low != h->copy_tf.v || h->copy_tf.high != h->copy_tf.v))
		return FAIL(r, "copy_tail_first: 1 (memcpy touches a copy's last page first: no "
			       "ERMS) or 0 (in order), without a range");
	if (h->vcpus.set && (h->vcpus.low < 1 || h->vcpus.v != (double)(uint64_t)h->vcpus.v ||
			     h->vcpus.low != h->vcpus.v || h->vcpus.high != h->vcpus.v))
		return FAIL(r, "vcpus: the machine's vCPUs, a whole number of at least 1 without "
			       "a range");
	for (int i = 0; i < TS_HF_NR; i++)
		if ((rc = get_num(r, t, field_names[i], &h->f[i])))
			return rc;
	if (!h->cpu)
		return FAIL(r, "missing cpu = \"the processor\"");
	/* a line (a format's reader's, the loader's start) is one measurement:
	 * a host sets both of its numbers or neither */
	static const int pair[][2] = { { TS_HF_DLIO_HDF5, TS_HF_DLIO_HDF5_MIB },
				       { TS_HF_DLIO_PNG, TS_HF_DLIO_PNG_MIB },
				       { TS_HF_DLIO_REQ_D, TS_HF_DLIO_REQ_D_MIB },
				       { TS_HF_DLIO_START, TS_HF_DLIO_START_W },
				       { TS_HF_DLIO_RESTART, TS_HF_DLIO_RESTART_W },
				       { TS_HF_DLIO_GC, TS_HF_DLIO_GC_AT },
				       { TS_HF_LOADER_SAMPLE, TS_HF_LOADER_BATCH } };
	for (size_t i = 0; i < TS_ARRAY_SIZE(pair); i++) {
		bool ns = h->f[pair[i][0]].set;
		if (ns != h->f[pair[i][1]].set)
			return FAIL(r, "%s without %s: a line's two numbers are set as a pair",
				    field_names[pair[i][!ns]], field_names[pair[i][ns]]);
	}
	int decode_set = 0;
	for (int i = 0; i < TS_HF_REQUIRED; i++)
		decode_set += h->f[i].set;
	if (!h->from && decode_set) {
		for (int i = 0; i < TS_HF_REQUIRED; i++)
			if (!h->f[i].set)
				return FAIL(r, "missing %s: a host not carried from another (from = ) "
					       "sets every cost",
					    field_names[i]);
		if (h->speed.set)
			return FAIL(r, "speed is relative to from = HOST, which is not set");
	} else if (!h->from) {
		/* none of the decode costs: a host of DLIO's costs only (tiersim hosts measure) */
		bool dlio = false;
		for (int i = TS_HF_REQUIRED; i < TS_HF_NR; i++)
			dlio = dlio || h->f[i].set;
		if (!dlio && !h->nws)
			return FAIL(r, "no costs: set every decode cost (decode_base_ns, ...), or DLIO's "
				       "(dlio_sample_ns, ...), or carry it from another host (from = )");
		if (h->speed.set)
			return FAIL(r, "speed is relative to from = HOST, which is not set");
	} else if (!h->speed.set || !(h->speed.low > 0)) {
		return FAIL(r, "missing speed: the per-core speed relative to '%s' (above 0)",
			    h->from);
	}
	for (size_t i = 0; i < h->nlf; i++)
		if (!(h->lf[i].n.low > 0))
			return FAIL(r, "library_factors[\"%s\"]: a factor on libjpeg-turbo's cost, "
				       "above 0", h->lf[i].key);
	if (h->f[TS_HF_DECODE_SHARE].set && h->f[TS_HF_DECODE_SHARE].high > 1)
		return FAIL(r, "decode_share is a fraction of the cost, at most 1");
	if (h->f[TS_HF_DLIO_SPREAD].set &&
	    (h->f[TS_HF_DLIO_SPREAD].high >= 1 || h->f[TS_HF_DLIO_SPREAD].low < 0))
		return FAIL(r, "dlio_worker_spread is a share of a batch's time, from 0 to under 1");
	if (h->f[TS_HF_DLIO_SPREAD_WAIT].set && (h->f[TS_HF_DLIO_SPREAD_WAIT].high >= 1 ||
						 h->f[TS_HF_DLIO_SPREAD_WAIT].low < 0))
		return FAIL(r, "dlio_worker_spread_wait is a share of a worker's wait for a core, "
			       "from 0 to under 1");
	if (h->f[TS_HF_DLIO_CPU_ALONE].set && (h->f[TS_HF_DLIO_CPU_ALONE].high > 2 ||
					       !(h->f[TS_HF_DLIO_CPU_ALONE].low > 0)))
		return FAIL(r, "dlio_worker_cpu_alone is a factor on a worker's CPU per sample, "
			       "above 0 and at most 2");
	return 0;
}

static int read_lib(struct ts_luadata_rd *r, int t, struct lib *l)
{
	int rc;
	if (!(l->where = ts_luadata_where(r->d, &r->decl)))
		return -ENOMEM;
	if ((rc = ts_luadata_dup_str(r, t, "desc", false, &l->desc)) ||
	    (rc = get_num(r, t, "decode", &l->decode)) ||
	    (rc = get_num(r, t, "transform", &l->transform)))
		return rc;
	const struct ts_host_num *n = l->decode.set ? &l->decode : &l->transform;
	if (l->decode.set == l->transform.set || !(n->low > 0))
		return FAIL(r, "set one of decode = (the decode's share of the cost) or transform = "
			       "(the whole decode + transform), as a factor on libjpeg-turbo's");
	return 0;
}

int ts_host_set_add_file(struct ts_host_set *s, const char *path, char *err, size_t errlen)
{
	struct ts_luadata *d;
	int rc = ts_luadata_load(path, kinds, &d, err, errlen);
	if (rc)
		return rc;
	struct ts_luadata_rd r = { .d = d, .L = ts_luadata_state(d), .err = err, .errlen = errlen };
	for (size_t i = 0; i < ts_luadata_count(d) && !rc; i++) {
		int t = ts_luadata_push(d, i, &r.decl);
		bool is_host = r.decl.kind == &kinds[K_HOST];
		if (is_host) {
			struct host h = { 0 };
			if (!(h.name = strdup(r.decl.name)))
				rc = -ENOMEM;
			else
				rc = read_host(&r, t, &h);
			struct host *at =
				rc ? NULL : ts_luadata_slot((void **)&s->h, &s->nh, sizeof(h), h.name);
			if (!rc && !at)
				rc = -ENOMEM;
			if (rc) {
				host_clear(&h);
			} else {
				host_clear(at);
				*at = h;
			}
		} else {
			struct lib l = { 0 };
			if (!(l.name = strdup(r.decl.name)))
				rc = -ENOMEM;
			else
				rc = read_lib(&r, t, &l);
			struct lib *at =
				rc ? NULL : ts_luadata_slot((void **)&s->l, &s->nl, sizeof(l), l.name);
			if (!rc && !at)
				rc = -ENOMEM;
			if (rc) {
				lib_clear(&l);
			} else {
				lib_clear(at);
				*at = l;
			}
		}
		lua_settop(r.L, 0);
	}
	ts_luadata_free(d);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	return rc;
}

int ts_host_set_load_default(struct ts_host_set **out, char *err, size_t errlen)
{
	char path[4096];
	*out = NULL;
	if (ts_data_find("pipeline/hosts.lua", path, sizeof(path))) {
		snprintf(err, errlen, "pipeline/hosts.lua (the built-in host profiles) not found; set "
				      "TIERSIM_DATADIR to the folder that holds pipeline/hosts.lua");
		return -ENOENT;
	}
	struct ts_host_set *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	int rc = ts_host_set_add_file(s, path, err, errlen);
	if (rc) {
		ts_host_set_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

int ts_host_this_path(char *buf, size_t n)
{
	const char *f = getenv("TIERSIM_HOST_FILE"), *x = getenv("XDG_CACHE_HOME"),
		   *home = getenv("HOME");
	int w;
	if (f && *f)
		w = snprintf(buf, n, "%s", f);
	else if (x && *x)
		w = snprintf(buf, n, "%s/tiersim/" TS_HOST_THIS ".lua", x);
	else if (home && *home)
		w = snprintf(buf, n, "%s/.cache/tiersim/" TS_HOST_THIS ".lua", home);
	else
		return -ENOENT;
	return w < 0 || (size_t)w >= n ? -ENAMETOOLONG : 0;
}

int ts_host_set_add_this(struct ts_host_set *s, char *err, size_t errlen)
{
	char path[4096];
	if (ts_host_this_path(path, sizeof(path)) || access(path, F_OK))
		return 0;
	struct ts_host_set *t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	int rc = ts_host_set_add_file(t, path, err, errlen);
	/* it holds this machine's host alone: nothing in it changes another name */
	const char *other = NULL, *where = NULL, *kind = "host";
	for (size_t i = 0; !rc && !other && i < t->nh; i++)
		if (strcmp(t->h[i].name, TS_HOST_THIS))
			other = t->h[i].name, where = t->h[i].where;
	if (!rc && !other && t->nl)
		other = t->l[0].name, where = t->l[0].where, kind = "library";
	if (other) {
		snprintf(err, errlen, "%.2048s: %s '%.128s': this machine's file holds the host '"
				      TS_HOST_THIS "' only; remake it with 'tiersim hosts measure'",
			 where, kind, other);
		rc = TS_E_PROFILE;
	}
	for (size_t i = 0; !rc && i < t->nh; i++) {
		struct host *at = ts_luadata_slot((void **)&s->h, &s->nh, sizeof(*at), t->h[i].name);
		if (!at) {
			snprintf(err, errlen, "%.2048s: out of memory", path);
			rc = -ENOMEM;
		} else {
			host_clear(at);
			*at = t->h[i];
			memset(&t->h[i], 0, sizeof(t->h[i]));
		}
	}
	ts_host_set_free(t);
	return rc;
}

int ts_host_set_load_for(const char *spec, struct ts_host_set **out, char *err, size_t errlen)
{
	int rc = ts_host_set_load_default(out, err, errlen);
	size_t hn = spec ? strcspn(spec, "/") : 0;
	if (rc || hn != strlen(TS_HOST_THIS) || strncmp(spec, TS_HOST_THIS, hn))
		return rc;
	if ((rc = ts_host_set_add_this(*out, err, errlen))) {
		ts_host_set_free(*out);
		*out = NULL;
	}
	return rc;
}

/* ---- Turning a profile into costs ------------------------------------------ */

static const struct host *find_host(const struct ts_host_set *s, const char *name, size_t n)
{
	for (size_t i = 0; i < s->nh; i++)
		if (strlen(s->h[i].name) == n && !strncmp(s->h[i].name, name, n))
			return &s->h[i];
	return NULL;
}

static const struct lib *find_lib(const struct ts_host_set *s, const char *name)
{
	for (size_t i = 0; i < s->nl; i++)
		if (!strcmp(s->l[i].name, name))
			return &s->l[i];
	return NULL;
}

/* @n at @end; @costly: a larger value is slower (a cost, not a speed). */
static double pick(const struct ts_host_num *n, enum ts_host_end end, bool costly)
{
	if (end == TS_HOST_NOMINAL)
		return n->v;
	return (end == TS_HOST_SLOW) == costly ? n->high : n->low;
}

/* The first number along @h's from = chain that @get finds (@arg its
 * key), into *@n, with *@div the product of the speeds on the way (a cost
 * there is the number / *@div): 1, 0 when no host on the chain has it, or
 * negative with @err. */
static int along(const struct ts_host_set *s, const struct host *h,
		 const struct ts_host_num *(*get)(const struct host *h, const void *arg),
		 const void *arg, enum ts_host_end end, const struct ts_host_num **n, double *div,
		 char *err, size_t errlen)
{
	*div = 1;
	for (int depth = 0; depth < 16; depth++) {
		if ((*n = get(h, arg)))
			return 1;
		if (!h->from)
			return 0;
		const struct host *up = find_host(s, h->from, strlen(h->from));
		if (!up) {
			snprintf(err, errlen, "%s: host '%s': from = '%s' is not a host", h->where,
				 h->name, h->from);
			return -ENOENT;
		}
		*div *= pick(&h->speed, end, false);
		h = up;
	}
	snprintf(err, errlen, "%s: host '%s': its from = chain loops", h->where, h->name);
	return -ELOOP;
}

static const struct ts_host_num *get_field(const struct host *h, const void *arg)
{
	const struct ts_host_num *n = &h->f[*(const int *)arg];
	return n->set ? n : NULL;
}

/* Field @f of @h, carried along its from = chain (0 when no host on it sets
 * an optional one). */
static int field(const struct ts_host_set *s, const struct host *h, int f, enum ts_host_end end,
		 double *out, char *err, size_t errlen)
{
	const struct ts_host_num *n;
	double div;
	int rc = along(s, h, get_field, &f, end, &n, &div, err, errlen);
	if (rc < 0)
		return rc;
	/* A share is not a cost, nor a count of samples, nor a factor, nor
	 * the scheduler's slice: none scales with the speed. */
	*out = !rc ? 0
	       : f == TS_HF_DECODE_SHARE || f == TS_HF_DLIO_GC_AT || f == TS_HF_DLIO_SPREAD ||
				 f == TS_HF_DLIO_SPREAD_WAIT || f == TS_HF_DLIO_CPU_ALONE ||
				 f == TS_HF_DLIO_SLICE
		       ? pick(n, end, true)
		       : pick(n, end, true) / div;
	return 0;
}

static const struct ts_host_num *get_libfactor(const struct host *h, const void *arg)
{
	struct wstep k = { .key = (char *)arg };
	const struct wstep *w = h->nlf ? bsearch(&k, h->lf, h->nlf, sizeof(k), wstep_cmp) : NULL;
	return w ? &w->n : NULL;
}

/* The names a spec may give: library profiles (@libs), or host profiles,
 * with "this-machine" first where @this is set. */
static void known(const struct ts_host_set *s, char *buf, size_t n, bool libs, bool this)
{
	size_t used = (size_t)snprintf(buf, n, "%s", !libs && this ? TS_HOST_THIS : "");
	for (size_t i = 0; libs ? i < s->nl : i < s->nh; i++)
		if (used < n)
			used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "",
						 libs ? s->l[i].name : s->h[i].name);
}

int ts_host_cal(const struct ts_host_set *s, const char *spec, enum ts_host_end end,
		struct ts_decode_cal *cal, char *err, size_t errlen)
{
	const char *slash = strchr(spec, '/');
	size_t hn = slash ? (size_t)(slash - spec) : strlen(spec);
	const struct host *h = find_host(s, spec, hn);
	char list[1024];
	if (!h) {
		known(s, list, sizeof(list), false, true);
		snprintf(err, errlen, "host '%.*s' is not a host profile (known: %s; 'tiersim hosts' "
				      "lists them)",
			 (int)hn, spec, list);
		return -ENOENT;
	}
	if (!h->from && !h->f[TS_HF_DECODE_BASE].set) {
		snprintf(err, errlen, "host '%s' has DLIO's costs only ('tiersim hosts measure'); this "
				      "machine's decode cost is 'tiersim calibrate decode'", h->name);
		return -ENOENT;
	}
	const char *lname = slash ? slash + 1 : h->library ? h->library : "libjpeg-turbo";
	const struct lib *l = find_lib(s, lname);
	if (!l) {
		known(s, list, sizeof(list), true, false);
		snprintf(err, errlen, "host '%s': '%s' is not a library profile (known: %s)", h->name,
			 lname, list);
		return -ENOENT;
	}
	double v[TS_HF_NR];
	for (int f = 0; f < TS_HF_NR; f++) {
		int rc = field(s, h, f, end, &v[f], err, errlen);
		if (rc)
			return rc;
	}
	/* the library's factor, or the one measured on the nearest host of
	 * @h's chain that measured it (a factor, not a cost: no speed enters) */
	const struct ts_host_num *own;
	double div;
	int rc = along(s, h, get_libfactor, l->name, end, &own, &div, err, errlen);
	if (rc < 0)
		return rc;
	const struct ts_host_num *factor = rc ? own : l->transform.set ? &l->transform : &l->decode;
	double mult = l->transform.set ? pick(factor, end, true)
				       : v[TS_HF_DECODE_SHARE] * pick(factor, end, true) +
						 (1 - v[TS_HF_DECODE_SHARE]);
	memset(cal, 0, sizeof(*cal));
	cal->base_ns = v[TS_HF_DECODE_BASE] * mult;
	cal->ns_per_mpix = v[TS_HF_DECODE_MPIX] * mult;
	cal->xform_ns = v[TS_HF_DATUM_XFORM] + v[TS_HF_DATUM_PARSE];
	cal->put_ns = v[TS_HF_LMDB_PUT];
	cal->loader_sample_ns = v[TS_HF_LOADER_SAMPLE];
	cal->loader_batch_ns = v[TS_HF_LOADER_BATCH];
	double img = cal->base_ns + cal->ns_per_mpix * MEAN_MPIX;
	cal->full_ips = img > 0 ? 1e9 / img : 0;
	cal->decode_ips = 0; /* not kept apart in a profile */
	cal->images = 1;
	snprintf(cal->cpu, sizeof(cal->cpu), "host %s/%s%s", h->name, l->name,
		 end == TS_HOST_FAST ? " (fast end)" : end == TS_HOST_SLOW ? " (slow end)" : "");
	return 0;
}

static const struct ts_host_num *get_wstep(const struct host *h, const void *arg)
{
	struct wstep k = { .key = (char *)arg };
	const struct wstep *w = h->nws ? bsearch(&k, h->ws, h->nws, sizeof(k), wstep_cmp) : NULL;
	return w ? &w->n : NULL;
}

/* What one host of a from = chain says of a DLIO workload's step cost:
 * its "MODEL/FORMAT" entry, then its "MODEL" entry, then its dlio_step_ns;
 * the first host on the chain that says any of them decides (the nearest
 * measurement wins, as for every other field). */
struct step_ask {
	const char *key[2]; /* "MODEL/FORMAT" (or NULL), "MODEL" (or NULL) */
	int *which;	    /* out: 0, 1 for key[0], key[1]; 2 for dlio_step_ns */
};

static const struct ts_host_num *get_step(const struct host *h, const void *arg)
{
	const struct step_ask *a = arg;
	for (int i = 0; i < 2; i++) {
		const struct ts_host_num *n = a->key[i] ? get_wstep(h, a->key[i]) : NULL;
		if (n) {
			*a->which = i;
			return n;
		}
	}
	*a->which = 2;
	return h->f[TS_HF_DLIO_STEP].set ? &h->f[TS_HF_DLIO_STEP] : NULL;
}

/* A format's reader line (read_host takes its two numbers together): the
 * _ns of the host that sets it, its _per_mib into *mib_n. */
struct pair_ask {
	int ns, mib;
	const struct ts_host_num **mib_n;
};

static const struct ts_host_num *get_pair(const struct host *h, const void *arg)
{
	const struct pair_ask *a = arg;
	if (!h->f[a->ns].set)
		return NULL;
	*a->mib_n = &h->f[a->mib];
	return &h->f[a->ns];
}

int ts_host_dlio_costs(const struct ts_host_set *s, const char *spec, const char *model,
		       const char *format, enum ts_host_end end, struct ts_host_dlio *out,
		       char *err, size_t errlen)
{
	size_t hn = strcspn(spec, "/");
	const struct host *h = find_host(s, spec, hn);
	if (!h) {
		char list[1024];
		known(s, list, sizeof(list), false, false);
		if (hn == strlen(TS_HOST_THIS) && !strncmp(spec, TS_HOST_THIS, hn)) {
			char path[4096];
			if (ts_host_this_path(path, sizeof(path)))
				snprintf(path, sizeof(path), "no HOME");
			snprintf(err, errlen, "host '" TS_HOST_THIS "' has no DLIO costs measured (%.*s): "
					      "run 'tiersim hosts measure --venv DLIO_VENV' first, or name "
					      "a host profile (known: %s)",
				 1024, path, list);
			return -ENOENT;
		}
		snprintf(err, errlen, "host '%.*s' is not a host profile (known: %s; 'tiersim hosts' "
				      "lists them)",
			 (int)hn, spec, list);
		return -ENOENT;
	}
	/* the fields taken one for one, each from the nearest host that sets it */
	const struct {
		int f;
		double *to;
	} plain[] = {
		{ TS_HF_DLIO_SAMPLE, &out->sample_ns },
		{ TS_HF_DLIO_MIB, &out->sample_ns_per_mib },
		{ TS_HF_DLIO_STEP, &out->step_ns },
		{ TS_HF_DLIO_JPEG, &out->jpeg_ns_per_mpix },
		{ TS_HF_DLIO_REQ, &out->request_ns },
		{ TS_HF_DLIO_REQ_MIB, &out->request_ns_per_mib },
		{ TS_HF_DLIO_REQ_D, &out->request_daemon_ns },
		{ TS_HF_DLIO_REQ_D_MIB, &out->request_daemon_ns_per_mib },
		{ TS_HF_DLIO_START, &out->start_ns },
		{ TS_HF_DLIO_START_W, &out->start_ns_per_worker },
		{ TS_HF_DLIO_RESTART, &out->restart_ns },
		{ TS_HF_DLIO_RESTART_W, &out->restart_ns_per_worker },
		{ TS_HF_DLIO_GC, &out->worker_gc_ns },
		{ TS_HF_DLIO_GC_AT, &out->worker_gc_samples },
		{ TS_HF_DLIO_SPREAD, &out->worker_spread },
		{ TS_HF_DLIO_WAIT, &out->request_wait_ns },
		{ TS_HF_DLIO_RUN, &out->run_request_ns },
		{ TS_HF_DLIO_COLLATE, &out->collate_ns_per_mib },
		{ TS_HF_DLIO_COLLATE_S, &out->collate_ns },
		{ TS_HF_DLIO_COLLATE_FRESH, &out->collate_fresh_ns_per_mib },
		{ TS_HF_DLIO_SPREAD_WAIT, &out->worker_spread_wait },
		{ TS_HF_DLIO_CPU_ALONE, &out->worker_cpu_alone },
		{ TS_HF_DLIO_SLICE, &out->core_slice_ns },
	};
	int rc = 0;
	for (size_t i = 0; !rc && i < TS_ARRAY_SIZE(plain); i++)
		rc = field(s, h, plain[i].f, end, plain[i].to, err, errlen);
	/* a format with its own reader's line: the nearest host on the chain
	 * that measured it decides, both numbers from it */
	static const struct {
		const char *format;
		int ns, mib;
	} own[] = { { "hdf5", TS_HF_DLIO_HDF5, TS_HF_DLIO_HDF5_MIB },
		    { "png", TS_HF_DLIO_PNG, TS_HF_DLIO_PNG_MIB } };
	out->sample_of = NULL;
	for (size_t i = 0; !rc && format && i < TS_ARRAY_SIZE(own); i++) {
		const struct ts_host_num *n;
		double div;
		if (strcmp(format, own[i].format))
			continue;
		const struct ts_host_num *mib = NULL;
		struct pair_ask a = { .ns = own[i].ns, .mib = own[i].mib, .mib_n = &mib };
		int w = along(s, h, get_pair, &a, end, &n, &div, err, errlen);
		if (w < 0)
			rc = w;
		else if (w) {
			out->sample_ns = pick(n, end, true) / div;
			out->sample_ns_per_mib = pick(mib, end, true) / div;
			out->sample_of = own[i].format;
		}
	}
	/* the step cost: the workload's own ("MODEL/FORMAT", then "MODEL"),
	 * else dlio_step_ns, from the nearest host on the chain that has any */
	char key[256];
	int which = 2;
	const struct ts_host_num *n = NULL;
	double div = 1;
	out->step_of = NULL;
	if (!rc && model) {
		if (format)
			snprintf(key, sizeof(key), "%s/%s", model, format);
		struct step_ask a = { .key = { format ? key : NULL, model }, .which = &which };
		int w = along(s, h, get_step, &a, end, &n, &div, err, errlen);
		if (w < 0)
			rc = w;
		else if (w && which < 2) {
			out->step_ns = pick(n, end, true) / div;
			out->step_of = which ? "model" : "model/format";
		}
	}
	out->vcpus = h->vcpus.set ? (uint64_t)h->vcpus.v : 0;
	return rc;
}

int ts_host_field_names(const struct ts_host_set *s, const char *name, const char *field,
			const char *id)
{
	const struct host *h = find_host(s, name, strlen(name));
	if (!h)
		return -ENOENT;
	for (int f = 0; f < TS_HF_NR; f++)
		if (!strcmp(field_names[f], field))
			return h->f[f].set && h->f[f].what && strstr(h->f[f].what, id) ? 1 : 0;
	return -EINVAL;
}

int ts_host_each_fit(const struct ts_host_set *s,
		     int (*fn)(void *ctx, const char *host, const char *field, const char *id),
		     void *ctx)
{
	for (size_t i = 0; i < s->nh; i++)
		for (int f = 0; f < TS_HF_NR; f++) {
			const char *w = s->h[i].f[f].set ? s->h[i].f[f].what : NULL;
			while (w && (w = strstr(w, "case "))) {
				w += 5;
				char id[128];
				size_t n = strspn(w, "abcdefghijklmnopqrstuvwxyz0123456789-_.");
				while (n && w[n - 1] == '.')
					n--; /* a sentence's full stop */
				if (!n || n >= sizeof(id))
					continue;
				snprintf(id, sizeof(id), "%.*s", (int)n, w);
				int rc = fn(ctx, s->h[i].name, field_names[f], id);
				if (rc)
					return rc;
			}
		}
	return 0;
}

bool ts_host_is_profile(const char *spec)
{
	return spec && *spec && strcmp(spec, TS_HOST_THIS);
}

int ts_host_resolve(const char *spec, struct ts_decode_cal *cal, char *err, size_t errlen)
{
	return ts_host_resolve_at(spec, TS_HOST_NOMINAL, cal, err, errlen);
}

int ts_host_resolve_at(const char *spec, enum ts_host_end end, struct ts_decode_cal *cal,
		       char *err, size_t errlen)
{
	struct ts_host_set *s;
	char sub[1024];
	int rc = ts_host_set_load_default(&s, sub, sizeof(sub));
	if (!rc) {
		rc = ts_host_cal(s, spec, end, cal, sub, sizeof(sub));
		ts_host_set_free(s);
	}
	if (rc)
		snprintf(err, errlen, "option 'host': %s", sub);
	return rc;
}

/* ---- Listing ---------------------------------------------------------------- */

static const char *label_name(enum ts_host_label l)
{
	static const char *const n[] = { "-", "measured", "spec", "assumed" };
	return l <= TS_HOST_ASSUMED ? n[l] : "?";
}

int ts_host_print_table(FILE *f, const struct ts_host_set *s)
{
	char err[512];
	fprintf(f, "%-18s %-15s %-6s %-14s %10s %10s %9s %8s  %s\n", "host", "from", "speed",
		"library", "JPEG img/s", "ns/Mpixel", "Datum us", "put us", "cpu");
	for (size_t i = 0; i < s->nh; i++) {
		const struct host *h = &s->h[i];
		struct ts_decode_cal c;
		if (!h->from && !h->f[TS_HF_DECODE_BASE].set) {
			if (fprintf(f, "%-18s %-15s %-6s %-14s %10s %10s %9s %8s  %s (DLIO's costs "
				       "only)\n", h->name, "-", "-", "-", "-", "-", "-", "-", h->cpu) < 0)
				return -EIO;
			continue;
		}
		if (ts_host_cal(s, h->name, TS_HOST_NOMINAL, &c, err, sizeof(err))) {
			fprintf(f, "%-18s %s\n", h->name, err);
			continue;
		}
		char sp[32] = "-";
		if (h->speed.set)
			snprintf(sp, sizeof(sp), "%.2f", h->speed.v);
		if (fprintf(f, "%-18s %-15s %-6s %-14s %10.0f %10.0f %9.0f %8.0f  %s\n", h->name,
			    h->from ? h->from : "-", sp, h->library ? h->library : "libjpeg-turbo",
			    c.full_ips, c.ns_per_mpix, c.xform_ns / 1e3, c.put_ns / 1e3, h->cpu) < 0)
			return -EIO;
	}
	fprintf(f, "\n%-18s %-9s %-8s %s\n", "library", "factor", "on", "what");
	for (size_t i = 0; i < s->nl; i++) {
		const struct lib *l = &s->l[i];
		const struct ts_host_num *n = l->transform.set ? &l->transform : &l->decode;
		if (fprintf(f, "%-18s %-9.2f %-8s %s\n", l->name, n->v,
			    l->transform.set ? "all" : "decode", l->desc ? l->desc : "") < 0)
			return -EIO;
	}
	fprintf(f, "\nJPEG img/s: decode + resize + crop + flip + normalize of the mean ImageNet "
		   "image (469x387) on one core;\nDatum us: a raw 256x256 Datum parsed and "
		   "transformed; put us: a Datum made and put into an LMDB.\n'%s' (the default) "
		   "charges today's calibration (tiersim calibrate decode) instead.\n",
		TS_HOST_THIS);
	return fflush(f) ? -EIO : 0;
}

static int ev_line(FILE *f, const char *who, const char *field, const struct ts_host_num *n)
{
	if (!n->set)
		return 0;
	char range[64] = "";
	if (n->low != n->v || n->high != n->v)
		snprintf(range, sizeof(range), " [%g..%g]", n->low, n->high);
	return fprintf(f, "%-18s %-19s %-9s %g%s  %s\n", who, field, label_name(n->label), n->v,
		       range, n->what) < 0
		       ? -EIO
		       : 0;
}

/* Host @name, or NULL with a line naming the known ones in @err. */
static const struct host *need_host(const struct ts_host_set *s, const char *name, char *err,
				    size_t errlen)
{
	const struct host *h = find_host(s, name, strlen(name));
	if (!h) {
		char list[1024];
		known(s, list, sizeof(list), false, false);
		snprintf(err, errlen, "host '%s' is not a host profile (known: %s; 'tiersim hosts' "
				      "lists them)",
			 name, list);
	}
	return h;
}

static int wake_cost(const struct ts_host_set *s, const char *name, uint64_t *ns, char *err,
		     size_t errlen)
{
	const struct host *h = need_host(s, name, err, errlen);
	if (!h)
		return -ENOENT;
	if (!h->wake_cost.set) {
		snprintf(err, errlen, "host '%s' has no replay_wake_cost_ns measured: give --wake-cost "
				      "DUR, or name a host that has (%s has)",
			 name, TS_HOST_REPLAY_DEFAULT);
		return -ENODATA;
	}
	*ns = (uint64_t)llround(h->wake_cost.v);
	return 0;
}

/* Host @h's figure at @off (its key @key, the replay's --@opt), 0 to @max
 * ns, into @ns: -ENODATA where @h has none measured. */
static int replay_figure(const struct host *h, const char *name, size_t off, const char *key,
			 const char *opt, double max, uint64_t *ns, char *err, size_t errlen)
{
	const struct ts_host_num *v = (const struct ts_host_num *)((const char *)h + off);
	if (!v->set) {
		snprintf(err, errlen,
			 "host '%s' has no %s measured: give --%s DUR, or name a "
			 "host that has (%s has)",
			 name, key, opt, TS_HOST_REPLAY_DEFAULT);
		return -ENODATA;
	}
	if (v->v < 0 || v->v > max) {
		snprintf(err, errlen, "host '%s': %s %g is not 0 to %gms", name, key, v->v,
			 max / 1e6);
		return -EINVAL;
	}
	*ns = (uint64_t)llround(v->v);
	return 0;
}

/* Host @name's (TS_HOST_REPLAY_DEFAULT for NULL) replay figure at @off in
 * @s: replay_figure(). */
static int replay_num(const struct ts_host_set *s, const char *name, size_t off, const char *key,
		      const char *opt, double max, uint64_t *ns, char *err, size_t errlen)
{
	if (!name)
		name = TS_HOST_REPLAY_DEFAULT;
	const struct host *h = need_host(s, name, err, errlen);
	return h ? replay_figure(h, name, off, key, opt, max, ns, err, errlen) : -ENOENT;
}

int ts_host_fuse_cpu(const struct ts_host_set *s, const char *name, uint64_t *ns,
		     uint64_t *page_ns, char *err, size_t errlen)
{
	if (!name)
		name = TS_HOST_REPLAY_DEFAULT;
	const struct host *h = need_host(s, name, err, errlen);
	if (!h)
		return -ENOENT;
	uint64_t n = 0, p = 0;
	int rc = replay_figure(h, name, offsetof(struct host, fuse_cpu), "replay_fuse_cpu_ns",
			       "fuse-cpu", 1e7, &n, err, errlen);
	/* the per-page figure is optional: 0 where none is measured */
	if (!rc && h->fuse_cpu_page.set)
		rc = replay_figure(h, name, offsetof(struct host, fuse_cpu_page),
				   "replay_fuse_cpu_page_ns", "fuse-cpu-page", 1e6, &p, err, errlen);
	if (!rc) {
		*ns = n;
		*page_ns = p;
	}
	return rc;
}

int ts_host_fuse_cpu_meta(const struct ts_host_set *s, const char *name, uint64_t *lookup_ns,
			  uint64_t *open_ns, uint64_t *getattr_ns, char *err, size_t errlen)
{
	if (!name)
		name = TS_HOST_REPLAY_DEFAULT;
	const struct host *h = need_host(s, name, err, errlen);
	if (!h)
		return -ENOENT;
	uint64_t req = 0, l = 0, o = 0, g = 0;
	int rc = 0;
	/* each is optional: a request's where the host has none of its own */
	if ((!h->fuse_cpu_lookup.set || !h->fuse_cpu_open.set || !h->fuse_cpu_getattr.set) &&
	    h->fuse_cpu.set)
		rc = replay_figure(h, name, offsetof(struct host, fuse_cpu), "replay_fuse_cpu_ns",
				   "fuse-cpu", 1e7, &req, err, errlen);
	l = o = g = req;
	if (!rc && h->fuse_cpu_lookup.set)
		rc = replay_figure(h, name, offsetof(struct host, fuse_cpu_lookup),
				   "replay_fuse_cpu_lookup_ns", "fuse-cpu-lookup", 1e7, &l, err, errlen);
	if (!rc && h->fuse_cpu_open.set)
		rc = replay_figure(h, name, offsetof(struct host, fuse_cpu_open),
				   "replay_fuse_cpu_open_ns", "fuse-cpu-open", 1e7, &o, err, errlen);
	if (!rc && h->fuse_cpu_getattr.set)
		rc = replay_figure(h, name, offsetof(struct host, fuse_cpu_getattr),
				   "replay_fuse_cpu_getattr_ns", "fuse-cpu-getattr", 1e7, &g, err,
				   errlen);
	if (!rc) {
		*lookup_ns = l;
		*open_ns = o;
		*getattr_ns = g;
	}
	return rc;
}

int ts_host_page_wake(const struct ts_host_set *s, const char *name, uint64_t *ns, char *err,
		      size_t errlen)
{
	return replay_num(s, name, offsetof(struct host, page_wake), "replay_page_wake_ns",
			  "page-wake", 1e6, ns, err, errlen);
}

int ts_host_dev_read_cpu(const struct ts_host_set *s, const char *name, uint64_t *ns, char *err,
			 size_t errlen)
{
	return replay_num(s, name, offsetof(struct host, dev_read_cpu), "replay_dev_read_cpu_ns",
			  "dev-read-cpu", 1e6, ns, err, errlen);
}

int ts_host_fuse_size(const struct ts_host_set *s, const char *name, uint64_t *ns, char *err,
		      size_t errlen)
{
	return replay_num(s, name, offsetof(struct host, fuse_size), "replay_fuse_size_ns",
			  "fuse-size", 1e6, ns, err, errlen);
}

int ts_host_fuse_ra(const struct ts_host_set *s, const char *name, uint64_t *ns, char *err,
		    size_t errlen)
{
	return replay_num(s, name, offsetof(struct host, fuse_ra), "replay_fuse_ra_ns", "fuse-ra",
			  1e6, ns, err, errlen);
}

int ts_host_fuse_stretch(const struct ts_host_set *s, const char *name, double *x, char *err,
			 size_t errlen)
{
	if (!name)
		name = TS_HOST_REPLAY_DEFAULT;
	const struct host *h = need_host(s, name, err, errlen);
	if (!h)
		return -ENOENT;
	if (!h->fuse_stretch.set) {
		snprintf(err, errlen,
			 "host '%s' has no replay_fuse_stretch measured: give --fuse-stretch X, "
			 "or name a host that has",
			 name);
		return -ENODATA;
	}
	if (!(h->fuse_stretch.v >= 1 && h->fuse_stretch.v <= 4)) {
		snprintf(err, errlen, "host '%s': replay_fuse_stretch %g is not 1 to 4", name,
			 h->fuse_stretch.v);
		return -EINVAL;
	}
	*x = h->fuse_stretch.v;
	return 0;
}

int ts_host_copy_tail_first(const struct ts_host_set *s, const char *name, bool *out,
			    char *err, size_t errlen)
{
	const struct host *h = need_host(s, name, err, errlen);
	if (!h)
		return -ENOENT;
	if (!h->copy_tf.set) {
		snprintf(err, errlen, "host '%s' has no copy_tail_first (its CPU's ERMS bit and "
				      "glibc's memcpy: pipeline/hosts.lua)",
			 name);
		return -ENODATA;
	}
	*out = h->copy_tf.v != 0;
	return 0;
}

int ts_host_map_window(const struct ts_host_set *s, const char *name, uint64_t *ns, char *err,
		       size_t errlen)
{
	const struct host *h = need_host(s, name, err, errlen);
	if (!h)
		return -ENOENT;
	if (!h->map_win.set) {
		snprintf(err, errlen, "host '%s' has no map_window_ns (pipeline/hosts.lua)", name);
		return -ENODATA;
	}
	*ns = (uint64_t)llround(h->map_win.v);
	return 0;
}

int ts_host_wake_cost(const char *name, uint64_t *ns, char *err, size_t errlen)
{
	struct ts_host_set *s;
	if (!name)
		name = TS_HOST_REPLAY_DEFAULT;
	int rc = ts_host_set_load_for(name, &s, err, errlen);
	if (!rc)
		rc = wake_cost(s, name, ns, err, errlen);
	ts_host_set_free(s);
	return rc;
}

int ts_host_replay_wake_cost(const struct ts_host_set *s, const char *name, uint64_t *ns,
			     char *err, size_t errlen)
{
	return wake_cost(s, name ? name : TS_HOST_REPLAY_DEFAULT, ns, err, errlen);
}

int ts_host_print_evidence(FILE *f, const struct ts_host_set *s)
{
	int rc = 0;
	fprintf(f, "%-18s %-19s %-9s %s\n", "host/library", "field", "label", "value  source");
	for (size_t i = 0; i < s->nh && !rc; i++) {
		const struct host *h = &s->h[i];
		rc = ev_line(f, h->name, "speed", &h->speed);
		if (!rc)
			rc = ev_line(f, h->name, "vcpus", &h->vcpus);
		if (!rc)
			rc = ev_line(f, h->name, "replay_wake_cost_ns", &h->wake_cost);
		if (!rc && h->fuse_cpu.set)
			rc = ev_line(f, h->name, "replay_fuse_cpu_ns", &h->fuse_cpu);
		if (!rc && h->fuse_cpu_page.set)
			rc = ev_line(f, h->name, "replay_fuse_cpu_page_ns", &h->fuse_cpu_page);
		if (!rc && h->fuse_cpu_lookup.set)
			rc = ev_line(f, h->name, "replay_fuse_cpu_lookup_ns", &h->fuse_cpu_lookup);
		if (!rc && h->fuse_cpu_open.set)
			rc = ev_line(f, h->name, "replay_fuse_cpu_open_ns", &h->fuse_cpu_open);
		if (!rc && h->fuse_cpu_getattr.set)
			rc = ev_line(f, h->name, "replay_fuse_cpu_getattr_ns", &h->fuse_cpu_getattr);
		if (!rc && h->page_wake.set)
			rc = ev_line(f, h->name, "replay_page_wake_ns", &h->page_wake);
		if (!rc && h->dev_read_cpu.set)
			rc = ev_line(f, h->name, "replay_dev_read_cpu_ns", &h->dev_read_cpu);
		if (!rc && h->fuse_size.set)
			rc = ev_line(f, h->name, "replay_fuse_size_ns", &h->fuse_size);
		if (!rc && h->fuse_ra.set)
			rc = ev_line(f, h->name, "replay_fuse_ra_ns", &h->fuse_ra);
		if (!rc && h->fuse_stretch.set)
			rc = ev_line(f, h->name, "replay_fuse_stretch", &h->fuse_stretch);
		if (!rc)
			rc = ev_line(f, h->name, "copy_tail_first", &h->copy_tf);
		if (!rc && h->map_win.set)
			rc = ev_line(f, h->name, "map_window_ns", &h->map_win);
		for (int k = 0; k < TS_HF_NR && !rc; k++)
			rc = ev_line(f, h->name, field_names[k], &h->f[k]);
		for (size_t k = 0; k < h->nws && !rc; k++) {
			char name[160];
			snprintf(name, sizeof(name), "dlio_workload_step_ns[%s]", h->ws[k].key);
			rc = ev_line(f, h->name, name, &h->ws[k].n);
		}
		for (size_t k = 0; k < h->nlf && !rc; k++) {
			char name[160];
			snprintf(name, sizeof(name), "library_factors[%s]", h->lf[k].key);
			rc = ev_line(f, h->name, name, &h->lf[k].n);
		}
	}
	for (size_t i = 0; i < s->nl && !rc; i++) {
		rc = ev_line(f, s->l[i].name, "decode", &s->l[i].decode);
		if (!rc)
			rc = ev_line(f, s->l[i].name, "transform", &s->l[i].transform);
	}
	return rc ? rc : fflush(f) ? -EIO : 0;
}

