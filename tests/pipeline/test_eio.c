/*
 * test_eio.c — the loader's error policies on a real EIO: a folder dataset
 * read through a tierfs mount whose fault rule fails every read of one
 * file (tierfs.sh mounts it with -o fault=read:EIO:path=BAD). With
 * on_error=skip every other sample is delivered, the bad one is counted
 * and named with the errno's message; with on_error=fatal the run stops
 * with that message.
 *
 *   test_eio MAKE_IN READ_FROM BAD
 *       make the dataset in a new folder under MAKE_IN (the mount's backing
 *       folder), read it from the same folder name under READ_FROM (the
 *       mount), and expect the file named BAD to fail
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pipeline/loader.h"
#include "tests/tcheck.h"
#include "tests/pipeline/tp.h"

#define NFILES 40

/* Makes DIR/cls/sNNN.jpg; returns the bytes of the files not named @bad. */
static uint64_t make_set(const char *dir, const char *bad)
{
	char path[600];
	uint8_t buf[3000];
	uint64_t good = 0;
	snprintf(path, sizeof path, "%s/cls", dir);
	if (mkdir(path, 0755))
		return 0;
	for (int i = 0; i < NFILES; i++) {
		size_t n = 1000 + (size_t)i * 50;
		for (size_t k = 0; k < n; k++)
			buf[k] = (uint8_t)(k * 31 + (size_t)i);
		snprintf(path, sizeof path, "%s/cls/s%03d.jpg", dir, i);
		if (tp_write_file(path, buf, n))
			return 0;
		if (strcmp(strrchr(path, '/') + 1, bad))
			good += n;
	}
	return good;
}

/* Reads @dir to the end under @policy; returns the samples delivered or a
 * negative code, with the stats in @st. */
static int64_t run(const char *dir, const char *policy, struct ts_pipe_stats *st, char *msg,
		   size_t msglen)
{
	struct ts_pipe_cfg cfg = { 0 };
	struct ts_pipe *p = NULL;
	char err[1024];
	int64_t got = 0;
	if (ts_opt_defaults(ts_pipe_opts, &cfg, err, sizeof err) ||
	    ts_opt_set(ts_pipe_opts, &cfg, "path", dir, err, sizeof err) ||
	    ts_opt_set(ts_pipe_opts, &cfg, "decode", "none", err, sizeof err) ||
	    ts_opt_set(ts_pipe_opts, &cfg, "on_error", policy, err, sizeof err) ||
	    ts_opt_set(ts_pipe_opts, &cfg, "batch", "8", err, sizeof err) ||
	    ts_opt_set(ts_pipe_opts, &cfg, "qd", "8", err, sizeof err) ||
	    ts_pipe_new(&cfg, &p, err, sizeof err) || ts_pipe_start(p)) {
		fprintf(stderr, "loader on %s: %s\n", dir, err);
		ts_pipe_free(p);
		ts_opt_free(ts_pipe_opts, &cfg);
		return -1000;
	}
	for (;;) {
		struct ts_batch *b;
		int64_t w = ts_pipe_next_batch(p, &b);
		if (w < 0 || !b) {
			got = w < 0 ? w : got;
			break;
		}
		got += b->n;
		ts_pipe_batch_release(p, b);
	}
	ts_pipe_stats(p, st);
	snprintf(msg, msglen, "%s", got < 0 ? ts_pipe_error(p) : st->first_error);
	ts_pipe_free(p);
	ts_opt_free(ts_pipe_opts, &cfg);
	return got;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: test_eio MAKE_IN READ_FROM BAD\n");
		return 2;
	}
	char made[512], read_dir[600], bad_path[700], msg[1024];
	snprintf(made, sizeof made, "%s/eio_XXXXXX", argv[1]);
	if (!mkdtemp(made)) {
		perror("mkdtemp");
		return 1;
	}
	uint64_t good = make_set(made, argv[3]);
	if (!good) {
		perror("making the dataset");
		return 1;
	}
	snprintf(read_dir, sizeof read_dir, "%s/%s", argv[2], strrchr(made, '/') + 1);
	snprintf(bad_path, sizeof bad_path, "%s/cls/%s", read_dir, argv[3]);

	struct ts_pipe_stats st;
	int64_t got = run(read_dir, "skip", &st, msg, sizeof msg);
	fprintf(stderr, "on_error=skip  -> %lld samples, %llu skipped: %s\n", (long long)got,
		(unsigned long long)st.errors, msg);
	CHECK_EQ_U64(got, NFILES - 1);
	CHECK_EQ_U64(st.errors, 1);
	CHECK_EQ_U64(st.bytes, good);
	CHECK(strstr(msg, bad_path) != NULL);
	CHECK(strstr(msg, "Input/output error") != NULL);

	got = run(read_dir, "fatal", &st, msg, sizeof msg);
	fprintf(stderr, "on_error=fatal -> %lld: %s\n", (long long)got, msg);
	CHECK(got < 0 && got != -1000);
	CHECK(strstr(msg, bad_path) != NULL);
	CHECK(strstr(msg, "Input/output error") != NULL);
	CHECK(strstr(msg, "on_error=fatal") != NULL);

	tp_rmrf(made);
	return tc_exit();
}
