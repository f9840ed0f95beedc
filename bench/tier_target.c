/*
 * tier_target.c — what the tier model says a fio job should achieve: the
 * "target" column of bench/tier_fidelity.sh.
 *
 *   tier_target TIER rw|randrw-kind BS QD SECONDS [CAPACITY]
 *     kind: read, randread, write, randwrite
 *
 * Runs the job as fio's closed loop does (QD requests in flight; each
 * completion issues the next at once) against the same model tierfs uses,
 * in virtual time with no FUSE floor (validation/fiojob.c, which `tiersim
 * validate` uses too), so the result is what an application on the
 * emulated disk should measure. Prints one line:
 *   iops=N mbps=N p50_ns=N p99_ns=N
 * (MB/s in 10^6 bytes, as fio reports; latency percentiles of completion
 * minus submission, from core/hist.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "tier/tier.h"
#include "validation/fiojob.h"

#define FILE_SIZE (256 * TS_MiB) /* the file bench/tier_fidelity.sh uses */

int main(int argc, char **argv)
{
	char err[512];
	struct ts_tier_set *set;
	const struct ts_tier_profile *p;
	uint64_t capacity = 0;
	struct ts_fiojob job = { .numjobs = 1, .size = FILE_SIZE, .seed = 1 };
	struct ts_fiojob_result res;

	if (argc < 6) {
		fprintf(stderr, "usage: tier_target TIER read|randread|write|randwrite BS QD SECONDS "
				"[CAPACITY]\n");
		return 2;
	}
	job.random = strncmp(argv[2], "rand", 4) == 0;
	job.write = strstr(argv[2], "write") != NULL;
	int qd = atoi(argv[4]);
	if (ts_parse_size(argv[3], &job.bs) || job.bs == 0 || qd < 1 ||
	    qd > TS_FIOJOB_MAX_INFLIGHT || ts_parse_duration(argv[5], TS_NS_PER_S, &job.runtime) ||
	    (argc > 6 && ts_parse_size(argv[6], &capacity))) {
		fprintf(stderr, "tier_target: bad BS, QD, SECONDS or CAPACITY\n");
		return 2;
	}
	job.iodepth = (unsigned)qd;
	if (ts_tier_set_load_default(&set, err, sizeof(err)) ||
	    ts_tier_set_lookup(set, argv[1], &p, err, sizeof(err))) {
		fprintf(stderr, "tier_target: %s\n", err);
		return 1;
	}
	int rc = ts_fiojob_run(p, capacity, &job, &res, err, sizeof(err));
	ts_tier_set_free(set);
	if (rc) {
		fprintf(stderr, "tier_target: %s\n", err);
		return 1;
	}
	printf("iops=%.1f mbps=%.2f p50_ns=%.0f p99_ns=%.0f\n", res.iops, res.mbps, res.lat_p50_ns,
	       res.lat_p99_ns);
	return 0;
}
