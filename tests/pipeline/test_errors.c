/*
 * test_errors.c — a sample that cannot be read or decoded is reported with
 * its file name and either skipped and counted (on_error=skip) or fatal
 * (on_error=fatal): a truncated file, an unreadable file, a corrupt JPEG;
 * plus configurations refused at ts_pipe_new with a message naming the
 * option.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <turbojpeg.h>
#include <unistd.h>

#include "pipeline/loader.h"
#include "pipeline/recordio.h"
#include "tests/tcheck.h"
#include "tests/pipeline/tp.h"

#define NFILES 40

static char root[256];

static int make_set(const char *name)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", root, name);
	if (mkdir(path, 0755))
		return -1;
	snprintf(path, sizeof path, "%s/%s/cls", root, name);
	if (mkdir(path, 0755))
		return -1;
	uint8_t rgb[48 * 32 * 3];
	for (size_t i = 0; i < sizeof rgb; i++)
		rgb[i] = (uint8_t)(i * 7);
	tjhandle tj = tjInitCompress();
	for (int i = 0; i < NFILES; i++) {
		uint8_t *jpg = NULL;
		unsigned long len = 0;
		rgb[i] ^= 0xff;
		if (tjCompress2(tj, rgb, 48, 0, 32, TJPF_RGB, &jpg, &len, TJSAMP_444, 90, 0))
			return -1;
		snprintf(path, sizeof path, "%s/%s/cls/s%03d.jpg", root, name, i);
		int rc = tp_write_file(path, jpg, len);
		tjFree(jpg);
		if (rc)
			return -1;
	}
	tjDestroy(tj);
	return 0;
}

static struct ts_pipe *open_set(const char *name, const char *decode, const char *policy,
				char *err, size_t errlen)
{
	struct ts_pipe_cfg cfg = { 0 };
	char path[512];
	snprintf(path, sizeof path, "%s/%s", root, name);
	struct ts_pipe *p = NULL;
	if (ts_opt_defaults(ts_pipe_opts, &cfg, err, errlen) ||
	    ts_opt_set(ts_pipe_opts, &cfg, "path", path, err, errlen) ||
	    ts_opt_set(ts_pipe_opts, &cfg, "decode", decode, err, errlen) ||
	    ts_opt_set(ts_pipe_opts, &cfg, "on_error", policy, err, errlen) ||
	    ts_opt_set(ts_pipe_opts, &cfg, "batch", "8", err, errlen) ||
	    ts_opt_set(ts_pipe_opts, &cfg, "vcpus", "2", err, errlen) ||
	    ts_opt_set(ts_pipe_opts, &cfg, "out_size", "16", err, errlen) ||
	    ts_opt_set(ts_pipe_opts, &cfg, "resize", "20", err, errlen) ||
	    ts_pipe_new(&cfg, &p, err, errlen))
		p = NULL;
	ts_opt_free(ts_pipe_opts, &cfg);
	return p;
}

/* Runs to the end. Returns the samples delivered, or the error code. */
static int64_t drain(struct ts_pipe *p, uint64_t *skipped)
{
	int64_t got = 0;
	*skipped = 0;
	if (ts_pipe_start(p))
		return -1;
	for (;;) {
		struct ts_batch *b;
		int64_t w = ts_pipe_next_batch(p, &b);
		if (w < 0)
			return w;
		if (!b)
			return got;
		got += b->n;
		*skipped += b->skipped;
		ts_pipe_batch_release(p, b);
	}
}

typedef int (*damage_fn)(const char *file);

static int truncate_half(const char *file)
{
	struct stat sb;
	return stat(file, &sb) || truncate(file, sb.st_size / 2);
}

static int make_unreadable(const char *file)
{
	/* root reads through a mode of 000, so take the file away instead. */
	return geteuid() == 0 ? unlink(file) : chmod(file, 0);
}

