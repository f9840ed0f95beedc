/*
 * test_record.c — record's decisions that need no mount (fs/record.h): the
 * command resolved as execvp would, before anything is mounted, "{}" in its
 * arguments replaced by the mount point, and which runs a recording makes
 * (the first, the probe, --repeat's), into which traces, and where it stops,
 * with a stand-in for the run through a mount.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/interrupt.h"
#include "fs/record.h"
#include "tests/tcheck.h"

/* The stand-in run: logs "TIER>OUT;" and gives the next scripted result. */
static char calls[512];
static struct {
	int rc, status;
	bool interrupt; /* a signal arrives during the run */
} script[8];
static int nrun;

static int fake_run(struct ts_record *r, const char *tier, const char *out, char **argv,
		    int argc, int *status)
{
	(void)r, (void)argv, (void)argc;
	size_t len = strlen(calls);
	snprintf(calls + len, sizeof(calls) - len, "%s>%s;", tier, out);
	*status = script[nrun].status;
	if (script[nrun].interrupt)
		ts_interrupted = SIGINT;
	return script[nrun++].rc;
}

/* ts_record_runs with @probe and @repeat over the scripted runs; what it
 * printed to stderr into @said. */
static int runs(const char *probe, int64_t repeat, struct ts_record_runs *s, char *said,
		size_t n)
{
	char *argv[] = { "true", NULL };
	struct ts_record r = { 0 };
	*s = (struct ts_record_runs){ .tier = "A", .out = "/t/r", .probe = probe,
				      .repeat = repeat, .run = fake_run };
	calls[0] = 0;
	nrun = 0;
	fflush(stderr);
	FILE *tmp = tmpfile();
	int saved = dup(2);
	dup2(fileno(tmp), 2);
	int rc = ts_record_runs(&r, s, argv, 1);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	size_t got = fread(said, 1, n - 1, tmp);
	said[got] = 0;
	fclose(tmp);
	return rc;
}

static void test_runs(void)
{
	struct ts_record_runs s;
	char said[512];
	memset(script, 0, sizeof(script));
	/* clean runs: the first, the probe, then OUT.2 and OUT.3 */
	CHECK(runs("B", 3, &s, said, sizeof(said)) == 0);
	CHECK(!strcmp(calls, "A>/t/r;B>/t/r.probe;A>/t/r.2;A>/t/r.3;") && !*said);
	CHECK(s.code == 0 && s.nrepeats == 2 && !strcmp(s.probe_out, "/t/r.probe") &&
	      !strcmp(s.repeats[1], "/t/r.3"));
	ts_record_runs_free(&s);
	/* one run, its exit status reported */
	script[0].status = W_EXITCODE(3, 0);
	CHECK(runs("", 1, &s, said, sizeof(said)) == 0);
	CHECK(!strcmp(calls, "A>/t/r;") && s.code == 3 && !s.probe_out && !s.nrepeats);
	ts_record_runs_free(&s);
	/* a failed first run: no probe */
	CHECK(runs("B", 2, &s, said, sizeof(said)) == -ECANCELED);
	CHECK(!strcmp(calls, "A>/t/r;") && s.code == 3);
	CHECK(!strcmp(said, "tiersim record: no probe run: the command failed\n"));
	ts_record_runs_free(&s);
	/* the probe run fails: no report */
	script[0].status = 0;
	script[1].status = W_EXITCODE(2, 0);
	CHECK(runs("B", 1, &s, said, sizeof(said)) == -EIO);
	CHECK(!strcmp(said, "tiersim record: the probe run on B failed (exit status 2)\n"));
	ts_record_runs_free(&s);
	/* --repeat stops after a run killed by a signal: 128 + N */
	script[1].status = W_EXITCODE(0, SIGKILL);
	CHECK(runs(NULL, 4, &s, said, sizeof(said)) == -ECANCELED);
	CHECK(!strcmp(calls, "A>/t/r;A>/t/r.2;") && s.code == 128 + SIGKILL && s.nrepeats == 1);
	CHECK(!strcmp(said, "tiersim record: no run 3 of --repeat: the command failed\n"));
	ts_record_runs_free(&s);
	/* a signal during a clean run: nothing more runs */
	memset(script, 0, sizeof(script));
	script[0].interrupt = true;
	CHECK(runs("B", 3, &s, said, sizeof(said)) == -ECANCELED);
	CHECK(!strcmp(calls, "A>/t/r;") && s.code == 0);
	CHECK(!strcmp(said, "tiersim record: no probe run: the command was interrupted\n"));
	ts_record_runs_free(&s);
	ts_interrupted = 0;
	script[0].interrupt = false;
	/* a run that could not start or failed to mount */
	script[0].rc = -EINTR;
	CHECK(runs(NULL, 2, &s, said, sizeof(said)) == -EINTR && !strcmp(calls, "A>/t/r;"));
	ts_record_runs_free(&s);
	script[0].rc = -EIO;
	CHECK(runs(NULL, 2, &s, said, sizeof(said)) == -EIO && !strcmp(calls, "A>/t/r;"));
	ts_record_runs_free(&s);
	script[0].rc = 0;
	script[1].rc = -EINTR;
	CHECK(runs(NULL, 3, &s, said, sizeof(said)) == -EINTR && s.nrepeats == 1);
	ts_record_runs_free(&s);
	CHECK(!s.repeats && !s.probe_out && !s.nrepeats);
}

int main(void)
{
	test_runs();
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
