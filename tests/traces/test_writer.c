/*
 * test_writer.c — the recording writer: records from many threads reach the
 * file intact and in per-thread order, paths are interned once, a full ring
 * goes on in a new segment while the writer is stalled (the spill) and
 * drops and counts past the spill's bound, never blocking, and the reader
 * sees every drop and tells a trace cut short from a whole one; a ring
 * filled past half wakes the writer even when it fills as the writer goes
 * to sleep.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "tests/tcheck.h"
#include "traces/text.h"
#include "traces/trace.h"

#define NTHREADS 4
#define PER_THREAD 50000

struct prod {
	struct ts_trace_writer *w;
	uint32_t tid;
	unsigned n;
};

static void *producer(void *arg)
{
	struct prod *p = arg;
	char path[64];

	for (unsigned i = 0; i < p->n; i++) {
		snprintf(path, sizeof(path), "/dir/file%u", i % 37);
		struct ts_trace_rec r = {
		    .submit_ns = ts_now_ns(),
		    .offset = (uint64_t)i * 4096,
		    .length = 4096,
		    .result = 4096,
		    .file_id = ts_trace_writer_file_id(p->w, path),
		    .tid = p->tid,
		    .op = (uint16_t)(i % 3 ? TS_OP_READ : TS_OP_WRITE),
		};
		r.complete_ns = r.submit_ns + 1000;
		ts_trace_writer_put(p->w, &r);
	}
	return NULL;
}

static void test_threads(const char *file)
{
	struct ts_trace_hdr h = {.capacity = 40 * TS_GiB, .mem = 2 * TS_GiB};
	struct ts_trace_writer *w;
	struct prod p[NTHREADS];
	pthread_t th[NTHREADS];
	uint64_t dropped = 1;
	char err[256];

	strcpy(h.tier, "ssd-cloud");
	strcpy(h.mount_opts, "tier=ssd-cloud,trace=x");
	CHECK(ts_trace_writer_open(file, &h, &w) == 0);
	for (int i = 0; i < NTHREADS; i++) {
		p[i] = (struct prod){.w = w, .tid = 100 + (uint32_t)i, .n = PER_THREAD};
		pthread_create(&th[i], NULL, producer, &p[i]);
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	CHECK(ts_trace_writer_close(w, &dropped) == 0);

	struct ts_trace t;
	int ret = ts_trace_read(file, &t, err, sizeof(err));
	CHECK(ret == 0);
	if (ret) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK(!t.truncated);
	CHECK_EQ_U64(t.dropped, dropped);
	CHECK_EQ_U64(t.nrecs + dropped, NTHREADS * PER_THREAD);
	CHECK_EQ_U64(t.end.length, t.nrecs);
	CHECK_EQ_U64(t.npaths, 38); /* 37 paths + id 0 */
	CHECK(!strcmp(t.hdr.tier, "ssd-cloud"));
	CHECK(!strcmp(t.hdr.mount_opts, "tier=ssd-cloud,trace=x"));
	CHECK_EQ_U64(t.hdr.capacity, 40 * TS_GiB);
	CHECK(t.hdr.host[0] != 0);
	/* Per thread, records arrive in order and name the right path. */
	uint64_t last_off[NTHREADS];
	unsigned seen[NTHREADS] = {0};
	int bad = 0;
	for (size_t i = 0; i < t.nrecs; i++) {
		const struct ts_trace_rec *r = &t.recs[i];
		unsigned k = r->tid - 100;
		if (k >= NTHREADS) {
			bad++;
			continue;
		}
		unsigned idx = (unsigned)(r->offset / 4096);
		char want[64];
		snprintf(want, sizeof(want), "/dir/file%u", idx % 37);
		if (seen[k] && r->offset <= last_off[k])
			bad++;
		if (strcmp(ts_trace_path(&t, r->file_id), want) ||
		    r->complete_ns != r->submit_ns + 1000)
			bad++;
		last_off[k] = r->offset;
		seen[k]++;
	}
	CHECK_EQ_U64(bad, 0);
	ts_trace_free(&t);
}

/* A ring of 2 records, a spill of two more segments and a producer that
 * never yields: most records are dropped, none block, and all are
 * accounted for. */
static void test_drops(const char *file)
{
	struct ts_trace_hdr h = {0};
	struct ts_trace_writer_cfg cfg = {
	    .ring_records = 2, .flush_us = 100000, .spill_bytes = 2 * 2 * TS_TRACE_REC_SIZE};
	struct ts_trace_writer *w;
	uint64_t dropped = 0;
	const unsigned n = 200000;
	char err[256];

	CHECK(ts_trace_writer_open_cfg(file, &h, &cfg, &w) == 0);
	struct ts_trace_rec r = {.op = TS_OP_READ, .length = 1};
	for (unsigned i = 0; i < n; i++) {
		r.offset = i;
		ts_trace_writer_put(w, &r);
	}
	CHECK(ts_trace_writer_close(w, &dropped) == 0);
	CHECK(dropped > 0);
	struct ts_trace t;
	CHECK(ts_trace_read(file, &t, err, sizeof(err)) == 0);
	CHECK_EQ_U64(t.dropped, dropped);
	CHECK_EQ_U64(t.nrecs + t.dropped, n);
	char buf[256];
	CHECK(ts_trace_warning(&t, buf, sizeof(buf)) != NULL);
	ts_trace_free(&t);
}

/*
 * The writer stalled: the trace is a FIFO that nobody reads while the
 * producers put, so the writer thread blocks in a write once the pipe
 * (64 KiB at most) and its output buffer (1 MiB) hold 17,408 items of 64
 * bytes, with at most 64 more in the batch it is writing. Two threads
 * then put 100,000 records each, half with a CPU sample (two items), into
 * rings of 64 slots: far past the point where a ring without the spill
 * drops, whenever the writer ran meanwhile (such rings drop at least
 * 200,000 - 17,408 - 64 - 2 x 64 records). With the spill (at most
 * 19.2 MB here, under its 64 MiB default) none is dropped: once the FIFO
 * is read, every record reaches the file, each thread's in order and each
 * sample with its record. No timing enters.
 */
struct sink {
	int fd;
	const char *out;
	int err;
};

