/* test_dlio_measure.c — the lines `tiersim hosts measure` fits
 * (workloads/dlio_measure.h, ts_dlio_measure_line): a cost per sample,
 * per MiB or per worker has no negative constant, so where the free
 * least-squares line's intercept is below 0 the line is the least-squares
 * one through the origin (slope sum(x y) / sum(x x)), not the free slope
 * with its intercept cut to 0 (which charged a small png up to ~100 us more
 * than its round measured); a line with an intercept of 0 or more is the
 * free one. Exact: every sum below is of small integers. */
#include "tests/tcheck.h"
#include "workloads/dlio_measure.h"

static void line(const double *x, const double *y, unsigned n, double ea, double eb)
{
	double a = -1, b = -1;
	ts_dlio_measure_line(x, y, n, &a, &b);
	if (a != ea || b != eb)
		fprintf(stderr, "line through %u points: a = %.17g, b = %.17g; expected %.17g, "
			"%.17g\n", n, a, b, ea, eb);
	CHECK(a == ea);
	CHECK(b == eb);
}

int main(void)
{
	/* two sets (a format's small and large sample): the free line
	 * y = 3x - 2; through the origin: (1 + 21) / (1 + 9) */
	const double x2[] = { 1, 3 }, y2[] = { 1, 7 };
	line(x2, y2, 2, 0, 22.0 / 10.0);
	/* the same the other way round */
	const double x2r[] = { 3, 1 }, y2r[] = { 7, 1 };
	line(x2r, y2r, 2, 0, 22.0 / 10.0);
	/* the loader's starts at 1, 2, 4 and 8 workers, free line 20w - 10:
	 * through the origin (10 + 60 + 280 + 1200) / (1 + 4 + 16 + 64) */
	const double w[] = { 1, 2, 4, 8 }, s[] = { 10, 30, 70, 150 };
	line(w, s, 4, 0, 1550.0 / 85.0);
	/* scattered points whose free line is 366/115 w - 1.43: sum(x y) /
	 * sum(x x) = (1 + 12 + 44 + 192) / (1 + 4 + 16 + 64) */
	const double sc[] = { 1, 6, 11, 24 };
	line(w, sc, 4, 0, 249.0 / 85.0);
	/* a positive intercept: the free line as it is, 5 + 3w */
	const double p[] = { 8, 11, 17, 29 };
	line(w, p, 4, 5, 3);
	const double p2[] = { 8, 14 };
	line(x2, p2, 2, 5, 3);
	/* an intercept of exactly 0 stays the free line */
	const double z[] = { 2, 4, 8, 16 };
	line(w, z, 4, 0, 2);
	return tc_exit();
}
