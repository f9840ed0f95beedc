/*
 * units.h — sizes, rates and durations as users write them.
 *
 * Sizes: a bare number is bytes; k, m, g, t (either case) and KiB, MiB, GiB,
 * TiB are powers of 1024; KB, MB, GB, TB are powers of 1000, as cloud vendors
 * quote "MB/s". Rates are a size followed by "/s" ("250MB/s", "1GiB/s").
 * Durations: ns, us (or µs), ms, s, min, h; a bare number takes the caller's
 * default unit. Fractions are allowed everywhere ("1.5GiB", "0.2ms").
 */
#ifndef TS_UNITS_H
#define TS_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "core/ts.h"

TS_WUR int ts_parse_size(const char *s, uint64_t *out);
TS_WUR int ts_parse_rate(const char *s, uint64_t *bytes_per_s);
TS_WUR int ts_parse_duration(const char *s, uint64_t bare_unit_ns, uint64_t *out_ns);

/* "1.50 GiB", "512 B"; returns buf. */
char *ts_fmt_size(char *buf, size_t n, uint64_t bytes);
/* "1.23 ms", "850 ns", "2.0 s"; returns buf. */
char *ts_fmt_duration(char *buf, size_t n, uint64_t ns);

#endif
