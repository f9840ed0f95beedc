/*
 * profile.c — tier profiles: loading them from Lua files, what they mean at
 * a capacity, and the table `tierfs --list-tiers` prints.
 *
 * A profile file is a Lua data file (luadata/luadata.h): it runs in a
 * sandbox that holds only `tier` and a few pure functions (math, string,
 * tonumber...): no io, os, require or load, so a profile can compute but
 * cannot touch anything. A declaration reads
 *
 *     tier "ssd-cloud" { iops = { b = 30, cap = 20000 }, ... }
 *
 * and its line is recorded, which every later error about the tier names.
 * The tables are converted to C once the file has run; unknown fields are
 * errors.
 */
#include <inttypes.h>
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "luadata/luadata.h"
#include "core/paths.h"
#include "tier/tier_base.h"
#include "core/units.h"

/* A file system's layout (tier/fsmeta.h), as a data file declares it. */
enum fs_field {
	FS_BLOCK, FS_INODE_SIZE, FS_INODE_RA, FS_DIR_RA, FS_DIRENT_BASE, FS_EXTENT_MAX,
	FS_INLINE_EXTENTS, FS_LEAF_EXTENTS, FS_ROOT_INODE, FS_FIRST_INODE, FS_JOURNAL_COMMIT,
	FS_JOURNAL_REQUEST, FS_NR
};
static const char *const fs_names[FS_NR + 1] = {
	"block",	"inode_size",	 "inode_readahead_blocks", "dir_readahead_blocks",
	"dirent_base",	"extent_max",	 "inline_extents",	   "leaf_extents",
	"root_inode",	"first_inode",	 "journal_commit_s",	   "journal_request",
};

struct fs_profile {
	char *name, *desc, *where;
	struct ts_fsmeta_params p;
	struct ts_tier_evidence ev[FS_NR];
};

struct ts_tier_set {
	struct ts_tier_profile **p; /* declaration order */
	size_t n, cap;
	struct ts_tier_profile **retired; /* replaced by a user file, kept alive */
	size_t nretired, capretired;
	struct fs_profile **fs; /* file systems, declaration order */
	size_t nfs;
	struct fs_profile **fs_retired; /* replaced by a user file, kept alive */
	size_t nfs_retired;
};

/* ---- Loading ------------------------------------------------------------ */

static const char *const tier_keys[] = { "desc",	  "source",	    "capacity",
					 "iops",	  "read_iops",	    "write_iops",
					 "mibps",	  "read_mibps",	    "write_mibps",
					 "io_unit",	  "merge_sequential", "charge_full_unit",
					 "burst",	  "parallel",	    "latency",
					 "queue",	  "evidence",	    "cap_window",
					 NULL };

static const char *const fs_keys[] = { "desc",
				       "block",
				       "inode_size",
				       "inode_readahead_blocks",
				       "dir_readahead_blocks",
				       "dirent_base",
				       "extent_max",
				       "inline_extents",
				       "leaf_extents",
				       "root_inode",
				       "first_inode",
				       "journal_commit_s",
				       "journal_request",
				       "evidence",
				       NULL };

enum { K_TIER, K_FS };
static const struct ts_luadata_kind kinds[] = {
	[K_TIER] = { .name = "tier", .named = true, .keys = tier_keys },
	[K_FS] = { .name = "filesystem", .named = true, .keys = fs_keys },
	{ NULL },
};

/* Context for converting one tier table. */
struct conv {
	lua_State *L;
	struct ts_luadata *d;
	struct ts_luadata_decl decl;
	char *err;
	size_t errlen;
};

TS_PRINTF(3, 4)
static int conv_fail(struct conv *c, const char *field, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ts_luadata_error(c->d, &c->decl, c->err, c->errlen, "field '%s': %s", field, msg);
}

/* Every key of the table at @idx must be one of @known (NULL-terminated). */
static int check_keys(struct conv *c, int idx, const char *prefix, const char *const *known)
{
	return ts_luadata_check_keys(c->d, &c->decl, idx, prefix, known, c->err, c->errlen);
}

static void path_of(char *out, size_t n, const char *prefix, const char *k)
{
	snprintf(out, n, "%s%s%s", prefix, prefix[0] ? "." : "", k);
}

/* Pushes t[k] of the table at @idx; returns its type. */
static int get(struct conv *c, int idx, const char *k)
{
	return lua_getfield(c->L, idx, k);
}

enum kind { K_STRING, K_NUMBER, K_BOOL, K_SIZE, K_DURATION };

/*
 * Reads t[k] of the table at @idx into @out as @kind: a string (char *,
 * replaced), a number >= 0 (double), a boolean (bool), a size such as
 * "500GiB" or a number of bytes (uint64_t), a duration such as "1.5ms",
 * a bare number being seconds (double ns). Absent leaves @out alone and
 * sets *present (may be NULL) to false.
 */
static int get_field(struct conv *c, int idx, const char *prefix, const char *k, enum kind kind,
		     void *out, bool *present)
{
	static const char *const want[] = { "a string", "a number", "true or false",
					    "a size like \"500GiB\"",
					    "a duration like \"1.5ms\"" };
	lua_State *L = c->L;
	char f[96];
	int ty = get(c, idx, k);
	path_of(f, sizeof(f), prefix, k);
	if (present)
		*present = ty != LUA_TNIL;
	if (ty == LUA_TNIL) {
		lua_pop(L, 1);
		return 0;
	}
	bool ok = false;
	const char *s = ty == LUA_TSTRING || ty == LUA_TNUMBER ? lua_tostring(L, -1) : NULL;
	uint64_t u;
	double v;
	char *dup;
	switch (kind) {
	case K_STRING:
		if ((ok = ty == LUA_TSTRING)) {
			if (!(dup = strdup(s))) {
				lua_pop(L, 1);
				return -ENOMEM;
			}
			free(*(char **)out);
			*(char **)out = dup;
		}
		break;
	case K_NUMBER:
		v = lua_tonumber(L, -1);
		if ((ok = ty == LUA_TNUMBER && isfinite(v) && v >= 0))
			*(double *)out = v;
		break;
	case K_BOOL:
		if ((ok = ty == LUA_TBOOLEAN))
			*(bool *)out = lua_toboolean(L, -1);
		break;
	case K_SIZE:
		if ((ok = s && ts_parse_size(s, &u) == 0))
			*(uint64_t *)out = u;
		break;
	case K_DURATION:
		if ((ok = s && ts_parse_duration(s, TS_NS_PER_S, &u) == 0))
			*(double *)out = (double)u;
		break;
	}
	int rc = 0;
	if (!ok) {
		if (s)
			rc = conv_fail(c, f, "expected %s (>= 0), got '%s'", want[kind], s);
		else
			rc = conv_fail(c, f, "expected %s, got a %s", want[kind], lua_typename(L, ty));
	}
	lua_pop(L, 1);
	return rc;
}

/* A formula: a number (a constant), or { a=, b=, cap=, floor= }, or
 * { steps = { {from_gib, value}, ... } }. */
