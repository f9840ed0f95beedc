/*
 * trace_writer.c — how fast the trace writer records, and whether it drops.
 *
 *   trace_writer [FILE] [SECONDS] [put-only]
 *
 * Two runs, side by side in one process: (1) the target load, 200k ops/s
 * spread over 4 producer threads (libfuse's default worker count order),
 * each paced by the clock, as a busy tierfs would call put(); (2) the same
 * threads unpaced, to show the headroom. Each put interns its path as the
 * daemon does. (3) and (4): the same two with a CPU sample per record (trace
 * format version 2), each read from the thread's /proc schedstat file as
 * tierfs reads the requesting thread's when it samples (one pread of a file
 * kept open). (5) and (6): the same with the clock read for one record in
 * 12 and left unread for the rest (trace format version 4: tierfs leaves a
 * thread's clock unread within two round trips of its previous reply; a
 * fio QD1 recording through tierfs read 8% of them). Reports records
 * written, dropped, the ring segments spilled (a producer that found its
 * ring full went on in a new one: the writer thread had no CPU in time),
 * the achieved rate, and the
 * CPU time each record cost: on the producing thread (its thread CPU clock,
 * what a request pays) and on the writer thread (the process's CPU clock
 * less the producers'), which unlike the rates do not depend on how busy
 * the host is.
 *
 * The producers' "put" figure there is a request's whole share of the
 * bench: formatting and interning a path, the pacing's clock reads and
 * sleeps, and the schedstat reads, not only the put. With put-only, two
 * runs at 200k records/s instead: the put alone of a record built ahead
 * (its clock left unread, packed, for 11 in 12, as tierfs's are), and the
 * same loop without the put; the put costs the difference of their "put"
 * figures.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "traces/trace.h"

#define NPROD 4

struct prod {
	struct ts_trace_writer *w;
	uint64_t rate;	/* ops/s for this thread, 0 = unpaced */
	uint64_t until; /* ts_now_ns() deadline */
	uint64_t n;	/* puts done */
	uint64_t cpu_ns; /* the thread's CPU time over the run */
	unsigned id;
	unsigned cpu; /* a CPU sample per record, its clock read one in @cpu; 0: none */
	int only; /* 1: the put alone (no path, clock or schedstat work); -1: not even it */
};

static uint64_t cpu_clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * TS_NS_PER_S + (uint64_t)ts.tv_nsec;
}

static uint64_t thread_cpu_ns(void)
{
	return cpu_clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* The put alone, as tierfs's request path makes it once its record is
 * built: the record's fields change from one put to the next, its path was
 * interned ahead, and a packed sample (clock unread) goes with every one
 * but one in 12. With @only -1 the same loop without the put: what the loop
 * and its pacing cost, to take off. */
static void *put_only(struct prod *p)
{
	uint64_t t0 = ts_now_ns();
	struct ts_trace_rec r = {
	    .length = 4096,
	    .result = 4096,
	    .file_id = ts_trace_writer_file_id(p->w, "/imagenet/train/n00000001.JPEG"),
	    .tid = p->id,
	    .op = TS_OP_READ,
	};
	struct ts_trace_cpu gap = {.pid = 1 + p->id, .ppid = 1, .flags = TS_CPU_F_GAP};
	struct ts_trace_cpu read = {.pid = 1 + p->id, .ppid = 1, .on_ns = 1};
	uint64_t c0 = thread_cpu_ns();
	uint64_t now = t0;

	for (uint64_t i = 0;; i++) {
		if ((i & 63) == 0) {
			now = ts_now_ns();
			if (now >= p->until)
				break;
			if (p->rate)
				ts_sleep_until_ns(t0 + i * TS_NS_PER_S / p->rate);
		}
		r.submit_ns = now + i;
		r.complete_ns = r.submit_ns + 1000;
		r.offset = i * 4096;
		gap.sys_ns = read.sys_ns = i & 1023;
		read.on_ns = i;
		if (p->only > 0)
			ts_trace_writer_put_cpu(p->w, &r, i % 12 ? &gap : &read);
		else
			__asm__ volatile("" : : "r"(&r), "r"(&gap), "r"(&read) : "memory");
		p->n++;
	}
	p->cpu_ns = thread_cpu_ns() - c0;
	return NULL;
}

static void *producer(void *arg)
{
	struct prod *p = arg;
	if (p->only)
		return put_only(p);
	uint64_t t0 = ts_now_ns();
	char path[64], buf[96];
	int fd = p->cpu ? open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC) : -1;
	uint64_t c0 = thread_cpu_ns();

	for (uint64_t i = 0;; i++) {
		if ((i & 63) == 0) {
			uint64_t now = ts_now_ns();
			if (now >= p->until)
				break;
			if (p->rate) /* sleep until the 64-op batch is due */
				ts_sleep_until_ns(t0 + i * TS_NS_PER_S / p->rate);
		}
		snprintf(path, sizeof(path), "/imagenet/train/n%08u.JPEG", (unsigned)(i % 5000));
		struct ts_trace_rec r = {
		    .submit_ns = ts_now_ns(),
		    .offset = i * 4096,
		    .length = 4096,
		    .result = 4096,
		    .file_id = ts_trace_writer_file_id(p->w, path),
		    .tid = p->id,
		    .op = TS_OP_READ,
		};
		r.complete_ns = r.submit_ns + 1;
		if (p->cpu && i % p->cpu) {
			struct ts_trace_cpu c = {.pid = 1 + p->id, .ppid = 1, .flags = TS_CPU_F_GAP};
			ts_trace_writer_put_cpu(p->w, &r, &c);
		} else if (p->cpu) {
			unsigned long long on = 0, q = 0;
			ssize_t k = pread(fd, buf, sizeof(buf) - 1, 0);
			if (k > 0) {
				buf[k] = 0;
				if (sscanf(buf, "%llu %llu", &on, &q) != 2)
					on = q = 0;
			}
			struct ts_trace_cpu c = {
			    .on_ns = on, .runq_ns = q, .pid = 1 + p->id, .ppid = 1};
			ts_trace_writer_put_cpu(p->w, &r, &c);
		} else {
			ts_trace_writer_put(p->w, &r);
		}
		p->n++;
	}
	if (fd >= 0)
		close(fd);
	p->cpu_ns = thread_cpu_ns() - c0;
	return NULL;
}

