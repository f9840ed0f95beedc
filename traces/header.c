/*
 * header.c — the tier model's options in a trace header. Version 3 stores
 * them as fields (struct ts_trace_hdr, traces/FORMAT.md); versions 1 and 2
 * had them only in mount_opts, as the "k=v" text tierfs wrote, which the
 * readers turn into the same fields here, once, so that nothing else
 * parses that text. Block mode's loop hop came into the header as a field
 * only with version 6, its size part with version 7 (with the window part,
 * new then); tierfs wrote them into mount_opts before, as
 * "loop_hop=Nns(label)" and "loop_hop_128k=Nns(measured)", which are read
 * here for the versions before. Whether the mount served a disk image
 * (block mode) has its own bit from version 8; before, the hop's bit
 * stood for it, which is read here too. Whether tierfs carried round trips
 * (carry=) has its own bit from version 10; before, tierfs wrote
 * "carry=true" into mount_opts, which is read here.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/opt.h"
#include "core/units.h"
#include "traces/trace.h"

/* The keys tierfs wrote (tier/tier.c's ts_tier_cfg_opts, whose names and
 * types they were), each with its field and bit. */
static const struct {
	struct ts_opt opt;
	uint32_t bit;
} legacy[] = {
	{ { "capacity", TS_OPT_SIZE, offsetof(struct ts_trace_hdr, capacity) },
	  TS_TRACE_MODEL_CAPACITY },
	{ { "mem", TS_OPT_SIZE, offsetof(struct ts_trace_hdr, mem) }, TS_TRACE_MODEL_MEM },
	{ { "seed", TS_OPT_U64, offsetof(struct ts_trace_hdr, seed) }, TS_TRACE_MODEL_SEED },
	{ { "floor", TS_OPT_DURATION, offsetof(struct ts_trace_hdr, floor_ns) },
	  TS_TRACE_MODEL_FLOOR },
	{ { "dirty_limit", TS_OPT_SIZE, offsetof(struct ts_trace_hdr, dirty_limit) },
	  TS_TRACE_MODEL_DIRTY_LIMIT },
	{ { "ra_max", TS_OPT_SIZE, offsetof(struct ts_trace_hdr, ra_max) },
	  TS_TRACE_MODEL_RA_MAX },
	{ { "mem_rate", TS_OPT_RATE, offsetof(struct ts_trace_hdr, mem_bps) },
	  TS_TRACE_MODEL_MEM_BPS },
};

/* A count of ns that tierfs wrote into mount_opts as "KEY=Nns(label)"
 * (fs/trace_hook.c), into *x, and whether its label was "off": 1 when
 * found, 0 when absent or cut off at the end of a full mount_opts (nothing
 * known), or -EINVAL with one line in @why. */
static int legacy_ns(const struct ts_trace_hdr *h, const char *key, uint64_t *x, bool *off,
		     char *why, size_t n)
{
	const char *p = h->mount_opts, *kv = NULL;
	size_t klen = strlen(key);
	for (const char *q = p; (q = strstr(q, key)); q++)
		if ((q == p || q[-1] == ',') && q[klen] == '=')
			kv = q;
	if (!kv)
		return 0;
	char num[32];
	const char *v = kv + klen + 1, *end = strstr(v, "ns(");
	size_t len = end ? (size_t)(end - v) : 0;
	if (!end && strlen(p) == sizeof(h->mount_opts) - 1 && !strchr(v, ','))
		return 0; /* cut off at the field's end: none known */
	if (!len || len >= sizeof(num) || memchr(v, ',', len)) {
		snprintf(why, n, "%s: '%.*s' is not a count of ns followed by \"ns(\"", key,
			 (int)strcspn(v, ","), v);
		return -EINVAL;
	}
	memcpy(num, v, len);
	num[len] = 0;
	if (strspn(num, "0123456789") != len || ts_parse_duration(num, 1, x)) {
		snprintf(why, n, "%s: '%s' is not a count of ns", key, num);
		return -EINVAL;
	}
	*off = !strncmp(end + strlen("ns("), "off)", 4);
	return 1;
}

/* The loop hop of a header older than version 6, from its mount_opts:
 * "loop_hop=Nns(label)"; the label "off" is a mount that took none off
 * (FUSE mode, or block mode with --loop-hop=false). */