static int get_formula(struct conv *c, int idx, const char *prefix, const char *k,
		       struct ts_tier_formula *out)
{
	static const char *const keys[] = { "a", "b", "cap", "floor", "steps", NULL };
	lua_State *L = c->L;
	char f[96];
	int rc = 0;
	int base = lua_gettop(L);
	int ty = get(c, idx, k);
	path_of(f, sizeof(f), prefix, k);
	memset(out, 0, sizeof(*out));
	if (ty == LUA_TNIL)
		goto out;
	if (ty == LUA_TNUMBER) {
		double v = lua_tonumber(L, -1);
		if (!isfinite(v) || v < 0) {
			rc = conv_fail(c, f, "expected a number >= 0, got %g", v);
			goto out;
		}
		out->set = true;
		out->a = v;
		goto out;
	}
	if (ty != LUA_TTABLE) {
		rc = conv_fail(c, f, "expected a number or a table { a=, b=, cap=, floor= }, got a %s",
			       lua_typename(L, ty));
		goto out;
	}
	int t = lua_gettop(L);
	if ((rc = check_keys(c, t, f, keys)) || (rc = get_field(c, t, f, "a", K_NUMBER, &out->a, NULL)) ||
	    (rc = get_field(c, t, f, "b", K_NUMBER, &out->b, NULL)) ||
	    (rc = get_field(c, t, f, "cap", K_NUMBER, &out->cap, NULL)) ||
	    (rc = get_field(c, t, f, "floor", K_NUMBER, &out->floor, NULL)))
		goto out;
	out->set = true;
	char sf[112];
	snprintf(sf, sizeof(sf), "%s.steps", f);
	ty = lua_getfield(L, t, "steps");
	if (ty == LUA_TTABLE) {
		lua_Integer n = luaL_len(L, -1);
		if (n < 1 || n > TS_TIER_MAX_STEPS) {
			rc = conv_fail(c, sf, "expected 1 to %d steps, got %lld", TS_TIER_MAX_STEPS,
				       (long long)n);
			goto out;
		}
		for (lua_Integer i = 1; i <= n; i++) {
			lua_rawgeti(L, -1, i);
			lua_rawgeti(L, -1, 1);
			lua_rawgeti(L, -2, 2);
			bool ok = lua_type(L, -1) == LUA_TNUMBER && lua_type(L, -2) == LUA_TNUMBER;
			double from = lua_tonumber(L, -2), v = lua_tonumber(L, -1);
			lua_pop(L, 3);
			if (!ok || from < 0 || v < 0 ||
			    (i > 1 && from <= out->step[i - 2].from_gib)) {
				rc = conv_fail(c, sf,
					       "step %lld: expected { from_gib, value } with from_gib "
					       "increasing, numbers >= 0",
					       (long long)i);
				goto out;
			}
			out->step[i - 1].from_gib = from;
			out->step[i - 1].value = v;
		}
		out->nsteps = (unsigned)n;
	} else if (ty != LUA_TNIL) {
		rc = conv_fail(c, sf, "expected a table of { from_gib, value }");
	}
out:
	lua_settop(L, base);
	return rc;
}

static int get_dist(struct conv *c, int idx, const char *prefix, const char *k,
		    struct ts_tier_dist *out)
{
	static const char *const keys[] = { "p50", "p99", "lo", "hi", "fixed", "stall", NULL };
	static const char *const stall_keys[] = { "p", "lo", "hi", NULL };
	lua_State *L = c->L;
	char f[96], fs[112];
	int rc = 0;
	int base = lua_gettop(L);
	int ty = get(c, idx, k);
	path_of(f, sizeof(f), prefix, k);
	memset(out, 0, sizeof(*out));
	if (ty == LUA_TNIL)
		goto out;
	if (ty != LUA_TTABLE) {
		rc = conv_fail(c, f, "expected { p50=, p99= }, { lo=, hi= } or { fixed= }, got a %s",
			       lua_typename(L, ty));
		goto out;
	}
	int t = lua_gettop(L);
	bool h50, h99, hlo, hhi, hfix;
	double fix = 0;
	if ((rc = check_keys(c, t, f, keys)) ||
	    (rc = get_field(c, t, f, "p50", K_DURATION, &out->p50_ns, &h50)) ||
	    (rc = get_field(c, t, f, "p99", K_DURATION, &out->p99_ns, &h99)) ||
	    (rc = get_field(c, t, f, "lo", K_DURATION, &out->lo_ns, &hlo)) ||
	    (rc = get_field(c, t, f, "hi", K_DURATION, &out->hi_ns, &hhi)) ||
	    (rc = get_field(c, t, f, "fixed", K_DURATION, &fix, &hfix)))
		goto out;
	if (h50 && h99 && !hlo && !hhi && !hfix) {
		if (out->p50_ns <= 0 || out->p99_ns < out->p50_ns) {
			rc = conv_fail(c, f, "needs 0 < p50 <= p99");
			goto out;
		}
		out->kind = TS_TIER_DIST_LOGNORMAL;
	} else if (hlo && hhi && !h50 && !h99 && !hfix) {
		if (out->hi_ns < out->lo_ns) {
			rc = conv_fail(c, f, "needs lo <= hi");
			goto out;
		}
		out->kind = TS_TIER_DIST_UNIFORM;
		out->p50_ns = (out->lo_ns + out->hi_ns) / 2;
		out->p99_ns = out->lo_ns + 0.99 * (out->hi_ns - out->lo_ns);
	} else if (hfix && !h50 && !h99 && !hlo && !hhi) {
		out->kind = fix > 0 ? TS_TIER_DIST_FIXED : TS_TIER_DIST_NONE;
		out->p50_ns = out->p99_ns = fix;
	} else {
		rc = conv_fail(c, f, "give exactly one of p50+p99, lo+hi or fixed");
		goto out;
	}
	/* stall = { p=, lo=, hi= }: a second mode on top of the draw */
	int sty = get(c, t, "stall");
	path_of(fs, sizeof(fs), f, "stall");
	if (sty == LUA_TNIL)
		goto out;
	if (sty != LUA_TTABLE) {
		rc = conv_fail(c, fs, "expected { p=, lo=, hi= }, got a %s", lua_typename(L, sty));
		goto out;
	}
	int st = lua_gettop(L);
	bool hp, hslo, hshi;
	if ((rc = check_keys(c, st, fs, stall_keys)) ||
	    (rc = get_field(c, st, fs, "p", K_NUMBER, &out->stall_p, &hp)) ||
	    (rc = get_field(c, st, fs, "lo", K_DURATION, &out->stall_lo_ns, &hslo)) ||
	    (rc = get_field(c, st, fs, "hi", K_DURATION, &out->stall_hi_ns, &hshi)))
		goto out;
	if (!hp || !hslo || !hshi || !(out->stall_p >= 0 && out->stall_p <= 1) ||
	    out->stall_hi_ns < out->stall_lo_ns || out->kind == TS_TIER_DIST_NONE)
		rc = conv_fail(c, fs, "needs p (0..1), lo <= hi, on a latency that is set");
out:
	lua_settop(L, base);
	return rc;
}

/* The strings of @n evidence entries. */
static void ev_free(struct ts_tier_evidence *ev, int n)
{
	for (int i = 0; i < n; i++) {
		free(ev[i].what);
		free(ev[i].fit_case);
	}
}

static void profile_free(struct ts_tier_profile *p)
{
	if (!p)
		return;
	free(p->name);
	free(p->desc);
	free(p->source);
	free(p->where);
	ev_free(p->ev, TS_EV_NR);
	free(p);
}

/* ---- Evidence labels ------------------------------------------------------ */