static int corrupt_jpeg(const char *file)
{
	/* Same size, so the stat at open still matches: the bytes are wrong. */
	struct stat sb;
	if (stat(file, &sb))
		return -1;
	uint8_t *junk = malloc((size_t)sb.st_size);
	for (off_t i = 0; i < sb.st_size; i++)
		junk[i] = (uint8_t)(i * 13 + 1);
	int rc = tp_write_file(file, junk, (size_t)sb.st_size);
	free(junk);
	return rc;
}

struct case_ {
	const char *name;
	damage_fn damage;
	const char *decode;
	const char *expect; /* in the message */
};

static const struct case_ cases[] = {
	{ "truncated", truncate_half, "none", "file ends before the sample does" },
	{ "unreadable", make_unreadable, "none", "" },
	{ "corrupt", corrupt_jpeg, "real", "corrupt data" },
};

int main(void)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(root, sizeof root, "%s/ts_loaderr_XXXXXX", tmp);
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	char err[1024];
	for (size_t c = 0; c < TS_ARRAY_SIZE(cases); c++) {
		for (int fatal = 0; fatal < 2; fatal++) {
			char name[64], bad[512];
			snprintf(name, sizeof name, "%s_%d", cases[c].name, fatal);
			if (make_set(name)) {
				perror("making the test dataset");
				return 1;
			}
			struct ts_pipe *p = open_set(name, cases[c].decode, fatal ? "fatal" : "skip",
						     err, sizeof err);
			if (!p) {
				fprintf(stderr, "ts_pipe_new: %s\n", err);
				CHECK(p != NULL);
				continue;
			}
			/* Damaged after the listing, so the loader meets it when reading. */
			snprintf(bad, sizeof bad, "%s/%s/cls/s017.jpg", root, name);
			CHECK(cases[c].damage(bad) == 0);
			uint64_t skipped;
			int64_t got = drain(p, &skipped);
			struct ts_pipe_stats st;
			ts_pipe_stats(p, &st);
			const char *msg = fatal ? ts_pipe_error(p) : st.first_error;
			fprintf(stderr, "%-10s on_error=%-5s -> %s\n", cases[c].name,
				fatal ? "fatal" : "skip", msg);
			CHECK(strstr(msg, bad) != NULL);
			CHECK(strstr(msg, cases[c].expect) != NULL);
			if (fatal) {
				CHECK(got < 0);
				CHECK(strstr(msg, "on_error=fatal") != NULL);
			} else {
				CHECK_EQ_U64(got, NFILES - 1);
				CHECK_EQ_U64(skipped, 1);
				CHECK_EQ_U64(st.errors, 1);
			}
			ts_pipe_free(p);
		}
	}

	/* A record file: its index missing, then the file cut inside its last
	 * record (which is reported with the record's place, the rest read). */
	char rec[400], idx[400];
	snprintf(rec, sizeof rec, "%s/r.rec", root);
	snprintf(idx, sizeof idx, "%s/r.idx", root);
	struct ts_rec_writer w;
	CHECK(ts_rec_writer_open(&w, rec, idx) == 0);
	uint64_t last_off = 0;
	for (int i = 0; i < 10; i++) {
		uint8_t pl[24 + 300];
		memset(pl, i, sizeof pl);
		struct ts_rec_irheader h = { .label = (float)i, .id = (uint64_t)i };
		ts_rec_irheader_pack(&h, pl);
		last_off = w.offset;
		CHECK(ts_rec_writer_add(&w, (uint64_t)i, pl, sizeof pl) == 0);
	}
	CHECK(ts_rec_writer_close(&w) == 0);
	for (int step = 0; step < 3; step++) {
		struct ts_pipe_cfg cfg = { 0 };
		struct ts_pipe *p = NULL;
		char kv[450];
		snprintf(kv, sizeof kv, "path=%s", rec);
		CHECK(ts_opt_defaults(ts_pipe_opts, &cfg, err, sizeof err) == 0);
		CHECK(ts_opt_set_kv(ts_pipe_opts, &cfg, "source=rec", err, sizeof err) == 0);
		CHECK(ts_opt_set_kv(ts_pipe_opts, &cfg, kv, err, sizeof err) == 0);
		CHECK(ts_opt_set_kv(ts_pipe_opts, &cfg, "decode=none", err, sizeof err) == 0);
		CHECK(ts_opt_set_kv(ts_pipe_opts, &cfg, step == 2 ? "on_error=fatal" : "on_error=skip",
				    err, sizeof err) == 0);
		if (step == 0) {
			char moved[450];
			snprintf(moved, sizeof moved, "%s.away", idx);
			CHECK(rename(idx, moved) == 0);
			int rc = ts_pipe_new(&cfg, &p, err, sizeof err);
			fprintf(stderr, "missing index -> %s\n", err);
			CHECK(rc < 0);
			CHECK(strstr(err, idx) != NULL);
			CHECK(strstr(err, "index missing") != NULL);
			CHECK(rename(moved, idx) == 0);
		} else {
			if (step == 1)
				CHECK(truncate(rec, (off_t)last_off + 40) == 0);
			CHECK(ts_pipe_new(&cfg, &p, err, sizeof err) == 0);
			uint64_t skipped;
			int64_t got = p ? drain(p, &skipped) : -1;
			struct ts_pipe_stats st;
			if (p)
				ts_pipe_stats(p, &st);
			const char *msg = !p ? err : step == 2 ? ts_pipe_error(p) : st.first_error;
			fprintf(stderr, "truncated .rec on_error=%s -> %s\n", step == 2 ? "fatal" : "skip",
				msg);
			CHECK(strstr(msg, "r.rec record 9") != NULL);
			CHECK(step == 2 ? got < 0 : got == 9);
		}
		ts_pipe_free(p);
		ts_opt_free(ts_pipe_opts, &cfg);
	}

	/* Refused configurations name the option or the file. */
	struct {
		const char *kv[3];
		const char *expect;
	} bad_cfgs[] = {
		{ { "source=nosuch", NULL }, "option 'source'" },
		{ { "path=/nonexistent/x", NULL }, "/nonexistent/x" },
		{ { "decode=fast", NULL }, "option 'decode'" },
		{ { "on_error=ignore", NULL }, "option 'on_error'" },
		{ { "mem_limit=64k", "batch=256", NULL }, "option 'mem_limit'" },
		{ { "decode=modeled", "calibration=/nonexistent/decode.json", NULL },
		  "tiersim calibrate decode" },
		{ { "source=text", "shuffle=true", NULL }, "option 'shuffle'" },
	};
	char set_path[512];
	snprintf(set_path, sizeof set_path, "path=%s/truncated_0", root);
	for (size_t i = 0; i < TS_ARRAY_SIZE(bad_cfgs); i++) {
		struct ts_pipe_cfg cfg = { 0 };
		struct ts_pipe *p = NULL;
		CHECK(ts_opt_defaults(ts_pipe_opts, &cfg, err, sizeof err) == 0);
		CHECK(ts_opt_set_kv(ts_pipe_opts, &cfg, set_path, err, sizeof err) == 0);
		int rc = 0;
		for (int k = 0; bad_cfgs[i].kv[k] && !rc; k++)
			rc = ts_opt_set_kv(ts_pipe_opts, &cfg, bad_cfgs[i].kv[k], err, sizeof err);
		if (!rc)
			rc = ts_pipe_new(&cfg, &p, err, sizeof err);
		CHECK(rc < 0);
		CHECK(strstr(err, bad_cfgs[i].expect) != NULL);
		if (!strstr(err, bad_cfgs[i].expect))
			fprintf(stderr, "config %zu: got '%s'\n", i, err);
		ts_pipe_free(p);
		ts_opt_free(ts_pipe_opts, &cfg);
	}

	tp_rmrf(root);
	return tc_exit();
}