static int legacy_hop(struct ts_trace_hdr *h, char *why, size_t n)
{
	uint64_t x = 0;
	bool off = false;
	int rc = legacy_ns(h, "loop_hop", &x, &off, why, n);
	if (rc <= 0)
		return rc;
	h->loop_hop_ns = off ? 0 : x;
	if (!off)
		h->model |= TS_TRACE_MODEL_LOOP_HOP;
	return 0;
}

/* Its size part, older than version 7: "loop_hop_128k=Nns(measured)" after
 * the hop, the window part none (not measured before version 7). Only
 * with the hop: a size part is the loop device's too. */
static int legacy_parts(struct ts_trace_hdr *h, char *why, size_t n)
{
	uint64_t x = 0;
	bool off = false;
	int rc = legacy_ns(h, "loop_hop_128k", &x, &off, why, n);
	if (rc <= 0 || off || !(h->model & TS_TRACE_MODEL_LOOP_HOP))
		return rc < 0 ? rc : 0;
	h->loop_size_ns = x;
	h->loop_window_ns = 0;
	h->model |= TS_TRACE_MODEL_LOOP_PARTS;
	return 0;
}

/* The fields an older header kept in mount_opts. */
static int legacy_fields(struct ts_trace_hdr *h, char *why, size_t n)
{
	char buf[sizeof(h->mount_opts)], *save = NULL;

	int rc;
	if (h->version >= 7)
		return 0;
	if (h->version == 6)
		return legacy_parts(h, why, n);
	if (h->version >= 3)
		return (rc = legacy_hop(h, why, n)) ? rc : legacy_parts(h, why, n);
	h->model = 0;
	snprintf(buf, sizeof(buf), "%s", h->mount_opts);
	for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '='), err[160];
		if (!eq)
			continue; /* "imported from ...": a description */
		*eq = 0;
		for (size_t i = 0; i < TS_ARRAY_SIZE(legacy); i++) {
			const struct ts_opt tab[2] = { legacy[i].opt, { NULL } };
			struct ts_trace_hdr v = { 0 };
			if (strcmp(kv, tab[0].name))
				continue;
			if (ts_opt_set(tab, &v, kv, eq + 1, err, sizeof(err))) {
				snprintf(why, n, "%s=%s: %s", kv, eq + 1, err);
				return -EINVAL;
			}
			uint64_t x, *field = (uint64_t *)((char *)h + tab[0].off);
			memcpy(&x, (const char *)&v + tab[0].off, sizeof(x));
			/* capacity and mem: the header's own, where it has them */
			if (!*field || !(legacy[i].bit & (TS_TRACE_MODEL_CAPACITY | TS_TRACE_MODEL_MEM)))
				*field = x;
			h->model |= legacy[i].bit;
		}
	}
	return (rc = legacy_hop(h, why, n)) ? rc : legacy_parts(h, why, n);
}

/* Whether mount_opts turn carry= on, as tierfs wrote it before version
 * 10: the last "carry=" among them is true, yes, on or 1. */
static bool legacy_carry(const char *opts)
{
	bool on = false;
	for (const char *p = opts; *p;) {
		size_t k = strcspn(p, ",");
		if (k > 6 && !strncmp(p, "carry=", 6)) {
			const char *v = p + 6;
			size_t m = k - 6;
			on = (m == 4 && !strncmp(v, "true", 4)) || (m == 3 && !strncmp(v, "yes", 3)) ||
			     (m == 2 && !strncmp(v, "on", 2)) || (m == 1 && *v == '1');
		}
		p += k;
		p += *p == ',';
	}
	return on;
}

int ts_trace_hdr_legacy(struct ts_trace_hdr *h, char *why, size_t n)
{
	int rc = legacy_fields(h, why, n);
	/* Before version 8 only block mode took a loop hop off (tiersim disk
	 * mount passes image and loop_hop together): a hop says the mount
	 * served a disk image. A recording made there with --loop-hop=false
	 * carries neither, and so replays as a directory's would. */
	if (!rc && h->version < 8 && h->model & TS_TRACE_MODEL_LOOP_HOP)
		h->model |= TS_TRACE_MODEL_IMAGE;
	/* tierfs carried where it wrote carry=true (versions 7 to 9) */
	if (!rc && h->version < 10 && legacy_carry(h->mount_opts))
		h->model |= TS_TRACE_MODEL_CARRY;
	return rc;
}