/*
 * evidence = { FIELD = ENTRY, ... } where FIELD is iops, read_iops,
 * write_iops, mibps, read_mibps, write_mibps, burst or latency, and ENTRY
 * is { LABEL, "what", case = "validation case id", range = { LO, HI } }
 * with LABEL one of "measured", "spec", "assumed" (case optional; range,
 * the factors the value may be off by, 0 < LO <= 1 <= HI, required for
 * "assumed"). latency may also be
 * { read = ENTRY, write = ENTRY, meta = ENTRY, sync = ENTRY }. Once a
 * tier has an evidence table, every field it sets must be labelled and no
 * label may name a field it does not set.
 */
static const char *const ev_names[TS_EV_NR] = {
	"iops",		"read_iops",	 "write_iops",	 "mibps",
	"read_mibps",	"write_mibps",	 "burst",	 "queue",	 "cap_window",	 "latency.read",
	"latency.write", "latency.meta", "latency.sync",
};

const char *ts_tier_ev_field_name(enum ts_tier_ev_field f)
{
	return f < TS_EV_NR ? ev_names[f] : "?";
}

const char *ts_tier_ev_label_name(enum ts_tier_ev_label l)
{
	return ts_luadata_label_name((enum ts_luadata_label)l);
}

/* Whether @p sets field @f at all. */
static bool ev_field_set(const struct ts_tier_profile *p, enum ts_tier_ev_field f)
{
	switch (f) {
	case TS_EV_IOPS: return p->iops.set;
	case TS_EV_READ_IOPS: return p->read_iops.set;
	case TS_EV_WRITE_IOPS: return p->write_iops.set;
	case TS_EV_MIBPS: return p->mibps.set;
	case TS_EV_READ_MIBPS: return p->read_mibps.set;
	case TS_EV_WRITE_MIBPS: return p->write_mibps.set;
	case TS_EV_BURST: return p->burst != TS_TIER_BURST_NONE;
	case TS_EV_QUEUE: return p->queue.set;
	case TS_EV_CAP_WINDOW: return p->cap_window_ns > 0;
	case TS_EV_LAT_READ: return p->lat_read.kind != TS_TIER_DIST_NONE;
	case TS_EV_LAT_WRITE: return p->lat_write.kind != TS_TIER_DIST_NONE;
	case TS_EV_LAT_META: return p->lat_meta.kind != TS_TIER_DIST_NONE;
	case TS_EV_LAT_SYNC: return p->lat_sync.kind != TS_TIER_DIST_NONE;
	default: return false;
	}
}

/* One { LABEL, "what", case = ID, range = { LO, HI } } at @idx into @out:
 * luadata's evidence schema, in its factor form. */
static int ev_entry(struct conv *c, int idx, const char *field, struct ts_tier_evidence *out)
{
	struct ts_luadata_ev ev = { 0 };
	char what[112];

	snprintf(what, sizeof(what), "field 'evidence.%s'", field);
	int rc = ts_luadata_get_ev(c->d, &c->decl, idx, what, 0, NULL, &ev, c->err, c->errlen);
	if (rc)
		return rc;
	free(out->what);
	free(out->fit_case);
	out->label = (enum ts_tier_ev_label)ev.label;
	out->what = ev.source;
	out->fit_case = ev.fit_case;
	out->has_range = ev.has_range;
	out->lo = ev.lo;
	out->hi = ev.hi;
	return 0;
}
_Static_assert((int)TS_EV_MEASURED == (int)TS_LUADATA_MEASURED &&
		       (int)TS_EV_SPEC == (int)TS_LUADATA_SPEC &&
		       (int)TS_EV_ASSUMED == (int)TS_LUADATA_ASSUMED,
	       "a tier's evidence labels are luadata's");

static int conv_evidence(struct conv *c, int t, struct ts_tier_profile *p)
{
	static const char *const keys[] = { "iops",	  "read_iops",	 "write_iops", "mibps",
					    "read_mibps", "write_mibps", "burst",      "queue",
					    "cap_window", "latency",	 NULL };
	static const char *const lat_keys[] = { "read", "write", "meta", "sync", NULL };
	lua_State *L = c->L;
	int base = lua_gettop(L), rc = 0;
	int ty = lua_getfield(L, t, "evidence");
	if (ty == LUA_TNIL)
		goto out;
	if (ty != LUA_TTABLE) {
		rc = conv_fail(c, "evidence", "expected a table { FIELD = { LABEL, \"source\" } }");
		goto out;
	}
	int e = lua_gettop(L);
	p->has_evidence = true;
	if ((rc = check_keys(c, e, "evidence", keys)))
		goto out;
	for (int f = 0; f < TS_EV_LAT_READ && !rc; f++) {
		if (lua_getfield(L, e, ev_names[f]) != LUA_TNIL)
			rc = ev_entry(c, -1, ev_names[f], &p->ev[f]);
		lua_pop(L, 1);
	}
	if (rc)
		goto out;
	/* latency: one entry for every op, or one per op. */
	ty = lua_getfield(L, e, "latency");
	if (ty == LUA_TTABLE) {
		lua_rawgeti(L, -1, 1);
		bool whole = lua_type(L, -1) == LUA_TSTRING;
		lua_pop(L, 1);
		if (whole) {
			for (int f = TS_EV_LAT_READ; f <= TS_EV_LAT_SYNC && !rc; f++)
				if (ev_field_set(p, f))
					rc = ev_entry(c, -1, "latency", &p->ev[f]);
		} else if (!(rc = check_keys(c, -1, "evidence.latency", lat_keys))) {
			for (int f = TS_EV_LAT_READ; f <= TS_EV_LAT_SYNC && !rc; f++) {
				if (lua_getfield(L, -1, lat_keys[f - TS_EV_LAT_READ]) != LUA_TNIL)
					rc = ev_entry(c, -1, ev_names[f], &p->ev[f]);
				lua_pop(L, 1);
			}
		}
	} else if (ty != LUA_TNIL) {
		rc = conv_fail(c, "evidence.latency", "expected an entry or { read=, write=, ... }");
	}
	if (rc)
		goto out;
	for (int f = 0; f < TS_EV_NR; f++) {
		char fld[64];
		snprintf(fld, sizeof(fld), "evidence.%s", ev_names[f]);
		bool set = ev_field_set(p, f), labelled = p->ev[f].label != TS_EV_NONE;
		if (set && !labelled) {
			rc = conv_fail(c, fld, "missing: the tier sets %s, so label it \"measured\", "
					       "\"spec\" or \"assumed\" with its source",
				       ev_names[f]);
			break;
		}
		if (labelled && !set) {
			rc = conv_fail(c, fld, "labels %s, which the tier does not set", ev_names[f]);
			break;
		}
	}
out:
	lua_settop(L, base);
	return rc;
}

/* queue = { read_ahead_kb=, max_sectors_kb=, logical_block=, physical_block=,
 * rotational= }; what is not given keeps Linux's default (tier/tiers.lua). */
