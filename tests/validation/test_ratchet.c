/*
 * test_ratchet.c — the verdict of a validation run (validation/ratchet.c): a
 * known miss is counted outside, same-run checks and fits are not scored,
 * and the run fails when fewer cases are inside than the baseline lists,
 * on an unexplained miss, a fit off or a case that failed to run. The
 * baseline file round-trips and a malformed one is refused by line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tcheck.h"
#include "validation/ratchet.h"

static const struct ts_case_outcome run1[] = {
	{ "a", TS_OUTCOME_INSIDE },   { "b", TS_OUTCOME_INSIDE },   { "c", TS_OUTCOME_KNOWN },
	{ "d", TS_OUTCOME_FIT },      { "e", TS_OUTCOME_SAME_RUN }, { "f", TS_OUTCOME_NOT_RUNNABLE },
	{ "g", TS_OUTCOME_INSIDE },
};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f && fputs(text, f) >= 0);
	if (f)
		fclose(f);
}

int main(void)
{
	char dir[] = "/tmp/test_ratchet.XXXXXX", path[128], err[512];
	CHECK(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/baseline", dir);
	struct ts_verdict v;
	struct ts_ratchet r;

	/* Counting, no ratchet: a known miss is outside, not inside; fits,
	 * same-run and unrunnable cases are not checking cases. */
	ts_verdict_judge(run1, TS_ARRAY_SIZE(run1), NULL, &v);
	CHECK_EQ_U64(v.checks, 4);
	CHECK_EQ_U64(v.inside, 3);
	CHECK_EQ_U64(v.known, 1);
	CHECK_EQ_U64(v.outside, 0);
	CHECK_EQ_U64(v.fits, 1);
	CHECK_EQ_U64(v.same_run, 1);
	CHECK_EQ_U64(v.not_runnable, 1);
	CHECK(v.pass);

	/* A missing baseline is an empty one only when asked for. */
	CHECK(ts_ratchet_load(path, false, &r, err, sizeof(err)) == -ENOENT);
	CHECK(strstr(err, path));
	CHECK(ts_ratchet_load(path, true, &r, err, sizeof(err)) == 0 && r.n == 0);

	/* Record, reload: the inside cases, in order, nothing else. */
	CHECK(ts_ratchet_save(path, run1, TS_ARRAY_SIZE(run1), err, sizeof(err)) == 0);
	CHECK(ts_ratchet_load(path, false, &r, err, sizeof(err)) == 0);
	CHECK_EQ_U64(r.n, 3);
	CHECK(r.n == 3 && !strcmp(r.ids[0], "a") && !strcmp(r.ids[1], "b") && !strcmp(r.ids[2], "g"));
	CHECK(!ts_ratchet_has(&r, "c") && !ts_ratchet_has(&r, "d"));

	/* The same run passes; so does one where a case rose. */
	ts_verdict_judge(run1, TS_ARRAY_SIZE(run1), &r, &v);
	CHECK(v.pass && v.baseline == 3 && v.fell == 0 && v.rose == 0);
	struct ts_case_outcome run2[TS_ARRAY_SIZE(run1)];
	memcpy(run2, run1, sizeof(run1));
	run2[2].outcome = TS_OUTCOME_INSIDE; /* c now inside */
	ts_verdict_judge(run2, TS_ARRAY_SIZE(run2), &r, &v);
	CHECK(v.pass && v.inside == 4 && v.rose == 1);

	/* A listed case that turns into a known miss: the count falls, fail,
	 * although its reason is recorded. */
	memcpy(run2, run1, sizeof(run1));
	run2[1].outcome = TS_OUTCOME_KNOWN;
	ts_verdict_judge(run2, TS_ARRAY_SIZE(run2), &r, &v);
	CHECK(!v.pass && v.fell == 1 && v.inside == 2 && v.baseline == 3);
	/* ... unless another rose to keep the number. */
	run2[2].outcome = TS_OUTCOME_INSIDE;
	ts_verdict_judge(run2, TS_ARRAY_SIZE(run2), &r, &v);
	CHECK(v.pass && v.fell == 1 && v.rose == 1);

	/* Relabelling a listed case out of the score does not dodge it. */
	memcpy(run2, run1, sizeof(run1));
	run2[0].outcome = TS_OUTCOME_SAME_RUN;
	ts_verdict_judge(run2, TS_ARRAY_SIZE(run2), &r, &v);
	CHECK(!v.pass && v.fell == 1);

	/* A subset: only the listed cases that ran count. */
	ts_verdict_judge(run1, 2, &r, &v);
	CHECK(v.pass && v.baseline == 2 && v.inside == 2);
	ts_verdict_judge(run1 + 2, 3, &r, &v);
	CHECK(v.pass && v.baseline == 0);

	/* Whatever the ratchet: a miss without a reason, a fit off or a case
	 * that failed to run fails. */
	const struct ts_case_outcome bad[][1] = { { { "a", TS_OUTCOME_OUTSIDE } },
						  { { "d", TS_OUTCOME_FIT_OFF } },
						  { { "a", TS_OUTCOME_FAILED } } };
	for (size_t i = 0; i < TS_ARRAY_SIZE(bad); i++) {
		ts_verdict_judge(bad[i], 1, NULL, &v);
		CHECK(!v.pass);
	}
	ts_ratchet_free(&r);

	/* Comments, blanks and repeats are fine; anything else is refused by
	 * file and line. */
	write_file(path, "# header\n\n  a  \na\nb\n");
	CHECK(ts_ratchet_load(path, false, &r, err, sizeof(err)) == 0 && r.n == 2);
	ts_ratchet_free(&r);
	write_file(path, "a\nnot an id\n");
	CHECK(ts_ratchet_load(path, false, &r, err, sizeof(err)) == -EINVAL);
	char want[160];
	snprintf(want, sizeof(want), "%s:2:", path);
	CHECK(strstr(err, want));
	CHECK(r.n == 0 && !r.ids);

	unlink(path);
	rmdir(dir);
	return tc_exit();
}
