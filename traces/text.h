/*
 * text.h — the text form of a trace (`tiersim trace dump` / `undump`): one
 * line per item of the binary file, in file order, so that binary → text →
 * binary gives the same bytes. The grammar is in traces/FORMAT.md.
 */
#ifndef TS_TRACE_TEXT_H
#define TS_TRACE_TEXT_H

#include <stdio.h>

#include "traces/trace.h"

/* Writes @t as text. Returns 0 or -errno. */
TS_WUR int ts_trace_dump(FILE *out, const struct ts_trace *t);
/* Parses the text form from @in; @name is used in messages, which name the
 * line and the field ("x.txt:12: field 5 (offset): not a number"). */
TS_WUR int ts_trace_undump(FILE *in, const char *name, struct ts_trace *t, char *err,
			   size_t errlen);

#endif