static void *sink_main(void *arg)
{
	struct sink *k = arg;
	static char buf[1 << 16];
	FILE *f = fopen(k->out, "wb");
	ssize_t n;

	if (!f) {
		k->err = errno;
		return NULL;
	}
	while ((n = read(k->fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || fwrite(buf, 1, (size_t)n, f) != (size_t)n) {
			k->err = n < 0 ? errno : EIO;
			break;
		}
	}
	if (fclose(f) && !k->err)
		k->err = errno;
	return NULL;
}

#define STALL_PER_THREAD 100000

static void *stall_producer(void *arg)
{
	struct prod *p = arg;
	for (unsigned i = 0; i < p->n; i++) {
		struct ts_trace_rec r = {.submit_ns = ts_now_ns(),
					 .offset = i,
					 .length = 4096,
					 .tid = p->tid,
					 .op = TS_OP_READ};
		r.complete_ns = r.submit_ns + 1;
		if (i % 2) {
			struct ts_trace_cpu c = {.on_ns = i, .runq_ns = 1, .pid = p->tid, .ppid = 1};
			ts_trace_writer_put_cpu(p->w, &r, &c);
		} else {
			ts_trace_writer_put(p->w, &r);
		}
	}
	return NULL;
}

static void test_spill(const char *file)
{
	char fifo[] = "/tmp/ts_test_writer_fifo_XXXXXX";
	struct ts_trace_hdr h = {0};
	struct ts_trace_writer_cfg cfg = {.ring_records = 64};
	struct ts_trace_writer *w;
	struct prod p[2];
	pthread_t th[2], sk;
	uint64_t dropped = 1;
	char err[256];

	CHECK(mkdtemp(fifo) != NULL);
	char path[64];
	snprintf(path, sizeof(path), "%s/trace", fifo);
	CHECK(mkfifo(path, 0600) == 0);
	/* the read end first, so that the writer's open does not wait */
	int rfd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	CHECK(rfd >= 0);
	CHECK(ts_trace_writer_open_cfg(path, &h, &cfg, &w) == 0);
	for (int i = 0; i < 2; i++) {
		p[i] = (struct prod){.w = w, .tid = 500 + (uint32_t)i, .n = STALL_PER_THREAD};
		pthread_create(&th[i], NULL, stall_producer, &p[i]);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	CHECK_EQ_U64(ts_trace_writer_dropped(w), 0);
	CHECK(ts_trace_writer_spills(w) > 0);
	/* now the FIFO is read, and the writer goes on */
	CHECK(fcntl(rfd, F_SETFL, 0) == 0);
	struct sink k = {.fd = rfd, .out = file};
	pthread_create(&sk, NULL, sink_main, &k);
	CHECK(ts_trace_writer_close(w, &dropped) == 0);
	pthread_join(sk, NULL);
	close(rfd);
	unlink(path);
	rmdir(fifo);
	CHECK_EQ_U64(k.err, 0);
	CHECK_EQ_U64(dropped, 0);

	struct ts_trace t;
	int ret = ts_trace_read(file, &t, err, sizeof(err));
	CHECK(ret == 0);
	if (ret) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK(!t.truncated);
	CHECK_EQ_U64(t.dropped, 0);
	CHECK_EQ_U64(t.nrecs, 2 * STALL_PER_THREAD);
	CHECK_EQ_U64(t.ncpu, STALL_PER_THREAD);
	uint64_t next[2] = {0, 0};
	int bad = 0;
	for (size_t i = 0; i < t.nrecs; i++) {
		const struct ts_trace_rec *r = &t.recs[i];
		unsigned j = r->tid - 500;
		if (j >= 2 || r->offset != next[j]++) {
			bad++;
			continue;
		}
		bool cpu = t.cpu && t.cpu[i].pid;
		if (cpu != (r->offset % 2 == 1) || (cpu && t.cpu[i].on_ns != r->offset))
			bad++;
	}
	CHECK_EQ_U64(bad, 0);
	CHECK(next[0] == STALL_PER_THREAD && next[1] == STALL_PER_THREAD);
	ts_trace_free(&t);
}

/* The writer about to sleep: the first time, a producer fills its ring past
 * half (which wakes the writer) right then, between the writer's check and
 * its sleep; the hook waits for the producer to be done, at most a second
 * (a producer that must wait for the writer to sleep first cannot be). */
struct kick {
	sem_t go, done;
	int calls;
};

static void kick_before_sleep(void *arg)
{
	struct kick *k = arg;
	if (k->calls++)
		return;
	sem_post(&k->go);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 1;
	while (sem_timedwait(&k->done, &ts) && errno == EINTR)
		;
}

/* A ring filled past half while the writer goes to sleep wakes it: the
 * records reach the file long before its period (a minute) ends. */
static void test_kick(const char *file)
{
	struct ts_trace_hdr h = {0};
	struct kick k = {0};
	struct ts_trace_writer_cfg cfg = {.ring_records = 64,
					  .flush_us = 60 * 1000 * 1000,
					  .before_sleep = kick_before_sleep,
					  .before_sleep_arg = &k};
	struct ts_trace_writer *w;
	uint64_t dropped = 1;
	const unsigned n = 33; /* past half of 64 */

	sem_init(&k.go, 0, 0);
	sem_init(&k.done, 0, 0);
	CHECK(ts_trace_writer_open_cfg(file, &h, &cfg, &w) == 0);
	while (sem_wait(&k.go) && errno == EINTR)
		;
	struct ts_trace_rec r = {.op = TS_OP_READ, .length = 1};
	for (unsigned i = 0; i < n; i++) {
		r.offset = i;
		ts_trace_writer_put(w, &r);
	}
	sem_post(&k.done);
	/* the writer flushes after each drain: wait for the records there,
	 * 10 s at most (its period is 60 s) */
	off_t want = (off_t)(TS_TRACE_HDR_SIZE + n * sizeof(struct ts_trace_rec));
	struct stat st = {0};
	for (int i = 0; i < 1000 && !(stat(file, &st) == 0 && st.st_size >= want); i++)
		usleep(10000);
	CHECK(st.st_size >= want);
	CHECK(ts_trace_writer_close(w, &dropped) == 0);
	CHECK_EQ_U64(dropped, 0);
	sem_destroy(&k.go);
	sem_destroy(&k.done);
}

/* Cut the file at every length: the reader reads up to the last complete
 * item and says it was cut; never an error past the header. */
static void test_cut(const char *file)
{
	struct ts_trace_hdr h = {0};
	struct ts_trace_writer *w;
	char err[256];

	CHECK(ts_trace_writer_open(file, &h, &w) == 0);
	for (unsigned i = 0; i < 10; i++) {
		struct ts_trace_rec r = {.op = TS_OP_READ, .length = i, .tid = 1};
		r.file_id = ts_trace_writer_file_id(w, i < 5 ? "/a" : "/a much longer path");
		ts_trace_writer_put(w, &r);
	}
	CHECK(ts_trace_writer_close(w, NULL) == 0);
	FILE *f = fopen(file, "rb");
	static unsigned char buf[1 << 16];
	size_t len = fread(buf, 1, sizeof(buf), f);
	fclose(f);

	struct ts_trace full;
	CHECK(ts_trace_read_mem(buf, len, "full", &full, err, sizeof(err)) == 0);
	CHECK(!full.truncated);
	CHECK_EQ_U64(full.nrecs, 10);
	CHECK(ts_trace_warning(&full, err, sizeof(err)) == NULL);
	ts_trace_free(&full);

	int bad = 0;
	size_t prev = 0;
	for (size_t cut = TS_TRACE_HDR_SIZE; cut < len; cut++) {
		struct ts_trace t;
		if (ts_trace_read_mem(buf, cut, "cut", &t, err, sizeof(err))) {
			fprintf(stderr, "cut at %zu: %s\n", cut, err);
			bad++;
			continue;
		}
		if (!t.truncated || t.nrecs < prev || t.nrecs > 10)
			bad++;
		prev = t.nrecs;
		ts_trace_free(&t);
	}
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(prev, 10);

	struct ts_trace t;
	CHECK(ts_trace_read_mem(buf, 100, "short", &t, err, sizeof(err)) == TS_E_TRUNCATED);
	CHECK(buf[8] == TS_TRACE_VERSION);
	buf[8] = TS_TRACE_VERSION + 1; /* a version this reader does not know */
	CHECK(ts_trace_read_mem(buf, len, "vnext", &t, err, sizeof(err)) == TS_E_VERSION);
	char want[64];
	snprintf(want, sizeof(want), "version %d;", TS_TRACE_VERSION + 1);
	CHECK(strstr(err, want) != NULL);
	buf[8] = 0;
	CHECK(ts_trace_read_mem(buf, len, "v0", &t, err, sizeof(err)) == TS_E_VERSION);
	/* the records of this trace carry no CPU samples: as version 1 it reads */
	buf[8] = 1;
	CHECK(ts_trace_read_mem(buf, len, "v1", &t, err, sizeof(err)) == 0);
	CHECK(t.hdr.version == 1 && t.nrecs == 10 && !t.cpu);
	ts_trace_free(&t);
	buf[8] = TS_TRACE_VERSION;
	buf[0] = 'X';
	CHECK(ts_trace_read_mem(buf, len, "bad", &t, err, sizeof(err)) == TS_E_FORMAT);
}

/* The whole of @file, malloc'ed, its size in *@len. */
static unsigned char *slurp(const char *file, size_t *len)
{
	FILE *f = fopen(file, "rb");
	CHECK(f != NULL);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	unsigned char *buf = malloc(*len ? *len : 1);
	CHECK(fread(buf, 1, *len, f) == *len);
	fclose(f);
	return buf;
}

/* CPU samples travel with their records: each read back attached to its
 * own record, the record count unchanged, and a version 1 file that holds
 * one is refused. */
static void test_cpu(const char *file)
{
	struct ts_trace_hdr h = {0};
	struct ts_trace_writer *w;
	struct ts_trace t;
	char err[256];

	CHECK(ts_trace_writer_open(file, &h, &w) == 0);
	for (unsigned i = 0; i < 100; i++) {
		struct ts_trace_rec r = {.submit_ns = ts_now_ns(), .tid = 40 + i % 2, .op = TS_OP_READ};
		struct ts_trace_cpu c = {
		    .on_ns = 1000 * i, .runq_ns = i, .sys_ns = 7 * i, .pid = 40, .ppid = 1};
		r.complete_ns = r.submit_ns + 10;
		if (i % 4 == 3)
			ts_trace_writer_put(w, &r); /* some without */
		else
			ts_trace_writer_put_cpu(w, &r, &c);
	}
	CHECK(ts_trace_writer_close(w, NULL) == 0);
	CHECK(ts_trace_read(file, &t, err, sizeof(err)) == 0);
	CHECK(t.hdr.version == TS_TRACE_VERSION && t.nrecs == 100 && t.cpu && t.ncpu == 75);
	for (size_t i = 0; t.cpu && i < t.nrecs; i++) {
		bool want = i % 4 != 3;
		CHECK(!!t.cpu[i].pid == want);
		if (want)
			CHECK(t.cpu[i].on_ns == 1000 * i && t.cpu[i].runq_ns == i &&
			      t.cpu[i].sys_ns == 7 * i &&
			      t.cpu[i].ppid == 1 && t.recs[i].tid == 40 + i % 2);
	}
	CHECK(t.end.length == 100);
	ts_trace_free(&t);

	size_t len;
	unsigned char *buf = slurp(file, &len);
	buf[8] = 1;
	CHECK(ts_trace_read_mem(buf, len, "v1cpu", &t, err, sizeof(err)) == TS_E_CORRUPT);
	CHECK(strstr(err, "CPU sample in a version 1 trace") != NULL);
	/* a sample moved away from its record's thread */
	buf[8] = 2;
	buf[TS_TRACE_HDR_SIZE + 64 + 56] ^= 1; /* the first sample's tid */
	CHECK(ts_trace_read_mem(buf, len, "moved", &t, err, sizeof(err)) == TS_E_CORRUPT);
	free(buf);
}

/* Block mode's request clocks travel with their records too (format 9):
 * after the CPU sample where there is one, the record count unchanged, read
 * back relative to the trace's start; one issued before the trace began is
 * left out; a clock in a version 8 file, or after a record it cannot
 * belong to, is refused. */
static void test_issue(const char *file)
{
	struct ts_trace_hdr h = {0};
	struct ts_trace_writer *w;
	struct ts_trace t;
	char err[256];

	CHECK(ts_trace_writer_open(file, &h, &w) == 0);
	uint64_t base = ts_now_ns() + 1000000; /* after the writer's start */
	for (unsigned i = 0; i < 60; i++) {
		struct ts_trace_rec r = {
		    .submit_ns = base + 100000 * i, .tid = 7, .op = TS_OP_READ};
		struct ts_trace_cpu c = {.on_ns = i, .pid = 7, .ppid = 1};
		struct ts_trace_issue is = {.issue_ns = r.submit_ns - 40000 - i,
					    .end_ns = r.submit_ns + 60000, .off_ns = 20000 + i};
		r.complete_ns = r.submit_ns + 10;
		if (i == 59)
			is.issue_ns = 1; /* before the trace began: left out */
		ts_trace_writer_put_issue(w, &r, i % 3 ? &c : NULL, i % 2 ? &is : NULL);
	}
	CHECK(ts_trace_writer_close(w, NULL) == 0);
	CHECK(ts_trace_read(file, &t, err, sizeof(err)) == 0);
	CHECK(t.nrecs == 60 && t.end.length == 60 && t.issue && t.nissue == 29 && t.ncpu == 40);
	for (size_t i = 0; t.issue && i < t.nrecs; i++) {
		const struct ts_trace_issue *is = &t.issue[i];
		CHECK(is->set == (i % 2 && i != 59));
		CHECK(!!t.cpu[i].pid == !!(i % 3));
		if (is->set)
			CHECK(t.recs[i].submit_ns - is->issue_ns == 40000 + i &&
			      is->end_ns - t.recs[i].submit_ns == 60000 && is->off_ns == 20000 + i);
	}
	ts_trace_free(&t);

	size_t len;
	unsigned char *buf = slurp(file, &len);
	buf[8] = 8;
	CHECK(ts_trace_read_mem(buf, len, "v8issue", &t, err, sizeof(err)) == TS_E_CORRUPT);
	CHECK(strstr(err, "request clock in a version 8 trace") != NULL);
	/* record 1 (after record 0, which has neither) has a sample and a
	 * clock: made a getattr, its clock is refused */
	buf[8] = 9;
	buf[TS_TRACE_HDR_SIZE + 64 + 60] = TS_OP_GETATTR; /* record 1's op */
	CHECK(ts_trace_read_mem(buf, len, "getattr", &t, err, sizeof(err)) == TS_E_CORRUPT);
	CHECK(strstr(err, "request clock not right after a modeled read") != NULL);
	free(buf);
}

/* What record @i of test_wrap carries: a sample for i % 5 in 1..2, a
 * request clock for i % 5 in 2..3 (groups of 1, 2, 3, 2 and 1 slots). */
static void wrap_rec(unsigned i, uint64_t base, struct ts_trace_rec *r, struct ts_trace_cpu *c,
		     struct ts_trace_issue *is)
{
	*r = (struct ts_trace_rec){.submit_ns = base + 1000 * (uint64_t)i,
				   .complete_ns = base + 1000 * (uint64_t)i + 300 + i,
				   .offset = 4096 * (uint64_t)i + 7,
				   .length = 4096 + i,
				   .result = (int64_t)(4096 + i),
				   .size = 1000000 + i,
				   .file_id = 1 + i % 3,
				   .tid = 50 + i % 2,
				   .aux = i,
				   .op = TS_OP_READ,
				   .flags = i % 7 == 0 ? TS_REC_F_DIRECT : 0};
	*c = (struct ts_trace_cpu){.on_ns = 5000 + (uint64_t)i * 11, .runq_ns = 3 * (uint64_t)i,
				   .sys_ns = 200 + i, .late_ns = i % 13, .pid = 50, .ppid = 1};
	*is = (struct ts_trace_issue){.issue_ns = r->submit_ns - 500 - i,
				      .end_ns = r->submit_ns + 900 + i, .off_ns = 60 + i};
}

/* The writer sends the slots to the file from the ring itself, in two
 * pieces where they wrap past its end, and populates the pages ahead of
 * the producer: every field of every record, sample and request clock
 * reads back exactly, with groups of one to three slots straddling the
 * ring's end at every offset (rings of 16 slots and of 1,024, the writer
 * draining while the producer fills). */
static void test_wrap(const char *file)
{
	static const uint32_t rings[] = {16, 1024};
	const unsigned n = 3000;

	for (size_t k = 0; k < sizeof(rings) / sizeof(rings[0]); k++) {
		struct ts_trace_writer_cfg cfg = {.ring_records = rings[k], .flush_us = 200};
		struct ts_trace_hdr h = {0};
		struct ts_trace_writer *w;
		struct ts_trace t;
		struct ts_trace_rec r;
		struct ts_trace_cpu c;
		struct ts_trace_issue is;
		char err[256];
		uint64_t dropped = 1;

		CHECK(ts_trace_writer_open_cfg(file, &h, &cfg, &w) == 0);
		CHECK(ts_trace_writer_file_id(w, "/a") == 1 && ts_trace_writer_file_id(w, "/b") == 2 &&
		      ts_trace_writer_file_id(w, "/c") == 3);
		uint64_t base = ts_now_ns() + 1000000; /* after the writer's start */
		for (unsigned i = 0; i < n; i++) {
			wrap_rec(i, base, &r, &c, &is);
			unsigned g = i % 5;
			ts_trace_writer_put_issue(w, &r, g == 1 || g == 2 ? &c : NULL,
						  g == 2 || g == 3 ? &is : NULL);
			if (i % 4 == 0) {
				struct timespec ts = {0, 50000};
				nanosleep(&ts, NULL);
			}
		}
		CHECK(ts_trace_writer_close(w, &dropped) == 0);
		CHECK_EQ_U64(dropped, 0);
		CHECK(ts_trace_read(file, &t, err, sizeof(err)) == 0);
		CHECK_EQ_U64(t.nrecs, n);
		CHECK_EQ_U64(t.ncpu, 2 * n / 5);
		CHECK_EQ_U64(t.nissue, 2 * n / 5);
		CHECK(t.cpu && t.issue && t.npaths == 4);
		uint64_t start = t.hdr.start_mono_ns;
		int bad = 0;
		for (size_t i = 0; t.cpu && t.issue && i < t.nrecs; i++) {
			const struct ts_trace_rec *g = &t.recs[i];
			unsigned m = (unsigned)i % 5;
			wrap_rec((unsigned)i, base, &r, &c, &is);
			bad += g->submit_ns != r.submit_ns - start ||
			       g->complete_ns != r.complete_ns - start || g->offset != r.offset ||
			       g->length != r.length || g->result != r.result || g->size != r.size ||
			       g->file_id != r.file_id || g->tid != r.tid || g->aux != r.aux ||
			       g->op != r.op || g->flags != r.flags;
			const struct ts_trace_cpu *gc = &t.cpu[i];
			if (m == 1 || m == 2)
				bad += gc->on_ns != c.on_ns || gc->runq_ns != c.runq_ns ||
				       gc->sys_ns != c.sys_ns || gc->late_ns != c.late_ns ||
				       gc->pid != c.pid || gc->ppid != c.ppid || gc->flags != c.flags;
			else
				bad += gc->pid != 0;
			const struct ts_trace_issue *gi = &t.issue[i];
			if (m == 2 || m == 3)
				bad += !gi->set || gi->issue_ns != is.issue_ns - start ||
				       gi->end_ns != is.end_ns - start || gi->off_ns != is.off_ns;
			else
				bad += gi->set;
		}
		CHECK_EQ_U64(bad, 0);
		CHECK(!strcmp(ts_trace_path(&t, 3), "/c"));
		ts_trace_free(&t);
	}
}

/* What record @i of test_packed carries: thread 60 + i % 2 (process 600 +
 * i % 2); every fourth clock read, two of four left unread and packed,
 * one left unread with a sys_ns past 32 bits (a cpu item all the same);
 * a request clock on every third, every other one of them watched. */
static void packed_rec(unsigned i, uint64_t base, struct ts_trace_rec *r, struct ts_trace_cpu *c,
		       struct ts_trace_issue *is)
{
	*r = (struct ts_trace_rec){.submit_ns = base + 1000 * (uint64_t)i,
				   .complete_ns = base + 1000 * (uint64_t)i + 400,
				   .offset = 4096 * (uint64_t)i,
				   .length = 4096,
				   .result = 4096,
				   .size = 1 << 20,
				   .file_id = 1,
				   .tid = 60 + i % 2,
				   .op = TS_OP_READ};
	unsigned m = i % 4;
	*c = (struct ts_trace_cpu){.on_ns = m ? 0 : 100000 + 50 * (uint64_t)i,
				   .runq_ns = m ? 0 : 7 * (uint64_t)i,
				   .sys_ns = m == 3 ? (UINT64_C(1) << 32) + i : 300 + i,
				   .late_ns = i % 11,
				   .pid = 600 + i % 2,
				   .ppid = 1,
				   .flags = m ? TS_CPU_F_GAP : 0};
	bool watched = (i / 3) % 2;
	*is = (struct ts_trace_issue){.issue_ns = r->submit_ns - 200,
				      .end_ns = r->submit_ns + 700 + i,
				      .off_ns = watched ? 0 : 50 + i,
				      .watched = watched};
}

/* Version 10: a clock left unread takes no cpu item; its record says so
 * (TS_REC_F_PACKED) and its sys_ns and late_ns come in a pack item after
 * it (up to 6 a pack), its process from its thread's samples; the reader
 * gives it a sample like any other. A request clock tierfs only watched
 * (loop_issue=watch) is marked and not returned as a clock; carry= is a
 * header bit, read from mount_opts in an older trace. Written back, read
 * and text form alike give the same bytes; a packed record in a version 9
 * file, a pack of the wrong count, or an item between packed records and
 * their pack is refused. */
static void test_packed(const char *file)
{
	static const uint32_t rings[] = {16, 16384};
	const unsigned n = 2000;
	char err[256];

	for (size_t k = 0; k < sizeof(rings) / sizeof(rings[0]); k++) {
		struct ts_trace_writer_cfg cfg = {.ring_records = rings[k], .flush_us = 200};
		struct ts_trace_hdr h = {.model = TS_TRACE_MODEL_ALL | TS_TRACE_MODEL_CARRY};
		struct ts_trace_writer *w;
		struct ts_trace t, u;
		struct ts_trace_rec r;
		struct ts_trace_cpu c;
		struct ts_trace_issue is;
		uint64_t dropped = 1;

		CHECK(ts_trace_writer_open_cfg(file, &h, &cfg, &w) == 0);
		CHECK(ts_trace_writer_file_id(w, "/p") == 1);
		uint64_t base = ts_now_ns() + 1000000;
		for (unsigned i = 0; i < n; i++) {
			packed_rec(i, base, &r, &c, &is);
			ts_trace_writer_put_issue(w, &r, &c, i % 3 == 0 ? &is : NULL);
			if (i % 8 == 0) {
				struct timespec ts = {0, 20000};
				nanosleep(&ts, NULL);
			}
		}
		CHECK(ts_trace_writer_close(w, &dropped) == 0);
		CHECK_EQ_U64(dropped, 0);
		CHECK(ts_trace_read(file, &t, err, sizeof(err)) == 0);
		CHECK(t.hdr.version == TS_TRACE_VERSION && t.hdr.model == (TS_TRACE_MODEL_ALL | TS_TRACE_MODEL_CARRY));
		CHECK_EQ_U64(t.nrecs, n);
		CHECK_EQ_U64(t.ncpu, n);
		CHECK_EQ_U64(t.nissue + t.nwatched, (n + 2) / 3);
		int bad = 0;
		size_t npacked = 0, nwatched = 0;
		uint64_t start = t.hdr.start_mono_ns;
		for (size_t i = 0; t.cpu && i < t.nrecs; i++) {
			const struct ts_trace_rec *g = &t.recs[i];
			unsigned j = (unsigned)((g->offset) / 4096);
			packed_rec(j, base, &r, &c, &is);
			bool packed = j % 4 == 1 || j % 4 == 2;
			npacked += packed;
			bad += g->submit_ns != r.submit_ns - start || g->tid != r.tid ||
			       !!(g->flags & TS_REC_F_PACKED) != packed ||
			       (g->flags & ~TS_REC_F_PACKED) != r.flags;
			const struct ts_trace_cpu *gc = &t.cpu[i];
			bad += gc->sys_ns != c.sys_ns || gc->late_ns != c.late_ns || gc->pid != c.pid ||
			       gc->ppid != c.ppid || gc->flags != c.flags;
			if (!c.flags)
				bad += gc->on_ns != c.on_ns || gc->runq_ns != c.runq_ns;
			const struct ts_trace_issue *gi = t.issue ? &t.issue[i] : NULL;
			if (j % 3 == 0) {
				nwatched += is.watched;
				bad += !gi || !gi->set || gi->watched != is.watched ||
				       gi->issue_ns != is.issue_ns - start || gi->off_ns != is.off_ns ||
				       (ts_trace_issue_of(&t, i) != NULL) == is.watched;
			} else {
				bad += gi && gi->set;
			}
		}
		CHECK_EQ_U64(bad, 0);
		CHECK_EQ_U64(t.nwatched, nwatched);
		CHECK(npacked == n / 2);
		/* bytes: the header, one path item and its 8 bytes, a record
		 * each, a cpu item for each not packed, the request clocks,
		 * the packs and the trailer */
		size_t len, packs = 0;
		for (size_t i = 0; i < t.nitems; i++)
			packs += t.items[i].op == TS_ITEM_PACK;
		unsigned char *a = slurp(file, &len);
		CHECK_EQ_U64(len, TS_TRACE_HDR_SIZE + 64 + 8 +
				      64 * (n + (n - npacked) + (n + 2) / 3 + packs + 1));
		CHECK(packs >= npacked / TS_TRACE_PACK_MAX);
		/* written back and through the text form: the same bytes */
		char other[512];
		snprintf(other, sizeof(other), "%s.2", file);
		CHECK(ts_trace_write(&t, other) == 0);
		size_t len2;
		unsigned char *b = slurp(other, &len2);
		CHECK(len2 == len && !memcmp(a, b, len));
		free(b);
		char *text = NULL;
		size_t tlen = 0;
		FILE *m = open_memstream(&text, &tlen);
		CHECK(ts_trace_dump(m, &t) == 0);
		fclose(m);
		m = fmemopen(text, tlen, "r");
		CHECK(ts_trace_undump(m, "packed.txt", &u, err, sizeof(err)) == 0);
		fclose(m);
		CHECK(ts_trace_write(&u, other) == 0);
		b = slurp(other, &len2);
		CHECK(len2 == len && !memcmp(a, b, len));
		free(b);
		free(text);
		ts_trace_free(&u);
		unlink(other);

		if (k == 0) {
			/* the first pack item, and the record before it */
			size_t at = 0;
			for (size_t off = TS_TRACE_HDR_SIZE + 72; off + 64 <= len && !at; off += 64) {
				uint16_t op;
				memcpy(&op, a + off + 60, 2);
				if (op == TS_ITEM_PACK)
					at = off;
			}
			CHECK(at != 0);
			a[at + 48]++; /* its count */
			CHECK(ts_trace_read_mem(a, len, "count", &u, err, sizeof(err)) == TS_E_CORRUPT);
			CHECK(strstr(err, "pack item of") != NULL);
			a[at + 48]--;
			a[8] = 9;
			CHECK(ts_trace_read_mem(a, len, "v9", &u, err, sizeof(err)) == TS_E_CORRUPT);
			a[8] = 10;
			/* a drops item where the pack is */
			uint16_t drops = TS_ITEM_DROPS;
			unsigned char keep[64];
			memcpy(keep, a + at, 64);
			memset(a + at, 0, 64);
			memcpy(a + at + 60, &drops, 2);
			CHECK(ts_trace_read_mem(a, len, "drops", &u, err, sizeof(err)) == TS_E_CORRUPT);
			CHECK(strstr(err, "without their pack") != NULL);
			memcpy(a + at, keep, 64);
			CHECK(ts_trace_read_mem(a, len, "whole", &u, err, sizeof(err)) == 0);
			ts_trace_free(&u);
		}
		free(a);
		ts_trace_free(&t);
	}

	/* an older trace: carry from its mount_opts, dropped again when written */
	struct ts_trace t, u;
	ts_trace_init(&t);
	t.hdr.version = 9;
	t.hdr.model = TS_TRACE_MODEL_ALL;
	snprintf(t.hdr.mount_opts, sizeof(t.hdr.mount_opts), "tier=x,carry=true");
	struct ts_trace_rec r = {.submit_ns = 1, .complete_ns = 2, .tid = 3, .op = TS_OP_READ};
	CHECK(ts_trace_add_rec(&t, &r) == 0);
	r.flags = TS_REC_F_PACKED; /* version 10's */
	CHECK(ts_trace_add_rec(&t, &r) == -EINVAL);
	CHECK(ts_trace_add_end(&t, 0, 1, 3) == 0);
	CHECK(ts_trace_write(&t, file) == 0);
	CHECK(ts_trace_read(file, &u, err, sizeof(err)) == 0);
	CHECK(u.hdr.version == 9 && u.hdr.model == (TS_TRACE_MODEL_ALL | TS_TRACE_MODEL_CARRY));
	ts_trace_free(&u);
	snprintf(t.hdr.mount_opts, sizeof(t.hdr.mount_opts), "tier=x,carry=true,carry=false");
	CHECK(ts_trace_write(&t, file) == 0);
	CHECK(ts_trace_read(file, &u, err, sizeof(err)) == 0);
	CHECK(u.hdr.model == TS_TRACE_MODEL_ALL);
	ts_trace_free(&u);
	ts_trace_free(&t);
}

static void add(struct ts_trace *t, uint32_t tid, uint64_t s, uint64_t on, uint64_t runq,
		uint16_t flags)
{
	struct ts_trace_rec r = {.submit_ns = s, .complete_ns = s + 10, .tid = tid, .op = TS_OP_READ};
	struct ts_trace_cpu c = {.on_ns = on, .runq_ns = runq, .pid = tid, .ppid = 1, .flags = flags};
	CHECK(ts_trace_add_rec(t, &r) == 0);
	CHECK(ts_trace_add_cpu(t, &c) == 0);
}

static void check_clock(const struct ts_trace *t, size_t i, uint64_t on, uint64_t runq)
{
	CHECK_EQ_U64(t->cpu[i].on_ns, on);
	CHECK_EQ_U64(t->cpu[i].runq_ns, runq);
}

/* Clocks left unread (version 4, TS_CPU_F_GAP) are filled in by the
 * reader, exactly as traces/FORMAT.md states: a run ended for its budget
 * (TS_CPU_F_RUN) spreads its clocks' difference over its gaps; a run
 * ended by a long gap gives its short gaps the thread's measured share
 * (here 0.6 on a CPU, 0.1 queued per ns of gap), capped by the read
 * clocks; with no share measured anywhere a short gap is all CPU, capped
 * the same way; records before the first read clock take it. The file
 * holds 0 for them and reads back the same; a version 3 trace may not
 * carry the flags. */
static void test_unread(const char *file)
{
	struct ts_trace t, u;
	char err[256];

	ts_trace_init(&t);
	add(&t, 7, 0, 1000, 100, 0);
	add(&t, 7, 30, 0, 0, TS_CPU_F_GAP);	  /* gap 20 */
	add(&t, 7, 70, 0, 0, TS_CPU_F_GAP);	  /* gap 30 */
	add(&t, 7, 130, 1060, 110, TS_CPU_F_RUN); /* gap 50: 60 and 10 over 100 ns */
	add(&t, 7, 160, 0, 0, TS_CPU_F_GAP);	  /* gap 20 */
	add(&t, 7, 200, 0, 0, TS_CPU_F_GAP);	  /* gap 30 */
	add(&t, 7, 1210, 1200, 130, 0);		  /* gap 1000 */
	add(&t, 7, 1230, 0, 0, TS_CPU_F_GAP);	  /* gap 10, the thread's last */
	add(&t, 11, 5, 0, 0, TS_CPU_F_GAP);	  /* before thread 11's first read clock */
	add(&t, 11, 50, 300, 3, 0);
	CHECK(ts_trace_add_end(&t, 0, t.nrecs, 2000) == 0);
	CHECK(ts_trace_cpu_fill(&t) == 0);
	check_clock(&t, 1, 1012, 102);
	check_clock(&t, 2, 1030, 105);
	check_clock(&t, 3, 1060, 110);
	check_clock(&t, 4, 1072, 112); /* 0.6 x 50 = 30 and 0.1 x 50 = 5 over 50 ns */
	check_clock(&t, 5, 1090, 115);
	check_clock(&t, 7, 1206, 131);
	check_clock(&t, 8, 300, 3);
	CHECK(ts_trace_write(&t, file) == 0);
	CHECK(ts_trace_read(file, &u, err, sizeof(err)) == 0);
	CHECK(u.hdr.version == TS_TRACE_VERSION && u.nrecs == t.nrecs && u.ncpu == t.ncpu);
	for (size_t i = 0; i < t.nrecs && i < u.nrecs; i++) {
		check_clock(&u, i, t.cpu[i].on_ns, t.cpu[i].runq_ns);
		CHECK(u.cpu[i].flags == t.cpu[i].flags);
	}
	ts_trace_free(&u);
	ts_trace_free(&t);
	FILE *f = fopen(file, "rb");
	static unsigned char buf[4096];
	size_t len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	/* the second record's sample: offset and length 0 in the file */
	const unsigned char *it = buf + TS_TRACE_HDR_SIZE + 3 * TS_TRACE_REC_SIZE;
	uint64_t on, runq;
	uint16_t op, flags;
	memcpy(&on, it + 16, 8);
	memcpy(&runq, it + 24, 8);
	memcpy(&op, it + 60, 2);
	memcpy(&flags, it + 62, 2);
	CHECK(op == TS_ITEM_CPU && flags == TS_CPU_F_GAP && !on && !runq);
	buf[8] = 3;
	CHECK(ts_trace_read_mem(buf, len, "v3", &t, err, sizeof(err)) == TS_E_CORRUPT);
	CHECK(strstr(err, "CPU sample with stray fields") != NULL);
	buf[8] = 4;
	buf[TS_TRACE_HDR_SIZE + 3 * TS_TRACE_REC_SIZE + 16] = 1; /* an unread clock that is not 0 */
	CHECK(ts_trace_read_mem(buf, len, "set", &t, err, sizeof(err)) == TS_E_CORRUPT);

	/* no share measured: a short gap is all CPU, never more than the clocks say */
	ts_trace_init(&t);
	add(&t, 9, 0, 500, 0, 0);
	add(&t, 9, 40, 0, 0, TS_CPU_F_GAP); /* gap 30 */
	add(&t, 9, 100, 520, 5, 0);	    /* gap 50 */
	add(&t, 9, 130, 0, 0, TS_CPU_F_GAP); /* gap 20 */
	add(&t, 9, 900, 900, 9, 0);	    /* gap 760 */
	CHECK(ts_trace_cpu_fill(&t) == 0);
	check_clock(&t, 1, 520, 0);
	check_clock(&t, 3, 540, 5);
	ts_trace_free(&t);
	ts_trace_init(&t);
	t.hdr.version = 3;
	struct ts_trace_rec r = {.submit_ns = 1, .tid = 9, .op = TS_OP_READ};
	struct ts_trace_cpu c = {.pid = 9, .flags = TS_CPU_F_GAP};
	CHECK(ts_trace_add_rec(&t, &r) == 0);
	CHECK(ts_trace_add_cpu(&t, &c) == -EINVAL);
	ts_trace_free(&t);
}

/* The header's tier-model options (version 3): written and read back as
 * fields; an unknown bit, a value without its bit, or a version 2 header
 * with anything past its host field is refused; a version 2 header's
 * mount_opts give the same fields, and a value there that does not parse
 * is refused naming it. */
static void set_model(unsigned char *buf, uint32_t m)
{
	for (int i = 0; i < 4; i++)
		buf[888 + i] = (unsigned char)(m >> (8 * i));
}

static void test_model(const char *file)
{
	struct ts_trace_hdr h = {.capacity = 100 * TS_GiB,
				 .model = TS_TRACE_MODEL_ALL,
				 .seed = 7,
				 .floor_ns = 35000,
				 .dirty_limit = 1 << 20,
				 .ra_max = 1 << 16,
				 .mem_bps = 123456789,
				 .ebs_iops = 2000,
				 .ebs_max_iops = 11800,
				 .ebs_bps = 43.43e6,
				 .ebs_max_bps = 260.57e6,
				 .ebs_burst_s = 1800,
				 .loop_hop_ns = 23456,
				 .loop_size_ns = 34567,
				 .loop_window_ns = 4567};
	struct ts_trace_writer *w;
	struct ts_trace t;
	char err[256];

	CHECK(ts_trace_writer_open(file, &h, &w) == 0);
	CHECK(ts_trace_writer_close(w, NULL) == 0);
	FILE *f = fopen(file, "rb");
	static unsigned char buf[4096];
	size_t len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	CHECK(ts_trace_read_mem(buf, len, "v3", &t, err, sizeof(err)) == 0);
	CHECK(t.hdr.version == TS_TRACE_VERSION && t.hdr.model == TS_TRACE_MODEL_ALL);
	CHECK_EQ_U64(t.hdr.seed, 7);
	CHECK_EQ_U64(t.hdr.floor_ns, 35000);
	CHECK_EQ_U64(t.hdr.dirty_limit, 1 << 20);
	CHECK_EQ_U64(t.hdr.ra_max, 1 << 16);
	CHECK_EQ_U64(t.hdr.mem_bps, 123456789);
	CHECK_EQ_U64(t.hdr.capacity, 100 * TS_GiB);
	CHECK_EQ_U64(t.hdr.mem, 0);
	/* version 5: the instance's EBS limits, to the bit */
	CHECK(t.hdr.ebs_iops == 2000 && t.hdr.ebs_max_iops == 11800 && t.hdr.ebs_bps == 43.43e6 &&
	      t.hdr.ebs_max_bps == 260.57e6 && t.hdr.ebs_burst_s == 1800);
	/* version 6: block mode's loop hop at byte 976 (FORMAT.md) */
	CHECK_EQ_U64(t.hdr.loop_hop_ns, 23456);
	/* version 7: its size and window parts */
	CHECK_EQ_U64(t.hdr.loop_size_ns, 34567);
	CHECK_EQ_U64(t.hdr.loop_window_ns, 4567);
	ts_trace_free(&t);
	uint64_t hop;
	memcpy(&hop, buf + 976, sizeof(hop));
	CHECK_EQ_U64(hop, 23456);
	/* at bytes 984 and 992 (FORMAT.md) */
	uint64_t part, hop0 = 0;
	memcpy(&part, buf + 984, sizeof(part));
	CHECK_EQ_U64(part, 34567);
	memcpy(&part, buf + 992, sizeof(part));
	CHECK_EQ_U64(part, 4567);
	set_model(buf, TS_TRACE_MODEL_ALL & ~TS_TRACE_MODEL_LOOP_PARTS); /* without their bit */
	CHECK(ts_trace_read_mem(buf, len, "partbit", &t, err, sizeof(err)) == TS_E_CORRUPT);
	memcpy(buf + 976, &hop0, sizeof(hop0)); /* with their bit but without the hop's */
	set_model(buf, TS_TRACE_MODEL_ALL & ~TS_TRACE_MODEL_LOOP_HOP);
	CHECK(ts_trace_read_mem(buf, len, "parthop", &t, err, sizeof(err)) == TS_E_CORRUPT);
	memcpy(buf + 976, &hop, sizeof(hop));
	set_model(buf, TS_TRACE_MODEL_OF(6));
	buf[8] = 6; /* version 6 ended at byte 984 */
	CHECK(ts_trace_read_mem(buf, len, "v6rsv", &t, err, sizeof(err)) == TS_E_CORRUPT);
	CHECK(strstr(err, "byte 984") != NULL);
	memset(buf + 984, 0, 16);
	set_model(buf, TS_TRACE_MODEL_OF(7)); /* and had no bit 0x200 */
	CHECK(ts_trace_read_mem(buf, len, "v6bit", &t, err, sizeof(err)) == TS_E_CORRUPT);
	set_model(buf, TS_TRACE_MODEL_OF(6));
	CHECK(ts_trace_read_mem(buf, len, "v6", &t, err, sizeof(err)) == 0);
	CHECK(t.hdr.version == 6 && t.hdr.loop_hop_ns == 23456 && !t.hdr.loop_size_ns &&
	      !(t.hdr.model & TS_TRACE_MODEL_LOOP_PARTS));
	ts_trace_free(&t);
	buf[8] = TS_TRACE_VERSION;

	/* Version 8: the disk image's bit (0x400), no field. Before it the
	 * hop's bit stood for it (the reader sets it), a version 7 header
	 * refuses it, and a version 7 trace is written back without it. */
	set_model(buf, TS_TRACE_MODEL_ALL & ~TS_TRACE_MODEL_IMAGE); /* --loop-hop given, no image */
	CHECK(ts_trace_read_mem(buf, len, "v8hop", &t, err, sizeof(err)) == 0);
	CHECK(t.hdr.model == (TS_TRACE_MODEL_ALL & ~TS_TRACE_MODEL_IMAGE));
	ts_trace_free(&t);
	buf[8] = 7;
	CHECK(ts_trace_read_mem(buf, len, "v7", &t, err, sizeof(err)) == 0);
	CHECK(t.hdr.version == 7 && t.hdr.model == TS_TRACE_MODEL_ALL);
	CHECK(ts_trace_write(&t, file) == 0);
	ts_trace_free(&t);
	CHECK(ts_trace_read(file, &t, err, sizeof(err)) == 0);
	CHECK(t.hdr.version == 7 && t.hdr.model == TS_TRACE_MODEL_ALL);
	ts_trace_free(&t);
	f = fopen(file, "rb");
	static unsigned char back[4096];
	CHECK(fread(back, 1, sizeof(back), f) == len && !memcmp(back, buf, len));
	fclose(f);
	set_model(buf, TS_TRACE_MODEL_ALL); /* bit 0x400 in version 7 */
	CHECK(ts_trace_read_mem(buf, len, "v7image", &t, err, sizeof(err)) == TS_E_CORRUPT);
	CHECK(strstr(err, "v7image: header model options 0x7ff") != NULL);
	memset(buf + 976, 0, 24); /* version 7 without a hop: no image either */
	set_model(buf, TS_TRACE_MODEL_OF(5));
	CHECK(ts_trace_read_mem(buf, len, "v7nohop", &t, err, sizeof(err)) == 0);
	CHECK(t.hdr.model == TS_TRACE_MODEL_OF(5));
	ts_trace_free(&t);
	buf[8] = TS_TRACE_VERSION; /* version 8: the image without the hop (--loop-hop=false) */
	set_model(buf, TS_TRACE_MODEL_OF(5) | TS_TRACE_MODEL_IMAGE);
	CHECK(ts_trace_read_mem(buf, len, "v8image", &t, err, sizeof(err)) == 0);
	CHECK(t.hdr.model == (TS_TRACE_MODEL_OF(5) | TS_TRACE_MODEL_IMAGE) && !t.hdr.loop_hop_ns);
	ts_trace_free(&t);
	memcpy(buf + 976, &hop, sizeof(hop));

	set_model(buf, TS_TRACE_MODEL_ALL | 0x2000); /* an unknown bit (0x2000) */
	CHECK(ts_trace_read_mem(buf, len, "bit", &t, err, sizeof(err)) == TS_E_CORRUPT);
	set_model(buf, TS_TRACE_MODEL_ALL | TS_TRACE_MODEL_CARRY); /* carry's bit: version 10's */
	CHECK(ts_trace_read_mem(buf, len, "carry", &t, err, sizeof(err)) == 0);
	CHECK(t.hdr.model == (TS_TRACE_MODEL_ALL | TS_TRACE_MODEL_CARRY));
	ts_trace_free(&t);
	buf[8] = 9;
	CHECK(ts_trace_read_mem(buf, len, "carry9", &t, err, sizeof(err)) == TS_E_CORRUPT);
	buf[8] = TS_TRACE_VERSION;
	set_model(buf, TS_TRACE_MODEL_ALL & ~TS_TRACE_MODEL_LOOP_HOP); /* the hop without its bit */
	CHECK(ts_trace_read_mem(buf, len, "hopbit", &t, err, sizeof(err)) == TS_E_CORRUPT);
	buf[8] = 5; /* version 5 ended at byte 976 */
	CHECK(ts_trace_read_mem(buf, len, "v5rsv", &t, err, sizeof(err)) == TS_E_CORRUPT);
	CHECK(strstr(err, "byte 976") != NULL);
	memset(buf + 976, 0, sizeof(hop));
	set_model(buf, TS_TRACE_MODEL_ALL); /* and had no bit 0x100 */
	CHECK(ts_trace_read_mem(buf, len, "v5bit", &t, err, sizeof(err)) == TS_E_CORRUPT);
	set_model(buf, TS_TRACE_MODEL_OF(5));
	CHECK(ts_trace_read_mem(buf, len, "v5", &t, err, sizeof(err)) == 0);
	CHECK(t.hdr.version == 5 && !(t.hdr.model & TS_TRACE_MODEL_LOOP_HOP) && !t.hdr.loop_hop_ns);
	ts_trace_free(&t);
	buf[8] = TS_TRACE_VERSION;
	CHECK(ts_trace_read_mem(buf, len, "v6 without a hop", &t, err, sizeof(err)) == 0);
	CHECK(!(t.hdr.model & TS_TRACE_MODEL_LOOP_HOP) && !t.hdr.loop_hop_ns);
	ts_trace_free(&t);
	buf[8] = 5;
	const uint32_t v5 = TS_TRACE_MODEL_OF(5);
	double nan = NAN, neg = -1, ebs;
	memcpy(&ebs, buf + 936, sizeof(ebs));
	CHECK(ebs == 2000); /* ebs_iops at byte 936 (FORMAT.md) */
	memcpy(buf + 936, &nan, sizeof(nan));
	CHECK(ts_trace_read_mem(buf, len, "nan", &t, err, sizeof(err)) == TS_E_CORRUPT);
	memcpy(buf + 968, &neg, sizeof(neg)); /* ebs_burst_s */
	memcpy(buf + 936, &ebs, sizeof(ebs));
	CHECK(ts_trace_read_mem(buf, len, "neg", &t, err, sizeof(err)) == TS_E_CORRUPT);
	set_model(buf, v5 & ~TS_TRACE_MODEL_EBS); /* the limits without their bit */
	CHECK(ts_trace_read_mem(buf, len, "ebsbit", &t, err, sizeof(err)) == TS_E_CORRUPT);
	memset(buf + 936, 0, 40);
	buf[8] = 4; /* version 4: no EBS limits, and not its bit */
	CHECK(ts_trace_read_mem(buf, len, "v4", &t, err, sizeof(err)) == 0);
	CHECK(t.hdr.version == 4 && t.hdr.ebs_iops == 0);
	ts_trace_free(&t);
	set_model(buf, v5);
	CHECK(ts_trace_read_mem(buf, len, "v4bit", &t, err, sizeof(err)) == TS_E_CORRUPT);
	buf[936] = 1; /* version 4 ended at byte 936 */
	set_model(buf, v5 & ~TS_TRACE_MODEL_EBS);
	CHECK(ts_trace_read_mem(buf, len, "v4rsv", &t, err, sizeof(err)) == TS_E_CORRUPT);
	CHECK(strstr(err, "byte 936") != NULL);
	buf[936] = 0;
	buf[8] = 5;
	set_model(buf, v5 & ~TS_TRACE_MODEL_SEED); /* seed 7 without its bit */
	CHECK(ts_trace_read_mem(buf, len, "nobit", &t, err, sizeof(err)) == TS_E_CORRUPT);
	CHECK(strstr(err, "without its bit") != NULL);
	set_model(buf, v5);
	buf[1000] = 1; /* past the fields: reserved */
	CHECK(ts_trace_read_mem(buf, len, "rsv", &t, err, sizeof(err)) == TS_E_CORRUPT);
	buf[1000] = 0;
	buf[8] = 2; /* version 2 ended at byte 888 */
	CHECK(ts_trace_read_mem(buf, len, "v2", &t, err, sizeof(err)) == TS_E_CORRUPT);
	CHECK(strstr(err, "byte 888") != NULL);
	memset(buf + 888, 0, TS_TRACE_HDR_SIZE - 888);
	strcpy((char *)buf + 312, "tier=x,capacity=1GiB,mem=0,seed=9,floor=2us,mem_rate=1MB/s,o");
	CHECK(ts_trace_read_mem(buf, len, "v2", &t, err, sizeof(err)) == 0);
	/* capacity: the header's own field (100 GiB) wins over the text's */
	CHECK_EQ_U64(t.hdr.capacity, 100 * TS_GiB);
	CHECK(t.hdr.model == (TS_TRACE_MODEL_CAPACITY | TS_TRACE_MODEL_MEM | TS_TRACE_MODEL_SEED |
			      TS_TRACE_MODEL_FLOOR | TS_TRACE_MODEL_MEM_BPS));
	CHECK_EQ_U64(t.hdr.seed, 9);
	CHECK_EQ_U64(t.hdr.floor_ns, 2000);
	CHECK_EQ_U64(t.hdr.mem_bps, 1000000);
	ts_trace_free(&t);
	strcpy((char *)buf + 312, "tier=x,seed=nine");
	memset(buf + 312 + strlen("tier=x,seed=nine"), 0, 448 - strlen("tier=x,seed=nine"));
	CHECK(ts_trace_read_mem(buf, len, "badseed", &t, err, sizeof(err)) == TS_E_CORRUPT);
	CHECK(strstr(err, "badseed: header mount_opts: seed=nine") != NULL);

	/* The loop hop of a version 5 trace: tierfs wrote it into mount_opts
	 * (as "loop_hop=Nns(label)") before version 6 had its field. */
	buf[8] = 5;
	const char *o5 = "tier=x,floor=2000ns,xloop_hop=9ns(given),loop_hop=11100ns(measured)";
	memset(buf + 312, 0, 448);
	strcpy((char *)buf + 312, o5);
	CHECK(ts_trace_read_mem(buf, len, "v5hop", &t, err, sizeof(err)) == 0);
	CHECK(t.hdr.version == 5 && t.hdr.model == (TS_TRACE_MODEL_LOOP_HOP | TS_TRACE_MODEL_IMAGE));
	CHECK_EQ_U64(t.hdr.loop_hop_ns, 11100);
	CHECK_EQ_U64(t.hdr.floor_ns, 0); /* version 5 reads only the hop there */
	ts_trace_free(&t);
	buf[8] = 2; /* and so does a version 2 trace, with its other options */
	CHECK(ts_trace_read_mem(buf, len, "v2hop", &t, err, sizeof(err)) == 0);
	CHECK(t.hdr.model ==
	      (TS_TRACE_MODEL_FLOOR | TS_TRACE_MODEL_LOOP_HOP | TS_TRACE_MODEL_IMAGE));
	CHECK_EQ_U64(t.hdr.loop_hop_ns, 11100);
	CHECK_EQ_U64(t.hdr.floor_ns, 2000);
	ts_trace_free(&t);
	buf[8] = 5;
	memset(buf + 312, 0, 448);
	strcpy((char *)buf + 312, "tier=x,loop_hop=11us(measured),mem=0");
	CHECK(ts_trace_read_mem(buf, len, "badhop", &t, err, sizeof(err)) == TS_E_CORRUPT);
	CHECK(strstr(err, "badhop: header mount_opts: loop_hop: '11us(measured)'") != NULL);
	/* cut off at the end of a full mount_opts: no hop, not an error */
	memset(buf + 312, 'a', 447 - strlen(",loop_hop=111"));
	strcpy((char *)buf + 312 + 447 - strlen(",loop_hop=111"), ",loop_hop=111");
	CHECK(ts_trace_read_mem(buf, len, "cut", &t, err, sizeof(err)) == 0);
	CHECK(t.hdr.model == 0 && t.hdr.loop_hop_ns == 0);
	ts_trace_free(&t);

	/* Its size part before version 7: "loop_hop_128k=Nns(measured)"
	 * after the hop, for a version 6 trace (the hop in its field) and a
	 * version 5 one (both in mount_opts); the window part none. */
	const char *o6 = "tier=x,loop_hop=11100ns(measured),loop_hop_128k=30500ns(measured)";
	uint64_t h6 = 11100;
	memset(buf + 312, 0, 448);
	strcpy((char *)buf + 312, o6);
	buf[8] = 6;
	memcpy(buf + 976, &h6, sizeof(h6));
	set_model(buf, TS_TRACE_MODEL_LOOP_HOP);
	CHECK(ts_trace_read_mem(buf, len, "v6size", &t, err, sizeof(err)) == 0);
	CHECK(t.hdr.model ==
	      (TS_TRACE_MODEL_LOOP_HOP | TS_TRACE_MODEL_LOOP_PARTS | TS_TRACE_MODEL_IMAGE));
	CHECK_EQ_U64(t.hdr.loop_hop_ns, 11100);
	CHECK_EQ_U64(t.hdr.loop_size_ns, 30500);
	CHECK_EQ_U64(t.hdr.loop_window_ns, 0);
	ts_trace_free(&t);
	buf[8] = 5;
	memset(buf + 976, 0, 8);
	set_model(buf, 0);
	CHECK(ts_trace_read_mem(buf, len, "v5size", &t, err, sizeof(err)) == 0);
	CHECK(t.hdr.model ==
	      (TS_TRACE_MODEL_LOOP_HOP | TS_TRACE_MODEL_LOOP_PARTS | TS_TRACE_MODEL_IMAGE));
	CHECK_EQ_U64(t.hdr.loop_hop_ns, 11100);
	CHECK_EQ_U64(t.hdr.loop_size_ns, 30500);
	ts_trace_free(&t);
	/* none without the hop: a FUSE mount's "(off)" */
	memset(buf + 312, 0, 448);
	strcpy((char *)buf + 312, "tier=x,loop_hop=0ns(off),loop_hop_128k=30500ns(measured)");
	CHECK(ts_trace_read_mem(buf, len, "v5off", &t, err, sizeof(err)) == 0);
	CHECK(t.hdr.model == 0 && !t.hdr.loop_size_ns);
	ts_trace_free(&t);
	memset(buf + 312, 0, 448);
	strcpy((char *)buf + 312, "tier=x,loop_hop=11100ns(measured),loop_hop_128k=3x0ns(measured)");
	CHECK(ts_trace_read_mem(buf, len, "badsize", &t, err, sizeof(err)) == TS_E_CORRUPT);
	CHECK(strstr(err, "badsize: header mount_opts: loop_hop_128k: '3x0' is not a count of ns") !=
	      NULL);
}

/*
 * A write that fails (a file size limit, as a full disk): close says so
 * (-EFBIG) and the file holds what fitted, the header whole and then
 * whole records up to the limit. The writer's output is its own buffer
 * (trace.c, put_bytes), flushed a write() at a time: a short write is
 * written on from where it stopped, and an error is kept, not lost.
 */
static void test_write_error(const char *file)
{
	struct ts_trace_hdr h = {0};
	struct ts_trace_writer *w;
	struct rlimit lim, small;
	struct stat st;
	uint64_t dropped = 1;
	char err[256];

	CHECK(getrlimit(RLIMIT_FSIZE, &lim) == 0);
	small = (struct rlimit){TS_TRACE_HDR_SIZE + 100 * TS_TRACE_REC_SIZE, lim.rlim_max};
	signal(SIGXFSZ, SIG_IGN);
	CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
	CHECK(ts_trace_writer_open(file, &h, &w) == 0);
	struct ts_trace_rec r = {.op = TS_OP_READ, .length = 4096, .tid = 7};
	for (unsigned i = 0; i < 1000; i++) {
		r.offset = (uint64_t)i * 4096;
		ts_trace_writer_put(w, &r);
	}
	CHECK(ts_trace_writer_close(w, &dropped) == -EFBIG);
	CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
	signal(SIGXFSZ, SIG_DFL);
	CHECK(stat(file, &st) == 0);
	CHECK_EQ_U64((uint64_t)st.st_size, small.rlim_cur);
	/* what fitted reads as a trace cut short: the first 100 records */
	struct ts_trace t;
	CHECK(ts_trace_read(file, &t, err, sizeof(err)) == 0);
	CHECK(t.truncated);
	CHECK_EQ_U64(t.nrecs, 100);
	for (size_t i = 0; i < t.nrecs && i < 100; i++)
		CHECK_EQ_U64(t.recs[i].offset, (uint64_t)i * 4096);
	ts_trace_free(&t);
}

/* Version 12: the disk image's geometry (bit 0x1000, the fs_* fields at
 * bytes 1000-1022, FORMAT.md), written with the header or into it later
 * (ts_trace_set_fs, as block mode's recorder does once tierfs opened the
 * trace); a version 11 trace reads and round-trips as before. */
static void test_geometry(const char *file)
{
	/* a 2 GiB image of tiersim disk make (mkfs.ext4's defaults) */
	struct ts_trace_hdr h = { .capacity = 500 * TS_GiB, .model = TS_TRACE_MODEL_ALL,
				  .fs_blocks = 524288, .fs_bpg = 32768, .fs_ipg = 8192,
				  .fs_rsv_gdt = 255, .fs_inode_size = 256, .fs_block_log = 12,
				  .fs_flex_log = 4, .fs_desc_size = 64 };
	struct ts_trace_writer *w;
	struct ts_trace t;
	char err[256];
	static unsigned char buf[4096], back[4096];

	/* without the bit the writer leaves the fields out */
	CHECK(ts_trace_writer_open(file, &h, &w) == 0);
	CHECK(ts_trace_writer_close(w, NULL) == 0);
	CHECK(ts_trace_read(file, &t, err, sizeof(err)) == 0);
	CHECK(t.hdr.version == 12 && !(t.hdr.model & TS_TRACE_MODEL_FS) && !t.hdr.fs_blocks &&
	      !t.hdr.fs_block_log);
	ts_trace_free(&t);
	/* written into the header afterwards: the records stay as they were */
	struct ts_trace_rec r = { .submit_ns = 5, .complete_ns = 9, .length = 4096,
				  .result = 4096, .tid = 1, .op = TS_OP_READ };
	CHECK(ts_trace_writer_open(file, &(struct ts_trace_hdr){ .model = TS_TRACE_MODEL_ALL },
				   &w) == 0);
	r.file_id = ts_trace_writer_file_id(w, "/image");
	ts_trace_writer_put(w, &r);
	CHECK(ts_trace_set_fs(file, &h, err, sizeof(err)) == 0); /* while tierfs writes */
	ts_trace_writer_put(w, &r);
	CHECK(ts_trace_writer_close(w, NULL) == 0);
	CHECK(ts_trace_read(file, &t, err, sizeof(err)) == 0);
	CHECK(t.hdr.model == (TS_TRACE_MODEL_ALL | TS_TRACE_MODEL_FS) && t.nrecs == 2);
	CHECK(t.hdr.fs_blocks == 524288 && t.hdr.fs_bpg == 32768 && t.hdr.fs_ipg == 8192 &&
	      t.hdr.fs_rsv_gdt == 255 && t.hdr.fs_inode_size == 256 && t.hdr.fs_block_log == 12 &&
	      t.hdr.fs_flex_log == 4 && t.hdr.fs_desc_size == 64);
	ts_trace_free(&t);
	FILE *f = fopen(file, "rb");
	size_t len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	uint64_t blocks;
	memcpy(&blocks, buf + 1000, sizeof(blocks)); /* at byte 1000 (FORMAT.md) */
	CHECK_EQ_U64(blocks, 524288);
	CHECK(buf[1020] == 12 && buf[1021] == 4 && buf[1022] == 64 && buf[1023] == 0);
	/* written back byte for byte */
	CHECK(ts_trace_read_mem(buf, len, "v12", &t, err, sizeof(err)) == 0);
	CHECK(ts_trace_write(&t, file) == 0);
	ts_trace_free(&t);
	f = fopen(file, "rb");
	CHECK(fread(back, 1, sizeof(back), f) == len && !memcmp(back, buf, len));
	fclose(f);
	/* the text form too */
	char *txt = NULL;
	size_t tlen = 0;
	FILE *m = open_memstream(&txt, &tlen);
	CHECK(ts_trace_read_mem(buf, len, "v12", &t, err, sizeof(err)) == 0);
	CHECK(ts_trace_dump(m, &t) == 0);
	fclose(m);
	ts_trace_free(&t);
	CHECK(strstr(txt, " fs_blocks=524288 fs_block=4096 fs_bpg=32768 fs_ipg=8192 fs_inode=256 "
			  "fs_rsv_gdt=255 fs_flex=16 fs_desc=64\n") != NULL);
	free(txt);

	/* refused: the bit before version 12, a field without the bit, a
	 * field out of range, the last byte not zero */
	static unsigned char bad[4096];
	memcpy(bad, buf, len);
	bad[8] = 11;
	CHECK(ts_trace_read_mem(bad, len, "v11", &t, err, sizeof(err)) == TS_E_CORRUPT);
	memcpy(bad, buf, len);
	uint32_t model;
	memcpy(&model, bad + 888, sizeof(model));
	model &= ~(uint32_t)TS_TRACE_MODEL_FS;
	memcpy(bad + 888, &model, sizeof(model));
	CHECK(ts_trace_read_mem(bad, len, "nobit", &t, err, sizeof(err)) == TS_E_CORRUPT);
	CHECK(strstr(err, "without its bit (0x1000)") != NULL);
	memcpy(bad, buf, len);
	bad[1020] = 9; /* 512-byte blocks */
	CHECK(ts_trace_read_mem(bad, len, "block", &t, err, sizeof(err)) == TS_E_CORRUPT);
	CHECK(strstr(err, "fs_block") != NULL);
	memcpy(bad, buf, len);
	bad[1018] = 200; /* a 200-byte inode */
	bad[1019] = 0;
	CHECK(ts_trace_read_mem(bad, len, "inode", &t, err, sizeof(err)) == TS_E_CORRUPT);
	memcpy(bad, buf, len);
	bad[1022] = 48;
	CHECK(ts_trace_read_mem(bad, len, "desc", &t, err, sizeof(err)) == TS_E_CORRUPT);
	memcpy(bad, buf, len);
	bad[1023] = 1;
	CHECK(ts_trace_read_mem(bad, len, "pad", &t, err, sizeof(err)) == TS_E_CORRUPT);
	CHECK(strstr(err, "byte 1023") != NULL);
	/* a geometry out of range is not written */
	struct ts_trace_hdr g = h;
	g.fs_bpg = 12;
	CHECK(ts_trace_set_fs(file, &g, err, sizeof(err)) == -EINVAL);

	/* version 11: reads without a geometry and is written back as it was;
	 * ts_trace_set_fs refuses it (no fields to hold one) */
	memcpy(bad, buf, len);
	bad[8] = 11;
	memset(bad + 1000, 0, 24);
	memcpy(&model, bad + 888, sizeof(model));
	model &= ~(uint32_t)TS_TRACE_MODEL_FS;
	memcpy(bad + 888, &model, sizeof(model));
	CHECK(ts_trace_read_mem(bad, len, "v11", &t, err, sizeof(err)) == 0);
	CHECK(t.hdr.version == 11 && !(t.hdr.model & TS_TRACE_MODEL_FS) && !t.hdr.fs_blocks);
	CHECK(ts_trace_write(&t, file) == 0);
	ts_trace_free(&t);
	f = fopen(file, "rb");
	CHECK(fread(back, 1, sizeof(back), f) == len && !memcmp(back, bad, len));
	fclose(f);
	CHECK(ts_trace_set_fs(file, &h, err, sizeof(err)) == TS_E_VERSION);
	CHECK(strstr(err, "version 11") != NULL);
	bad[1000] = 1; /* a version 11 header's reserved bytes */
	CHECK(ts_trace_read_mem(bad, len, "v11rsv", &t, err, sizeof(err)) == TS_E_CORRUPT);
	CHECK(strstr(err, "byte 1000") != NULL);
}

int main(void)
{
	char file[] = "/tmp/ts_test_writer_XXXXXX";
	int fd = mkstemp(file);
	if (fd < 0)
		return 1;
	close(fd);
	test_threads(file);
	test_drops(file);
	test_spill(file);
	test_kick(file);
	test_cut(file);
	test_cpu(file);
	test_issue(file);
	test_wrap(file);
	test_unread(file);
	test_packed(file);
	test_model(file);
	test_geometry(file);
	test_write_error(file);
	unlink(file);
	return tc_exit();
}
