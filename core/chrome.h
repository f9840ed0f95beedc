/*
 * chrome.h — Chrome trace event JSON, the format ui.perfetto.dev and
 * chrome://tracing open, written as a stream: `{"displayTimeUnit":"ns",
 * "traceEvents":[` then one event a line. The one writer of the format in
 * tiersim: the run's timeline (pipeline/timeline.c) and a trace's export
 * (traces/perfetto.c) both go through it.
 *
 * Times are nanoseconds, written as the format's microseconds with three
 * exact decimals. Names are JSON-escaped (a byte sequence that is not
 * UTF-8 becomes U+FFFD), so any path or user text may be one. The caller
 * serialises calls on one writer.
 */
#ifndef TS_CHROME_H
#define TS_CHROME_H

#include <stdint.h>
#include <stdio.h>

#include "core/ts.h"

struct ts_chrome {
	FILE *f;
	uint64_t events; /* events written so far */
};

/* An integer argument of a slice ("args": { key: val }). */
struct ts_chrome_arg {
	const char *key; /* a literal: not escaped */
	int64_t val;
};

/* Starts the document on @f. */
/* @s as a quoted JSON string: escapes quotes, backslashes and control
 * characters, keeps valid UTF-8, writes U+FFFD for invalid bytes. */
void ts_json_put_str(FILE *f, const char *s);

void ts_chrome_begin(struct ts_chrome *c, FILE *f);
/* A metadata event @what ("process_name", "thread_name") naming @pid/@tid. */
void ts_chrome_meta_name(struct ts_chrome *c, const char *what, uint32_t pid, uint32_t tid,
			 const char *name);
/* A metadata event @what ("process_sort_index", "thread_sort_index"). */
void ts_chrome_meta_sort(struct ts_chrome *c, const char *what, uint32_t pid, uint32_t tid,
			 unsigned idx);
/* A complete slice ("X") from @ts_ns lasting @dur_ns; @cat may be NULL. */
void ts_chrome_slice(struct ts_chrome *c, const char *name, const char *cat, uint32_t pid,
		     uint32_t tid, uint64_t ts_ns, uint64_t dur_ns, const struct ts_chrome_arg *a,
		     unsigned na);
/* An instant event of global scope at @ts_ns. */
void ts_chrome_instant(struct ts_chrome *c, const char *name, uint32_t pid, uint32_t tid,
		       uint64_t ts_ns);
/* Ends the array and the document; @other_fmt (printf, may be NULL) gives
 * the members of an "otherData" object. 0, or -EIO when a write failed. */
TS_WUR int ts_chrome_end(struct ts_chrome *c, const char *other_fmt, ...) TS_PRINTF(2, 3);

#endif