static int conv_queue(struct conv *c, int t, struct ts_tier_queue *q)
{
	static const char *const keys[] = { "read_ahead_kb",  "max_sectors_kb", "logical_block",
					    "physical_block", "rotational",	 NULL };
	lua_State *L = c->L;
	double ra = 128, ms = 1280;
	uint64_t lb = 512, pb = 512;
	int rc = 0;

	q->rotational = false;
	int ty = lua_getfield(L, t, "queue");
	if (ty == LUA_TTABLE) {
		int qt = lua_gettop(L);
		q->set = true;
		if ((rc = check_keys(c, qt, "queue", keys)) ||
		    (rc = get_field(c, qt, "queue", "read_ahead_kb", K_NUMBER, &ra, NULL)) ||
		    (rc = get_field(c, qt, "queue", "max_sectors_kb", K_NUMBER, &ms, NULL)) ||
		    (rc = get_field(c, qt, "queue", "logical_block", K_SIZE, &lb, NULL)) ||
		    (rc = get_field(c, qt, "queue", "physical_block", K_SIZE, &pb, NULL)) ||
		    (rc = get_field(c, qt, "queue", "rotational", K_BOOL, &q->rotational, NULL)))
			goto out;
	} else if (ty != LUA_TNIL) {
		rc = conv_fail(c, "queue", "expected a table");
		goto out;
	}
	if (ra != floor(ra) || ra < 0 || ra > 65536)
		rc = conv_fail(c, "queue.read_ahead_kb", "expected a whole number in [0, 65536]");
	else if (ms != floor(ms) || ms < 4 || ms > 65536)
		rc = conv_fail(c, "queue.max_sectors_kb", "expected a whole number in [4, 65536]");
	else if (lb < 512 || lb > 4096 || (lb & (lb - 1)))
		rc = conv_fail(c, "queue.logical_block", "expected 512, 1024, 2048 or 4096 bytes");
	else if (pb < lb || pb > 65536 || (pb & (pb - 1)))
		rc = conv_fail(c, "queue.physical_block",
			       "expected a power of two from logical_block to 64 KiB");
	q->read_ahead_kb = (unsigned)ra;
	q->max_sectors_kb = (unsigned)ms;
	q->logical_block = (unsigned)lb;
	q->physical_block = (unsigned)pb;
out:
	lua_pop(L, 1);
	return rc;
}

/* Converts the tier table at the top of the stack.
 *
 * Why one long function: it reads the tier table's keys one after the
 * other (capacity, burst, latency, ...), each refused with its key's name
 * on one error path; its length is the number of keys.
 */
static int conv_tier(struct conv *c, struct ts_tier_profile *p)
{
	static const char *const cap_keys[] = { "min", "max", "default", NULL };
	static const char *const burst_keys[] = { "kind", "iops", "mibps", "bucket", "below_gib",
						  NULL };
	static const char *const lat_keys[] = { "read", "write", "meta", "sync", NULL };
	lua_State *L = c->L;
	int t = lua_gettop(L);
	int rc;
	double par = 0;
	bool has;

	/* The top-level keys were checked against tier_keys by the loader. */
	if ((rc = get_field(c, t, "", "desc", K_STRING, &p->desc, NULL)) ||
	    (rc = get_field(c, t, "", "source", K_STRING, &p->source, NULL)) ||
	    (rc = get_formula(c, t, "", "iops", &p->iops)) ||
	    (rc = get_formula(c, t, "", "read_iops", &p->read_iops)) ||
	    (rc = get_formula(c, t, "", "write_iops", &p->write_iops)) ||
	    (rc = get_formula(c, t, "", "mibps", &p->mibps)) ||
	    (rc = get_formula(c, t, "", "read_mibps", &p->read_mibps)) ||
	    (rc = get_formula(c, t, "", "write_mibps", &p->write_mibps)) ||
	    (rc = get_field(c, t, "", "io_unit", K_SIZE, &p->io_unit, NULL)) ||
	    (rc = get_field(c, t, "", "merge_sequential", K_BOOL, &p->merge_sequential, NULL)) ||
	    (rc = get_field(c, t, "", "charge_full_unit", K_BOOL, &p->charge_full_unit, NULL)) ||
	    (rc = get_field(c, t, "", "parallel", K_NUMBER, &par, &has)) ||
	    (rc = get_field(c, t, "", "cap_window", K_DURATION, &p->cap_window_ns, NULL)))
		return rc;
	if (par != floor(par) || par > 65536)
		return conv_fail(c, "parallel", "expected a whole number in [0, 65536], got %g", par);
	p->parallel = (unsigned)par;
	if ((p->merge_sequential || p->charge_full_unit) && !p->io_unit)
		return conv_fail(c, p->merge_sequential ? "merge_sequential" : "charge_full_unit",
				 "needs io_unit");

	/* capacity = { min=, max=, default= } */
	p->cap_min = 1 * TS_GiB;
	p->cap_max = 64 * 1024 * TS_GiB;
	p->cap_default = 500 * TS_GiB;
	int ty = lua_getfield(L, t, "capacity");
	if (ty == LUA_TTABLE) {
		int ct = lua_gettop(L);
		if ((rc = check_keys(c, ct, "capacity", cap_keys)) ||
		    (rc = get_field(c, ct, "capacity", "min", K_SIZE, &p->cap_min, NULL)) ||
		    (rc = get_field(c, ct, "capacity", "max", K_SIZE, &p->cap_max, NULL)) ||
		    (rc = get_field(c, ct, "capacity", "default", K_SIZE, &p->cap_default, NULL)))
			return rc;
		if (p->cap_min > p->cap_max || p->cap_default < p->cap_min ||
		    p->cap_default > p->cap_max)
			return conv_fail(c, "capacity", "needs min <= default <= max");
	} else if (ty != LUA_TNIL) {
		return conv_fail(c, "capacity", "expected { min=, max=, default= }");
	}
	lua_pop(L, 1);

	/* burst = { kind=, iops=|mibps=, bucket=, below_gib= } */
	ty = lua_getfield(L, t, "burst");
	if (ty == LUA_TTABLE) {
		int bt = lua_gettop(L);
		char *kind = NULL;
		if ((rc = check_keys(c, bt, "burst", burst_keys)) ||
		    (rc = get_field(c, bt, "burst", "kind", K_STRING, &kind, NULL)))
			return rc;
		if (kind && strcmp(kind, "iops") == 0)
			p->burst = TS_TIER_BURST_IOPS;
		else if (kind && strcmp(kind, "bytes") == 0)
			p->burst = TS_TIER_BURST_BYTES;
		else
			rc = conv_fail(c, "burst.kind", "expected \"iops\" or \"bytes\", got %s%s%s",
				       kind ? "'" : "", kind ? kind : "nothing", kind ? "'" : "");
		free(kind);
		if (rc || (rc = get_formula(c, bt, "burst", "iops", &p->burst_iops)) ||
		    (rc = get_formula(c, bt, "burst", "mibps", &p->burst_mibps)) ||
		    (rc = get_formula(c, bt, "burst", "bucket", &p->bucket)) ||
		    (rc = get_field(c, bt, "burst", "below_gib", K_NUMBER, &p->burst_below_gib, NULL)))
			return rc;
		if (!p->bucket.set)
			return conv_fail(c, "burst.bucket", "is required");
		if (p->burst == TS_TIER_BURST_IOPS && (!p->burst_iops.set || !p->iops.set))
			return conv_fail(c, "burst.iops",
					 "an iops burst needs burst.iops and a baseline iops");
		if (p->burst == TS_TIER_BURST_BYTES && (!p->burst_mibps.set || !p->mibps.set))
			return conv_fail(c, "burst.mibps",
					 "a bytes burst needs burst.mibps and a baseline mibps");
	} else if (ty != LUA_TNIL) {
		return conv_fail(c, "burst", "expected a table");
	}
	lua_pop(L, 1);
	/* A window releases the IOPS caps; with a burst bucket the caps move
	 * with the credits, which no measured window covers. */
	if (p->cap_window_ns > 0 && p->burst != TS_TIER_BURST_NONE)
		return conv_fail(c, "cap_window", "a tier with a burst bucket cannot have one");
	if (p->cap_window_ns > 0 && !p->iops.set && !p->read_iops.set && !p->write_iops.set)
		return conv_fail(c, "cap_window", "releases IOPS caps, and the tier has none");

	if ((rc = conv_queue(c, t, &p->queue)))
		return rc;

	/* latency = { read=, write=, meta=, sync= } */
	ty = lua_getfield(L, t, "latency");
	if (ty == LUA_TTABLE) {
		int lt = lua_gettop(L);
		if ((rc = check_keys(c, lt, "latency", lat_keys)) ||
		    (rc = get_dist(c, lt, "latency", "read", &p->lat_read)) ||
		    (rc = get_dist(c, lt, "latency", "write", &p->lat_write)) ||
		    (rc = get_dist(c, lt, "latency", "meta", &p->lat_meta)) ||
		    (rc = get_dist(c, lt, "latency", "sync", &p->lat_sync)))
			return rc;
	} else if (ty != LUA_TNIL) {
		return conv_fail(c, "latency", "expected a table");
	}
	lua_pop(L, 1);
	return conv_evidence(c, t, p);
}

