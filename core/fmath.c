/* fmath.c — the tables of fmath.h. */
#include <pthread.h>

#include "core/fmath.h"

static struct ts_fm t;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void fm_build(void)
{
	for (int j = 0; j < TS_FM_LN; j++) {
		double c = TS_FM_LN0 + (j + 0.5) / 256;
		t.lnc[j] = log(c);
		t.rc[j] = 1 / c;
	}
	for (int j = 0; j <= TS_FM_N; j++) {
		t.cs[j][0] = cos(2 * M_PI * j / TS_FM_N);
		t.cs[j][1] = sin(2 * M_PI * j / TS_FM_N);
	}
	for (int j = 0; j < TS_FM_N; j++)
		t.e2[j] = exp2((double)j / TS_FM_N);
}

const struct ts_fm *ts_fm(void)
{
	pthread_once(&once, fm_build);
	return &t;
}