static int run(const char *file, uint64_t total_rate, double secs, const char *what, unsigned cpu,
	       int only)
{
	struct ts_trace_hdr h = {0};
	struct ts_trace_writer *w;
	struct prod p[NPROD];
	pthread_t th[NPROD];
	uint64_t dropped, spills, n = 0, prod_ns = 0;
	int ret;

	if ((ret = ts_trace_writer_open(file, &h, &w))) {
		fprintf(stderr, "trace_writer: %s: %s\n", file, ts_strerror(ret));
		return 1;
	}
	uint64_t t0 = ts_now_ns(), until = t0 + (uint64_t)(secs * 1e9);
	uint64_t pc0 = cpu_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	for (unsigned i = 0; i < NPROD; i++) {
		p[i] = (struct prod){
		    .w = w, .rate = total_rate / NPROD, .until = until, .id = i, .cpu = cpu,
		    .only = only};
		pthread_create(&th[i], NULL, producer, &p[i]);
	}
	for (unsigned i = 0; i < NPROD; i++) {
		pthread_join(th[i], NULL);
		n += p[i].n;
		prod_ns += p[i].cpu_ns;
	}
	uint64_t t1 = ts_now_ns();
	spills = ts_trace_writer_spills(w);
	if ((ret = ts_trace_writer_close(w, &dropped))) {
		fprintf(stderr, "trace_writer: %s: %s\n", file, ts_strerror(ret));
		return 1;
	}
	uint64_t t2 = ts_now_ns();
	/* the main thread only waits: the rest of the process's CPU is the
	 * writer thread's (close's final drain included) */
	uint64_t writer_ns = cpu_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - pc0 - prod_ns;
	printf("%-14s %4u threads  %10llu puts in %.2f s = %9.0f ops/s  dropped %llu (%.4f%%)  "
	       "spilled %llu  close %.1f ms  cpu/record: put %.0f ns, writer %.0f ns\n",
	       what, NPROD, (unsigned long long)n, (t1 - t0) / 1e9, n / ((t1 - t0) / 1e9),
	       (unsigned long long)dropped, n ? 100.0 * (double)dropped / (double)n : 0.0,
	       (unsigned long long)spills,
	       (t2 - t1) / 1e6, n ? (double)prod_ns / (double)n : 0.0,
	       n ? (double)writer_ns / (double)n : 0.0);
	return 0;
}

int main(int argc, char **argv)
{
	const char *file = argc > 1 ? argv[1] : "/tmp/trace_writer_bench.trace";
	double secs = argc > 2 ? atof(argv[2]) : 5.0;
	bool only = argc > 3 && !strcmp(argv[3], "put-only");

	if (only) /* the put alone, and the same loop without it */
		return run(file, 200000, secs, "put-only", 12, 1) ||
		       run(file, 200000, secs, "loop-only", 12, -1);
	if (run(file, 200000, secs, "paced", 0, 0) || run(file, 0, 1.0, "unpaced", 0, 0) ||
	    run(file, 200000, secs, "paced+cpu", 1, 0) || run(file, 0, 1.0, "unpaced+cpu", 1, 0) ||
	    run(file, 200000, secs, "paced+cpu/12", 12, 0) ||
	    run(file, 0, 1.0, "unpaced+cpu/12", 12, 0))
		return 1;
	unlink(file);
	return 0;
}
