/*
 * setup.c — a replay set up from a trace, once for every command that
 * predicts one (tiersim replay; tiersim record's predictions and its
 * probe rule): the trace read, its wake file, the tier profiles, and the
 * tier model's options as the recording ran them (replay.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/opt.h"
#include "core/ts.h"
#include "tier/fsmeta.h"
#include "traces/tier_rule.h"
#include "traces/replay/replay.h"
#include "traces/replay/replay_int.h"

const char *const ts_replay_over_names[TS_REPLAY_OVER_N] = { "capacity", "mem", "seed", "floor" };

/*
 * A lookup told from a getattr, for the in-kernel rule's FUSE CPU
 * (rules.c, fuse_cpu). libfuse's high-level API answers a LOOKUP with its
 * getattr, so a trace holds both as GETATTR, and tierfs cannot tell them
 * apart: an fstat's FUSE_GETATTR carries no file handle (the kernel's
 * fuse_getattr passes none; libfuse's debug log shows "getattr[NULL]"),
 * only a read past the end of a kernel-cached file does. The kernel sends
 * a LOOKUP only for a name it holds no valid entry of: one not looked up
 * yet, or looked up more than entry_timeout ago (tierfs's is libfuse's
 * default, 1 s), and a successful lookup, create, mkdir, mknod, symlink,
 * link or rename gives it one. So a GETATTR sent while its path's entry
 * was valid is a getattr (an fstat, or a stat after the attributes were
 * invalidated, as a read's atime does), and so is every GETATTR of the
 * root, which the kernel always holds; the rest are lookups. Left as a
 * lookup: an fstat more than entry_timeout after its name's lookup, and a
 * GETATTR after the kernel dropped a valid entry early (memory pressure,
 * an invalidation).
 */
#define ENTRY_TIMEOUT_NS TS_NS_PER_S

struct at_submit {
	uint64_t ns;
	size_t i;
};

