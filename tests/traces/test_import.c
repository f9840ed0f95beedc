/*
 * test_import.c — the importer's choice of format (traces/import.h) without
 * the command line: a fio iolog is told by its first byte, an explicit
 * format is obeyed, and an unknown one is -ENOTSUP (a usage error).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tests/tcheck.h"
#include "traces/import.h"

static FILE *text(const char *s)
{
	FILE *f = tmpfile();
	CHECK(f != NULL);
	fputs(s, f);
	rewind(f);
	return f;
}

int main(void)
{
	static const char iolog[] = "fio version 2 iolog\n/f add\n/f open\n/f read 0 4096\n"
				    "/f read 4096 4096\n/f close\n";
	struct ts_trace t;
	uint64_t waits = 7;
	char err[512];

	/* no format given: an iolog by its first line */
	FILE *f = text(iolog);
	CHECK(ts_trace_import(f, "log", NULL, &t, &waits, err, sizeof(err)) == 0);
	CHECK(t.nrecs >= 2 && waits == 0);
	ts_trace_free(&t);
	fclose(f);

	/* told it is blkparse output, the iolog is refused as such */
	f = text(iolog);
	CHECK(ts_trace_import(f, "log", "blkparse", &t, &waits, err, sizeof(err)) != 0);
	fclose(f);

	/* an unknown format: -ENOTSUP, naming it */
	f = text(iolog);
	CHECK(ts_trace_import(f, "log", "strace", &t, &waits, err, sizeof(err)) == -ENOTSUP);
	CHECK(strstr(err, "strace") != NULL);
	fclose(f);
	return tc_exit();
}