/* ---- File systems ------------------------------------------------------- */

static void fs_free(struct fs_profile *f)
{
	if (!f)
		return;
	free(f->name);
	free(f->desc);
	free(f->where);
	ev_free(f->ev, FS_NR);
	free(f);
}

/* Appends @f to the array *@v of *@n pointers. */
static int fs_push(struct fs_profile ***v, size_t *n, struct fs_profile *f)
{
	void *nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	(*v)[(*n)++] = f;
	return 0;
}

/* Field @k of the file system table at @t: a whole number in [@lo, @hi],
 * or for extent_max and journal_request a size above 0. Every field is
 * required: the rule has no figures of its own. */
static int fs_field(struct conv *c, int t, int k, double lo, double hi, uint64_t *out)
{
	double v = 0;
	bool had;
	bool size = k == FS_EXTENT_MAX || k == FS_JOURNAL_REQUEST;
	int rc = size ? get_field(c, t, "", fs_names[k], K_SIZE, out, &had)
		      : get_field(c, t, "", fs_names[k], K_NUMBER, &v, &had);
	if (rc)
		return rc;
	if (!had)
		return conv_fail(c, fs_names[k], "missing: a file system sets every field of its "
						 "layout (tier/tiers.lua says which)");
	if (size)
		return *out ? 0 : conv_fail(c, fs_names[k], "expected a size above 0");
	if (v != floor(v) || v < lo || v > hi)
		return conv_fail(c, fs_names[k], "expected a whole number in [%g, %g], got %g", lo,
				 hi, v);
	*out = (uint64_t)v;
	return 0;
}

/* filesystem "NAME" { block = , ..., evidence = { FIELD = ENTRY, ... } }:
 * the layout of tier/fsmeta.h, every field set and labelled. */
static int conv_fs(struct conv *c, struct fs_profile *f)
{
	static const double lim[FS_NR][2] = {
		[FS_BLOCK] = { 512, 65536 },	     [FS_INODE_SIZE] = { 128, 65536 },
		[FS_INODE_RA] = { 1, 1 << 20 },	     [FS_DIR_RA] = { 1, 1 << 20 },
		[FS_DIRENT_BASE] = { 1, 65536 },     [FS_INLINE_EXTENTS] = { 0, 1 << 20 },
		[FS_LEAF_EXTENTS] = { 1, 1 << 20 },  [FS_ROOT_INODE] = { 1, 1u << 31 },
		[FS_FIRST_INODE] = { 1, 1u << 31 }, [FS_JOURNAL_COMMIT] = { 1, 3600 },
	};
	lua_State *L = c->L;
	int t = lua_gettop(L), rc;
	uint64_t v[FS_NR] = { 0 };

	if ((rc = get_field(c, t, "", "desc", K_STRING, &f->desc, NULL)))
		return rc;
	for (int k = 0; k < FS_NR; k++)
		if ((rc = fs_field(c, t, k, lim[k][0], lim[k][1], &v[k])))
			return rc;
	if (v[FS_BLOCK] & (v[FS_BLOCK] - 1))
		return conv_fail(c, "block", "expected a power of two");
	if ((v[FS_INODE_SIZE] & (v[FS_INODE_SIZE] - 1)) || v[FS_INODE_SIZE] > v[FS_BLOCK])
		return conv_fail(c, "inode_size", "expected a power of two, at most block");
	if (v[FS_EXTENT_MAX] % v[FS_BLOCK])
		return conv_fail(c, "extent_max", "expected a whole number of blocks");
	if (v[FS_FIRST_INODE] <= v[FS_ROOT_INODE])
		return conv_fail(c, "first_inode", "expected above root_inode");
	if (v[FS_JOURNAL_REQUEST] % v[FS_BLOCK])
		return conv_fail(c, "journal_request", "expected a whole number of blocks");
	f->p = (struct ts_fsmeta_params){
		.block = (unsigned)v[FS_BLOCK],
		.inode_size = (unsigned)v[FS_INODE_SIZE],
		.inode_ra_blocks = (unsigned)v[FS_INODE_RA],
		.dir_ra_blocks = (unsigned)v[FS_DIR_RA],
		.dirent_base = (unsigned)v[FS_DIRENT_BASE],
		.extent_bytes = v[FS_EXTENT_MAX],
		.inline_extents = (unsigned)v[FS_INLINE_EXTENTS],
		.leaf_extents = (unsigned)v[FS_LEAF_EXTENTS],
		.root_inode = v[FS_ROOT_INODE],
		.first_inode = v[FS_FIRST_INODE],
		.journal_commit_ns = v[FS_JOURNAL_COMMIT] * TS_NS_PER_S,
		.journal_request = v[FS_JOURNAL_REQUEST],
	};

	int ty = lua_getfield(L, t, "evidence");
	if (ty != LUA_TTABLE) {
		lua_pop(L, 1);
		return conv_fail(c, "evidence", "missing: label every field { LABEL, \"source\" }");
	}
	int e = lua_gettop(L);
	rc = check_keys(c, e, "evidence", fs_names);
	for (int k = 0; k < FS_NR && !rc; k++) {
		if (lua_getfield(L, e, fs_names[k]) != LUA_TNIL)
			rc = ev_entry(c, -1, fs_names[k], &f->ev[k]);
		else
			rc = conv_fail(c, "evidence", "missing %s: label it \"measured\", \"spec\" or "
						      "\"assumed\" with its source",
				       fs_names[k]);
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	return rc;
}

/* Replaces the file system of @f's name in @set, or adds it; the one
 * replaced stays valid (a caller may hold its layout). */
static int fs_put(struct ts_tier_set *set, struct fs_profile *f)
{
	for (size_t j = 0; j < set->nfs; j++) {
		if (strcmp(set->fs[j]->name, f->name))
			continue;
		int rc = fs_push(&set->fs_retired, &set->nfs_retired, set->fs[j]);
		if (!rc)
			set->fs[j] = f;
		return rc;
	}
	return fs_push(&set->fs, &set->nfs, f);
}

const struct ts_fsmeta_params *ts_tier_set_fs(const struct ts_tier_set *set, const char *name)
{
	for (size_t i = 0; set && i < set->nfs; i++)
		if (strcmp(set->fs[i]->name, name) == 0)
			return &set->fs[i]->p;
	return NULL;
}

int ts_tier_set_fs_lookup(const struct ts_tier_set *set, const char *name,
			  const struct ts_fsmeta_params **out, char *err, size_t errlen)
{
	if ((*out = ts_tier_set_fs(set, name)))
		return 0;
	snprintf(err, errlen,
		 "no file system '%s' in the tier profiles (tier/tiers.lua declares it: "
		 "filesystem \"%s\" { ... })",
		 name, name);
	return TS_E_UNKNOWN;
}

static int set_push(struct ts_tier_profile ***v, size_t *n, size_t *cap,
		    struct ts_tier_profile *p)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		void *nv = realloc(*v, nc * sizeof(**v));
		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = nc;
	}
	(*v)[(*n)++] = p;
	return 0;
}

