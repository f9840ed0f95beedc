/* test_own_window.c — find-max's merge window from the device's own draws
 * (workloads/dlio_run.c own_window_of) with an earlier walk's draws kept
 * (draws_memo, as draws_end records it) and without: the same window the
 * caller takes (the least of it and the cap, a reach of 0 read as none),
 * for each cap, and the cap itself wherever the whole draws' reach is the
 * cap or more; with cap 0 (no cap) every draw's reach, memo or not. Over
 * a table of distributions (a lognormal, one with a stall, a fixed one)
 * and of walks against draws: the walk's draws fewer, as many and more
 * than own_window's (the memo unused where more). The static functions
 * are this test's own: dlio_run.c is compiled into it. */
#include "workloads/dlio_run.c"

#include "tests/tcheck.h"

/* what accel_stops keeps of own_window's answer under @cap */
static uint64_t taken(uint64_t own, uint64_t cap)
{
	return own && own < cap ? own : cap;
}

struct dist_case {
	const char *name;
	struct ts_tier_dist lat;
};

static const struct dist_case dists[] = {
	{ "lognormal", { .kind = TS_TIER_DIST_LOGNORMAL, .p50_ns = 250e3, .p99_ns = 1.2e6 } },
	{ "lognormal+stall",
	  { .kind = TS_TIER_DIST_LOGNORMAL, .p50_ns = 250e3, .p99_ns = 1.2e6, .stall_p = 1e-4,
	    .stall_lo_ns = 5e6, .stall_hi_ns = 20e6 } },
	{ "fixed", { .kind = TS_TIER_DIST_FIXED, .p50_ns = 400e3 } },
};

/* the walk: its samples (steps of batch 1) and leaves, own_window's draws */
struct walk_case {
	uint64_t steps, lv, n;
};

static const struct walk_case walks[] = {
	{ 100000, 7, 50000 },	 /* the walk drew more than own_window's n: memo unused */
	{ 100000, 7, 100008 },	 /* exactly its n (blocks of 8 over 100,000 samples + 1) */
	{ 100000, 7, 300000 },	 /* the rest drawn past the memo, over OWN_CHUNK */
	{ 4000, 0x3ff, 1000000 }, /* one block per 1024 draws, most of n past it */
};

static void pass_model_for(struct pass_model *m, const struct ts_tier_dist *d)
{
	*m = (struct pass_model){ .qd = 64, .pf = 4, .delta = 20e3, .delta_leaf = 10e3,
				  .rho = 0, .seq = true, .draws = true, .lat = d,
				  .mw_cap = 1e9, .mw_least = 4096 };
	bool logn = d->kind == TS_TIER_DIST_LOGNORMAL && d->p99_ns > d->p50_ns;
	double sigma = logn ? log(d->p99_ns / d->p50_ns) / TS_Z99 : 0;
	for (int q = 0; q < (int)TS_ARRAY_SIZE(m->ex); q++) /* as pass_model_of */
		m->ex[q] = d->p50_ns * exp(sigma * (q / 64.0 - TS_RNG_ZIG_MAX)) * (1 + 1e-9);
	m->lam = dist_max_ns(d) + 2;
}

/* An own walk with leaves from @r0 (draws_end, DRAWS_OWN), its memo into @dm */
static void walk(struct pass_model *pm, const struct walk_case *wc, struct ts_rng r0,
		 struct draws_memo *dm)
{
	static struct accel A;
	static struct ts_dlio_workload w;
	w.batch_size = 1;
	memset(&A, 0, sizeof(A));
	A.w = &w;
	A.n = 1;
	A.step_ns = 1000;
	A.ct = 1000;
	A.pm = *pm;
	A.pm.memo = dm;
	*dm = (struct draws_memo){ 0 };
	struct ts_rng r = r0;
	double end = draws_end(&A, 0, wc->steps, 0, 0, 0, 0, wc->lv, DRAWS_OWN, &r);
	CHECK(end > 0);
	CHECK(dm->n && !memcmp(&dm->from, &r0, sizeof(r0)) && !memcmp(&dm->to, &r, sizeof(r)));
}

int main(void)
{
	static struct pass_model m;
	for (size_t i = 0; i < TS_ARRAY_SIZE(dists); i++) {
		pass_model_for(&m, &dists[i].lat);
		for (size_t j = 0; j < TS_ARRAY_SIZE(walks); j++) {
			const struct walk_case *wc = &walks[j];
			struct ts_rng r0;
			ts_rng_seed(&r0, 0x5eed + 17 * j);
			struct draws_memo dm;
			walk(&m, wc, r0, &dm);
			/* every draw, no memo, no cap */
			uint64_t all = own_window_of(&m, r0, wc->n, 0, NULL);
			uint64_t all_memo = own_window_of(&m, r0, wc->n, 0, &dm);
			if (all != all_memo)
				fprintf(stderr, "%s walk %zu: %" PRIu64 " without the memo, %" PRIu64
					" with\n", dists[i].name, j, all, all_memo);
			CHECK(all == all_memo);
			CHECK(all > m.qd); /* the reach is known here: the caps below mean something */
			/* the memo's draws alone where own_window's are exactly
			 * them: its largest is the walk's */
			if (dm.n == wc->n)
				CHECK(all == own_reach(&m, dm.most));
			/* a memo from another stream, or of another distribution,
			 * is not taken */
			struct draws_memo other = dm;
			other.from.s[0] ^= 1;
			CHECK(own_window_of(&m, r0, wc->n, 0, &other) == all);
			other = dm;
			other.lat.p50_ns *= 2;
			other.most *= 2;
			CHECK(own_window_of(&m, r0, wc->n, 0, &other) == all);
			const uint64_t caps[] = { 1, m.qd, all / 2, all - 1, all, all + 1, 2 * all,
						  UINT64_MAX };
			for (size_t c = 0; c < TS_ARRAY_SIZE(caps); c++) {
				uint64_t cap = caps[c];
				uint64_t plain = own_window_of(&m, r0, wc->n, cap, NULL);
				uint64_t memo = own_window_of(&m, r0, wc->n, cap, &dm);
				CHECK(taken(plain, cap) == taken(all, cap));
				CHECK(taken(memo, cap) == taken(all, cap));
				/* reached: the cap exactly, and the draws stopped
				 * where the reach passed it */
				if (all >= cap) {
					CHECK(taken(plain, cap) == cap && taken(memo, cap) == cap);
					CHECK(plain >= cap && memo >= cap);
				} else {
					CHECK(plain == all && memo == all);
				}
			}
		}
	}
	return tc_exit();
}