static int cmp_at_submit(const void *a, const void *b)
{
	const struct at_submit *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static bool gives_entry(uint16_t op)
{
	return op == TS_OP_GETATTR || op == TS_OP_CREATE || op == TS_OP_MKDIR ||
	       op == TS_OP_MKNOD || op == TS_OP_SYMLINK;
}

int replay_mark_getattrs(struct ts_trace *t)
{
	struct at_submit *o = malloc((t->nrecs ? t->nrecs : 1) * sizeof(*o));
	uint64_t *held = malloc(((size_t)t->npaths + 1) * sizeof(*held)); /* entry valid until */
	if (!o || !held) {
		free(o);
		free(held);
		return -ENOMEM;
	}
	size_t n = 0;
	for (size_t i = 0; i < t->nrecs; i++) {
		uint16_t op = t->recs[i].op;
		if (gives_entry(op) || op == TS_OP_LINK || op == TS_OP_RENAME ||
		    op == TS_OP_UNLINK || op == TS_OP_RMDIR)
			o[n++] = (struct at_submit){ t->recs[i].submit_ns, i };
	}
	qsort(o, n, sizeof(*o), cmp_at_submit);
	for (uint32_t k = 0; k <= t->npaths; k++)
		held[k] = 0;
	for (size_t k = 0; k < n; k++) {
		struct ts_trace_rec *r = &t->recs[o[k].i];
		uint32_t id = r->file_id < t->npaths ? r->file_id : 0;
		uint32_t to = r->aux < t->npaths ? r->aux : 0;
		uint64_t until = r->complete_ns + ENTRY_TIMEOUT_NS;
		if (r->op == TS_OP_GETATTR && id &&
		    (r->submit_ns < held[id] || (t->paths[id] && !strcmp(t->paths[id], "/")))) {
			r->flags |= REC_F_ATTR;
			continue;
		}
		if (r->result < 0)
			continue;
		if (gives_entry(r->op))
			held[id] = until;
		else if (r->op == TS_OP_LINK)
			held[to] = until;
		else if (r->op == TS_OP_RENAME) {
			held[id] = 0;
			held[to] = until;
		} else {
			held[id] = 0; /* unlink, rmdir */
		}
	}
	free(o);
	free(held);
	return 0;
}

int ts_replay_open(struct ts_replay_set *s, const struct ts_replay_from *from,
		   const struct ts_replay_cfg *cfg, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	memset(&s->cfg.tier, 0, sizeof(s->cfg.tier));
	s->cfg.wakes = NULL;
	int rc = ts_trace_read(from->trace, &s->t, err, errlen);
	if (rc)
		return rc;
	s->opened = true;
	if (!ts_trace_warning(&s->t, s->warn, sizeof(s->warn)))
		s->warn[0] = 0;
	/* A trace without CPU samples cannot tell work from waiting: every gap
	 * is think time (the closed-loop rule). */
	if (!s->t.cpu && !s->cfg.closed_loop && !s->cfg.no_think) {
		s->cfg.closed_loop = true;
		s->no_cpu = true;
	}
	if (!from->no_wakes) {
		int w = from->wakes ? ts_wakes_read(from->wakes, &s->wk, err, errlen)
				    : ts_replay_wakes_beside(from->trace, &s->wk, err, errlen);
		if (w < 0)
			return w;
		if (from->wakes || w == 1)
			s->cfg.wakes = &s->wk;
		if (s->cfg.wakes && from->lock_wakes_ns) /* --lock-wakes */
			ts_wakes_drop_short(&s->wk, from->lock_wakes_ns);
	}
	if (from->tiers &&
	    ((rc = ts_tier_set_load_default(&s->set, err, errlen)) ||
	     (from->profile && *from->profile &&
	      (rc = ts_tier_set_add_file(s->set, from->profile, err, errlen)))))
		return rc;
	/* The tier model's options: the defaults, the recording's, then the
	 * caller's overrides. */
	if ((rc = ts_opt_defaults(ts_tier_cfg_opts, &s->cfg.tier, err, errlen)))
		return rc;
	s->tier_opts = true;
	ts_replay_tier_recorded(&s->t, &s->cfg.tier);
	s->rec_floor = s->cfg.tier.floor_ns;
	for (size_t i = 0; i < TS_REPLAY_OVER_N; i++) {
		char sub[384];
		if (from->over[i] && ts_opt_set(ts_tier_cfg_opts, &s->cfg.tier,
						ts_replay_over_names[i], from->over[i], sub,
						sizeof(sub))) {
			snprintf(err, errlen, "--%s: %s", ts_replay_over_names[i], sub);
			s->bad_override = true;
			return TS_E_PARSE;
		}
	}
	if (from->ebs) {
		s->cfg.tier.ebs = *from->ebs;
		s->ebs_given = true;
	}
	s->ebs = s->cfg.tier.ebs;
	/* Block mode: tierfs took the loop device's hop off every modeled
	 * latency with FUSE's round trip (fs/timing.c), and both are in the
	 * recorded gaps: the model is driven with the two, as tierfs drove
	 * it, and a kernel file system on a VM's disk pays neither. */
	s->cfg.loop_recorded = (s->t.hdr.model & TS_TRACE_MODEL_LOOP_HOP) != 0;
	/* a disk image's mount: no lookup or extent leaf of the image itself
	 * (with --loop-hop=false too, from trace format 8 on) */
	s->cfg.image = (s->t.hdr.model & TS_TRACE_MODEL_IMAGE) != 0;
	s->rec_hop = s->cfg.loop_recorded ? s->t.hdr.loop_hop_ns : 0;
	s->cfg.rt_ns = s->rec_floor + s->rec_hop;
	s->cfg.tier.floor_ns += s->rec_hop;
	s->cfg.loop_hop_ns = s->rec_hop;
	/* and its size and window parts, taken off each read's reply */
	if (s->cfg.loop_recorded && s->t.hdr.model & TS_TRACE_MODEL_LOOP_PARTS) {
		s->cfg.loop_size_ns = s->t.hdr.loop_size_ns;
		s->cfg.loop_window_ns = s->t.hdr.loop_window_ns;
	}
	/* tierfs's carry= (traces/tier_rule.h): its replies went early by
	 * the round trips each thread owed; a prediction of the same FUSE
	 * job on another tier replies so too. Not on a kernel file system
	 * (kernel_fs: no round trips at all), nor for a disk image's mount
	 * (tierfs does not carry there). */
	s->cfg.carry = (s->t.hdr.model & TS_TRACE_MODEL_CARRY) && !s->cfg.image &&
		       !s->cfg.kernel_fs;
	if (s->cfg.kernel_fs) {
		/* the recording's floor, or --floor's, and the hop */
		s->cfg.think_less_ns = s->cfg.tier.floor_ns;
		s->cfg.tier.floor_ns = 0;
		s->cfg.loop_hop_ns = 0;
		/* a getattr's FUSE CPU apart from a lookup's */
		if ((rc = replay_mark_getattrs(&s->t)))
			return rc;
	}
	return 0;
}

int ts_replay_predict(struct ts_replay_set *s, const char *tier, struct ts_replay_result *res,
		      char *err, size_t errlen)
{
	int rc;
	if (!s->set) {
		snprintf(err, errlen, "%s: the tier profiles were not loaded", tier);
		return -EINVAL;
	}
	if ((rc = ts_tier_set_lookup(s->set, tier, &s->cfg.tier.profile, err, errlen)))
		return rc;
	s->cfg.tier.ebs = ts_tier_is_ebs(s->cfg.tier.profile) ? s->ebs : (struct ts_tier_ebs){ 0 };
	if ((rc = ts_tier_set_fs_lookup(s->set, TS_FSMETA_NAME, &s->cfg.fs, err, errlen)) ||
	    (rc = ts_replay_virtual(&s->t, &s->cfg, res, err, errlen)))
		return rc;
	snprintf(res->what, sizeof(res->what), "%s", tier);
	return 0;
}

/*
 * The probe rule. Predicting from one recording assumes that what the
 * application waited on kept its recorded pace (the wait rule): from a run
 * where the application was IO-bound, that pace is not in the trace, and
 * a faster tier is predicted as if the consumer were infinitely fast. A
 * second run on another tier shows another pace. Each prediction is then
 * a lower bound under its own recording's assumption, and each tier's
 * prediction is the larger of the two.
 */
int ts_replay_predict_probe(struct ts_replay_set *s, struct ts_replay_set *probe,
			    const char *tier, struct ts_replay_result *res, char *err,
			    size_t errlen)
{
	struct ts_replay_result alt;
	int rc = ts_replay_predict(s, tier, res, err, errlen);
	if (rc || !probe)
		return rc;
	if ((rc = ts_replay_predict(probe, tier, &alt, err, errlen)))
		return rc;
	if (alt.total_ns > res->total_ns) {
		*res = alt;
		snprintf(res->what, sizeof(res->what), "%s (probe)", tier);
	}
	return 0;
}

void ts_replay_close(struct ts_replay_set *s)
{
	ts_tier_set_free(s->set);
	if (s->tier_opts)
		ts_opt_free(ts_tier_cfg_opts, &s->cfg.tier);
	if (s->opened)
		ts_trace_free(&s->t);
	ts_wakes_free(&s->wk);
	memset(s, 0, sizeof(*s));
}
