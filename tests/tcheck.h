/*
 * tcheck.h — the check macros every C test uses. A failed check prints the
 * file, line and expression and marks the test failed; the test goes on so
 * one run shows every failure. Exit with tc_exit().
 */
#ifndef TS_TCHECK_H
#define TS_TCHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <math.h>

static int tc_failures;

#define CHECK(cond)                                                                   \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
				#cond);                                               \
			tc_failures++;                                                \
		}                                                                     \
	} while (0)

/* |a - b| <= rel * |b| */
#define CHECK_NEAR(a, b, rel)                                                         \
	do {                                                                          \
		double _a = (double)(a), _b = (double)(b);                            \
		if (!(fabs(_a - _b) <= (rel) * fabs(_b))) {                           \
			fprintf(stderr, "%s:%d: %s = %.6g, expected %s = %.6g within %.3g%%\n", \
				__FILE__, __LINE__, #a, _a, #b, _b, (rel) * 100.0);   \
			tc_failures++;                                                \
		}                                                                     \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                            \
	do {                                                                          \
		unsigned long long _a = (unsigned long long)(a), _b = (unsigned long long)(b); \
		if (_a != _b) {                                                       \
			fprintf(stderr, "%s:%d: %s = %llu, expected %llu\n", __FILE__,  \
				__LINE__, #a, _a, _b);                                \
			tc_failures++;                                                \
		}                                                                     \
	} while (0)

static inline int tc_exit(void)
{
	if (tc_failures)
		fprintf(stderr, "%d check(s) failed\n", tc_failures);
	return tc_failures ? 1 : 0;
}

#endif
