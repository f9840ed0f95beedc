/*
 * test_record.c — record's decisions that need no mount (fs/record.h): the
 * command resolved as execvp would, before anything is mounted, and "{}"
 * in its arguments replaced by the mount point.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fs/record.h"
#include "tests/tcheck.h"

int main(void)
{
	char *s = ts_record_substitute("{}/a,{}/b", "/m");
	CHECK(s && !strcmp(s, "/m/a,/m/b"));
	free(s);
	s = ts_record_substitute("plain", "/m");
	CHECK(s && !strcmp(s, "plain"));
	free(s);
	s = ts_record_substitute("{}", "/mnt/x");
	CHECK(s && !strcmp(s, "/mnt/x"));
	free(s);
	s = ts_record_substitute("--dir={}{}", "/m");
	CHECK(s && !strcmp(s, "--dir=/m/m"));
	free(s);

	CHECK(ts_record_find_command("sh") == 0);
	CHECK(ts_record_find_command("/bin/sh") == 0);
	CHECK(ts_record_find_command("no-such-command-here") == -ENOENT);
	CHECK(ts_record_find_command("/nonexistent/cmd") == -ENOENT);
	setenv("PATH", "/nonexistent", 1);
	CHECK(ts_record_find_command("sh") == -ENOENT);
	return tc_exit();
}