/* Runs @path and converts its tiers into @out (a fresh set). */
static int load_file(const char *path, struct ts_tier_set *out, char *err, size_t errlen)
{
	struct ts_luadata *d;
	int rc = ts_luadata_load(path, kinds, &d, err, errlen);
	if (rc == -ENOENT) {
		char why[512];
		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "tier profile %s", why);
	}
	if (rc)
		return rc;
	size_t n = ts_luadata_count(d);
	if (n == 0) {
		snprintf(err, errlen, "%s: declares no tier (write tier \"name\" { ... })", path);
		ts_luadata_free(d);
		return TS_E_PROFILE;
	}
	lua_State *L = ts_luadata_state(d);
	for (size_t i = 0; i < n && !rc; i++) {
		struct conv c = { .L = L, .d = d, .err = err, .errlen = errlen };
		ts_luadata_push(d, i, &c.decl);
		char where[512];
		snprintf(where, sizeof(where), "%s:%d", path, c.decl.line);
		if (c.decl.kind == &kinds[K_FS]) {
			struct fs_profile *f = calloc(1, sizeof(*f));
			if (!f || !(f->name = strdup(c.decl.name)) || !(f->where = strdup(where)))
				rc = -ENOMEM;
			else
				rc = conv_fs(&c, f);
			if (!rc)
				rc = fs_put(out, f);
			if (rc)
				fs_free(f);
			lua_settop(L, 0);
			continue;
		}
		struct ts_tier_profile *p = calloc(1, sizeof(*p));
		if (!p || !(p->name = strdup(c.decl.name)) || !(p->where = strdup(where))) {
			profile_free(p);
			rc = -ENOMEM;
			break;
		}
		rc = conv_tier(&c, p);
		if (!rc)
			rc = set_push(&out->p, &out->n, &out->cap, p);
		if (rc)
			profile_free(p);
		lua_settop(L, 0);
	}
	if (rc == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	ts_luadata_free(d);
	return rc;
}

int ts_tier_set_load(const char *path, struct ts_tier_set **out, char *err, size_t errlen)
{
	struct ts_tier_set *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	int rc = load_file(path, s, err, errlen);
	if (rc) {
		ts_tier_set_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

int ts_tier_set_load_default(struct ts_tier_set **out, char *err, size_t errlen)
{
	char path[4096];
	if (ts_data_find("tier/tiers.lua", path, sizeof(path))) {
		snprintf(err, errlen,
			 "tier/tiers.lua (the built-in tier profiles) not found; set "
			 "TIERSIM_DATADIR to the folder that holds tier/tiers.lua");
		return -ENOENT;
	}
	return ts_tier_set_load(path, out, err, errlen);
}

int ts_tier_set_add_file(struct ts_tier_set *set, const char *path, char *err, size_t errlen)
{
	struct ts_tier_set *add;
	int rc = ts_tier_set_load(path, &add, err, errlen);
	if (rc)
		return rc;
	/* Make room first, so that a failure leaves @set unchanged. */
	size_t need = set->n + add->n, needr = set->nretired + add->n;
	void *np = need > set->cap ? realloc(set->p, need * sizeof(*set->p)) : set->p;
	if (np) {
		set->p = np;
		set->cap = TS_MAX(set->cap, need);
	}
	void *nr = needr > set->capretired ? realloc(set->retired, needr * sizeof(*set->retired))
					   : set->retired;
	if (nr) {
		set->retired = nr;
		set->capretired = TS_MAX(set->capretired, needr);
	}
	if ((!np && need) || (!nr && needr)) { /* a file may declare file systems only */
		ts_tier_set_free(add);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	for (size_t i = 0; i < add->n; i++) {
		struct ts_tier_profile *p = add->p[i];
		size_t j = 0;
		while (j < set->n && strcmp(set->p[j]->name, p->name))
			j++;
		if (j < set->n) {
			/* A running model may still point at the old profile. */
			set->retired[set->nretired++] = set->p[j];
			set->p[j] = p;
		} else {
			set->p[set->n++] = p;
		}
	}
	add->n = 0;
	/* File systems: as tiers, a later file's replaces an earlier one's. */
	int rc2 = 0;
	for (size_t i = 0; i < add->nfs; i++) {
		if (!rc2 && !(rc2 = fs_put(set, add->fs[i])))
			add->fs[i] = NULL;
	}
	ts_tier_set_free(add);
	if (rc2)
		snprintf(err, errlen, "%s: out of memory", path);
	return rc2;
}

const struct ts_tier_profile *ts_tier_set_find(const struct ts_tier_set *set, const char *name)
{
	for (size_t i = 0; i < set->n; i++)
		if (strcmp(set->p[i]->name, name) == 0)
			return set->p[i];
	return NULL;
}

bool ts_tier_is_ebs(const struct ts_tier_profile *p)
{
	return p && p->name && !strncmp(p->name, "aws-", 4);
}

void ts_tier_ebs_of(const struct ts_tier_ebs_opts *o, struct ts_tier_ebs *out)
{
	*out = (struct ts_tier_ebs){ .iops = o->iops,
				     .max_iops = o->max_iops,
				     .bps = o->mbps * 1e6,
				     .max_bps = o->max_mbps * 1e6,
				     .burst_s = (double)o->burst_ns / 1e9 };
}

bool ts_tier_ebs_any(const struct ts_tier_ebs *e)
{
	return e->iops > 0 || e->bps > 0;
}

int ts_tier_set_lookup(const struct ts_tier_set *set, const char *name,
		       const struct ts_tier_profile **out, char *err, size_t errlen)
{
	*out = ts_tier_set_find(set, name);
	if (*out)
		return 0;
	size_t used = (size_t)snprintf(err, errlen, "unknown tier '%s'; known tiers:", name);
	for (size_t i = 0; i < set->n && used < errlen; i++)
		used += (size_t)snprintf(err + used, errlen - used, "%s %s", i ? "," : "",
					 set->p[i]->name);
	return TS_E_UNKNOWN;
}

size_t ts_tier_set_count(const struct ts_tier_set *set)
{
	return set->n;
}

const struct ts_tier_profile *ts_tier_set_at(const struct ts_tier_set *set, size_t i)
{
	return i < set->n ? set->p[i] : NULL;
}

void ts_tier_set_free(struct ts_tier_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->n; i++)
		profile_free(set->p[i]);
	for (size_t i = 0; i < set->nretired; i++)
		profile_free(set->retired[i]);
	for (size_t i = 0; i < set->nfs; i++)
		fs_free(set->fs[i]);
	for (size_t i = 0; i < set->nfs_retired; i++)
		fs_free(set->fs_retired[i]);
	free(set->p);
	free(set->retired);
	free(set->fs);
	free(set->fs_retired);
	free(set);
}

/* ---- Effective limits --------------------------------------------------- */

static double formula_at(const struct ts_tier_formula *f, double gib)
{
	if (!f->set)
		return 0;
	if (f->nsteps) {
		double v = f->step[0].value;
		for (unsigned i = 0; i < f->nsteps; i++)
			if (f->step[i].from_gib <= gib)
				v = f->step[i].value;
		return v;
	}
	double v = f->a + f->b * gib;
	if (f->cap > 0 && v > f->cap)
		v = f->cap;
	return v > f->floor ? v : f->floor;
}

int ts_tier_effective(const struct ts_tier_profile *p, uint64_t capacity,
		      struct ts_tier_limits *out, char *err, size_t errlen)
{
	char a[32], b[32], c[32];
	if (!capacity)
		capacity = p->cap_default;
	if (capacity < p->cap_min || capacity > p->cap_max) {
		snprintf(err, errlen, "tier '%s': capacity %s is outside its range %s to %s",
			 p->name, ts_fmt_size(a, sizeof(a), capacity),
			 ts_fmt_size(b, sizeof(b), p->cap_min), ts_fmt_size(c, sizeof(c), p->cap_max));
		return -ERANGE;
	}
	double gib = (double)capacity / (double)TS_GiB;
	const double mib = (double)TS_MiB;
	memset(out, 0, sizeof(*out));
	out->capacity = capacity;
	out->iops = formula_at(&p->iops, gib);
	out->read_iops = formula_at(&p->read_iops, gib);
	out->write_iops = formula_at(&p->write_iops, gib);
	out->bps = formula_at(&p->mibps, gib) * mib;
	out->read_bps = formula_at(&p->read_mibps, gib) * mib;
	out->write_bps = formula_at(&p->write_mibps, gib) * mib;
	out->io_unit = p->io_unit;
	out->parallel = p->parallel;

	bool burst = p->burst != TS_TIER_BURST_NONE;
	if (burst && p->burst_below_gib > 0 && gib >= p->burst_below_gib)
		burst = false;
	if (burst && p->burst == TS_TIER_BURST_IOPS) {
		out->burst_iops = formula_at(&p->burst_iops, gib);
		out->bucket_refill = out->iops;
		out->bucket_size = formula_at(&p->bucket, gib);
		burst = out->burst_iops > out->iops;
	} else if (burst && p->burst == TS_TIER_BURST_BYTES) {
		out->burst_bps = formula_at(&p->burst_mibps, gib) * mib;
		out->bucket_refill = out->bps;
		out->bucket_size = formula_at(&p->bucket, gib) * (double)TS_GiB;
		burst = out->burst_bps > out->bps;
	}
	/* Throughput that only holds while credits last (gp2 170-334 GiB). */
	if (burst && p->burst == TS_TIER_BURST_IOPS && p->burst_mibps.set)
		out->burst_bps = formula_at(&p->burst_mibps, gib) * mib;
	if (burst)
		out->burst = p->burst;
	else
		out->burst_iops = out->burst_bps = out->bucket_size = out->bucket_refill = 0;
	return 0;
}

/* ---- The --list-tiers table --------------------------------------------- */

static double pick(double dir, double comb)
{
	if (dir > 0 && comb > 0)
		return TS_MIN(dir, comb);
	return dir > 0 ? dir : comb;
}

static void fmt_num(char *buf, size_t n, double v, double scale)
{
	if (v <= 0)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.0f", v / scale);
}

/* p50/p99 of a latency; with a stall of more than 1% of requests the
 * 99th percentile is a stalled one: the body's median plus the stall's
 * (1 - 0.01/p) point (the body's spread left out). */
static void fmt_lat(char *buf, size_t n, const struct ts_tier_dist *d)
{
	char a[32], b[32];
	double p99 = d->p99_ns;
	if (d->stall_p > 0.01)
		p99 = d->p50_ns + d->stall_lo_ns +
		      (d->stall_hi_ns - d->stall_lo_ns) * (1 - 0.01 / d->stall_p);
	if (d->kind == TS_TIER_DIST_NONE)
		snprintf(buf, n, "0");
	else
		snprintf(buf, n, "%s/%s", ts_fmt_duration(a, sizeof(a), (uint64_t)d->p50_ns),
			 ts_fmt_duration(b, sizeof(b), (uint64_t)p99));
}

int ts_tier_print_table(FILE *f, const struct ts_tier_set *set, uint64_t capacity)
{
	fprintf(f, "%-17s %10s %8s %8s %8s %8s %19s %19s  %-27s %s\n", "tier", "capacity",
		"rd-IOPS", "wr-IOPS", "rd-MiB/s", "wr-MiB/s", "read p50/p99", "write p50/p99", "burst",
		"source");
	for (size_t i = 0; i < set->n; i++) {
		const struct ts_tier_profile *p = set->p[i];
		struct ts_tier_limits l;
		char err[256], cap[32], ri[16], wi[16], rb[16], wb[16], lr[48], lw[48], bu[48];
		uint64_t c = capacity;
		/* A capacity outside a tier's range is clamped into it (and shown). */
		if (c && c < p->cap_min)
			c = p->cap_min;
		if (c && c > p->cap_max)
			c = p->cap_max;
		if (ts_tier_effective(p, c, &l, err, sizeof(err)))
			continue;
		ts_fmt_size(cap, sizeof(cap), l.capacity);
		fmt_num(ri, sizeof(ri), pick(l.read_iops, l.iops), 1);
		fmt_num(wi, sizeof(wi), pick(l.write_iops, l.iops), 1);
		/* MiB/s, the unit of the formulas (Alibaba's "MB/s" is MiB/s,
		 * see tier/tiers.lua). */
		fmt_num(rb, sizeof(rb), pick(l.read_bps, l.bps), (double)TS_MiB);
		fmt_num(wb, sizeof(wb), pick(l.write_bps, l.bps), (double)TS_MiB);
		fmt_lat(lr, sizeof(lr), &p->lat_read);
		fmt_lat(lw, sizeof(lw), &p->lat_write);
		if (l.burst == TS_TIER_BURST_IOPS)
			snprintf(bu, sizeof(bu), "%.0f IOPS, %.3gM credits", l.burst_iops,
				 l.bucket_size / 1e6);
		else if (l.burst == TS_TIER_BURST_BYTES)
			snprintf(bu, sizeof(bu), "%.0f MiB/s, %.0f GiB credits",
				 l.burst_bps / (double)TS_MiB, l.bucket_size / (double)TS_GiB);
		else if (p->cap_window_ns > 0)
			snprintf(bu, sizeof(bu), "IOPS in %.4g ms windows", p->cap_window_ns / 1e6);
		else
			snprintf(bu, sizeof(bu), "-");
		if (fprintf(f, "%-17s %10s %8s %8s %8s %8s %19s %19s  %-27s %s\n", p->name, cap, ri,
			    wi, rb, wb, lr, lw, bu, p->source ? p->source : "-") < 0)
			return -EIO;
	}
	return fflush(f) ? -errno : 0;
}

/* ---- The evidence table ---------------------------------------------------- */

/* The widest of @n strings (at least @min). */
static int widest(int min, const char *const *v, size_t n)
{
	size_t w = (size_t)min;
	for (size_t i = 0; i < n; i++)
		if (v[i])
			w = TS_MAX(w, strlen(v[i]));
	return (int)TS_MIN(w, 64);
}

int ts_tier_print_evidence(FILE *f, const struct ts_tier_set *set)
{
	/* columns as wide as their longest entry: field names, fitted cases */
	int wf = TS_MAX(widest(5, ev_names, TS_EV_NR), widest(5, fs_names, FS_NR)), wc = 14;
	for (size_t i = 0; i < set->n; i++)
		for (int k = 0; k < TS_EV_NR; k++)
			if (set->p[i]->has_evidence && set->p[i]->ev[k].label != TS_EV_NONE &&
			    set->p[i]->ev[k].fit_case)
				wc = TS_MAX(wc, (int)TS_MIN(strlen(set->p[i]->ev[k].fit_case), 64));
	fprintf(f, "%-17s %-*s %-9s %-13s %-*s %s\n", "tier", wf, "field", "label", "range", wc,
		"fitted to case", "source");
	for (size_t i = 0; i < set->n; i++) {
		const struct ts_tier_profile *p = set->p[i];
		if (!p->has_evidence) {
			if (fprintf(f, "%-17s %-*s %-9s %-13s %-*s %s\n", p->name, wf, "*", "-", "-",
				    wc, "-", "no evidence table (unlabelled)") < 0)
				return -EIO;
			continue;
		}
		for (int k = 0; k < TS_EV_NR; k++) {
			const struct ts_tier_evidence *e = &p->ev[k];
			if (e->label == TS_EV_NONE)
				continue;
			char range[32] = "-";
			if (e->has_range)
				snprintf(range, sizeof(range), "x%.3g-x%.3g", e->lo, e->hi);
			if (fprintf(f, "%-17s %-*s %-9s %-13s %-*s %s\n", p->name, wf, ev_names[k],
				    ts_tier_ev_label_name(e->label), range, wc,
				    e->fit_case ? e->fit_case : "-", e->what) < 0)
				return -EIO;
		}
	}
	/* the file systems' layouts (tier/fsmeta.h), each field labelled */
	for (size_t i = 0; i < set->nfs; i++) {
		const struct fs_profile *fp = set->fs[i];
		char who[64];
		snprintf(who, sizeof(who), "fs %s", fp->name);
		for (int k = 0; k < FS_NR; k++) {
			const struct ts_tier_evidence *e = &fp->ev[k];
			char range[32] = "-";
			if (e->has_range)
				snprintf(range, sizeof(range), "x%.3g-x%.3g", e->lo, e->hi);
			if (fprintf(f, "%-17s %-*s %-9s %-13s %-*s %s\n", who, wf, fs_names[k],
				    ts_tier_ev_label_name(e->label), range, wc,
				    e->fit_case ? e->fit_case : "-", e->what) < 0)
				return -EIO;
		}
	}
	/* the page-cache model's own: the reader's time per window a map's
	 * fault issues (tier_base.h, TS_TIER_MAP_WINDOW_NS) */
	char range[32], mid[16], lo[16], hi[16];
	snprintf(range, sizeof(range), "x%.3g-x%.3g",
		 (double)TS_TIER_MAP_WINDOW_LO_NS / (double)TS_TIER_MAP_WINDOW_NS,
		 (double)TS_TIER_MAP_WINDOW_HI_NS / (double)TS_TIER_MAP_WINDOW_NS);
	if (fprintf(f, "%-17s %-*s %-9s %-13s %-*s %s the reader spends per window a map's fault "
		    "issues, before it is sent (its run through a window to the next request): "
		    "bench/window_gap.sh, block mode, ssd-cloud, 3 runs; low %s over a loop device "
		    "on tmpfs, high %s the slowest run\n",
		    "page cache", wf, "map_window", ts_tier_ev_label_name(TS_EV_MEASURED), range, wc,
		    "-", ts_fmt_duration(mid, sizeof(mid), TS_TIER_MAP_WINDOW_NS),
		    ts_fmt_duration(lo, sizeof(lo), TS_TIER_MAP_WINDOW_LO_NS),
		    ts_fmt_duration(hi, sizeof(hi), TS_TIER_MAP_WINDOW_HI_NS)) < 0)
		return -EIO;
	return fflush(f) ? -errno : 0;
}

/* ---- The uncertainty band ------------------------------------------------ */

static void scale_formula(struct ts_tier_formula *f, double k)
{
	f->a *= k;
	f->b *= k;
	f->cap *= k;
	f->floor *= k;
	for (unsigned i = 0; i < f->nsteps; i++)
		f->step[i].value *= k;
}

static void scale_dist(struct ts_tier_dist *d, double k)
{
	d->p50_ns *= k;
	d->p99_ns *= k;
	d->lo_ns *= k;
	d->hi_ns *= k;
	d->stall_lo_ns *= k;
	d->stall_hi_ns *= k;
}

unsigned ts_tier_profile_band(const struct ts_tier_profile *p, int end,
			      struct ts_tier_profile *out, char *names, size_t n)
{
	*out = *p;
	if (n)
		names[0] = 0;
	if (!end)
		return 0;
	struct ts_tier_formula *caps[TS_EV_NR] = {
		[TS_EV_IOPS] = &out->iops,	       [TS_EV_READ_IOPS] = &out->read_iops,
		[TS_EV_WRITE_IOPS] = &out->write_iops, [TS_EV_MIBPS] = &out->mibps,
		[TS_EV_READ_MIBPS] = &out->read_mibps, [TS_EV_WRITE_MIBPS] = &out->write_mibps,
	};
	struct ts_tier_dist *lat[TS_EV_NR] = {
		[TS_EV_LAT_READ] = &out->lat_read, [TS_EV_LAT_WRITE] = &out->lat_write,
		[TS_EV_LAT_META] = &out->lat_meta, [TS_EV_LAT_SYNC] = &out->lat_sync,
	};
	unsigned moved = 0;
	size_t used = 0;
	for (int f = 0; f < TS_EV_NR; f++) {
		const struct ts_tier_evidence *e = &p->ev[f];
		if (!e->has_range || !ev_field_set(p, (enum ts_tier_ev_field)f))
			continue;
		/* Slower: less of a cap, more of a latency. */
		double cap_k = end < 0 ? e->lo : e->hi, lat_k = end < 0 ? e->hi : e->lo;
		if (caps[f]) {
			scale_formula(caps[f], cap_k);
		} else if (lat[f]) {
			scale_dist(lat[f], lat_k);
		} else if (f == TS_EV_CAP_WINDOW) {
			out->cap_window_ns *= lat_k; /* slower: a longer window */
		} else if (f == TS_EV_BURST) {
			scale_formula(&out->burst_iops, cap_k);
			scale_formula(&out->burst_mibps, cap_k);
			scale_formula(&out->bucket, cap_k);
		}
		moved++;
		if (used < n) {
			int w = snprintf(names + used, n - used, "%s%s", used ? ", " : "", ev_names[f]);
			used = w < 0 ? n : TS_MIN(n, used + (size_t)w);
		}
	}
	return moved;
}
