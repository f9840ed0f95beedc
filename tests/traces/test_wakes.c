/*
 * test_wakes.c — the wake file (traces/wakes.h): tracepoint lines become
 * the tree's threads, the wakes between them, the IO sleeps (state D)
 * that something outside the tree ended and the interruptible sleeps an
 * interrupt ended (pauses), and nothing else (a wake of an interruptible
 * sleep by a thread outside the tree, of a preempted thread); the file
 * reads back as written; malformed files name the line.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tcheck.h"
#include "traces/wakes.h"

static const char *const lines[] = {
    /* 100 forks 101 (a thread) and 102, whose comm has a dash and spaces */
    "         python3-100     [000] .....    10.000000: sched_process_fork: comm=python3 "
    "pid=100 child_comm=python3 child_pid=101",
    "         python3-100     [000] .....    10.000010: sched_process_fork: comm=python3 "
    "pid=100 child_comm=my - prog child_pid=102",
    /* 101 sleeps, 100 wakes it: a wake */
    "         python3-101     [001] d..2.    10.000100: sched_switch: prev_comm=python3 "
    "prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120",
    "         python3-100     [000] d..3.    10.000300: sched_waking: comm=python3 pid=101 "
    "prio=120 target_cpu=001",
    /* 101 sleeps, a timer (softirq on the idle task) wakes it: its own
     * pace, a pause */
    "         python3-101     [001] d..2.    10.000400: sched_switch: prev_comm=python3 "
    "prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120",
    "          <idle>-0       [001] d.s4.    10.000500: sched_waking: comm=python3 pid=101 "
    "prio=120 target_cpu=001",
    /* 101 in D, tierfs (not in the tree) replies: the request's own IO, an
     * IO sleep ended from outside */
    "         python3-101     [001] d..2.    10.000600: sched_switch: prev_comm=python3 "
    "prev_pid=101 prev_prio=120 prev_state=D ==> next_comm=tierfs next_pid=555 next_prio=120",
    "          tierfs-555     [001] d..3.    10.000700: sched_waking: comm=python3 pid=101 "
    "prio=120 target_cpu=001",
    /* 101 preempted (R+), then woken by 100: it was not asleep */
    "         python3-101     [001] d..2.    10.000800: sched_switch: prev_comm=python3 "
    "prev_pid=101 prev_prio=120 prev_state=R+ ==> next_comm=python3 next_pid=100 next_prio=120",
    "         python3-100     [001] d..3.    10.000850: sched_waking: comm=python3 pid=101 "
    "prio=120 target_cpu=001",
    /* 102 sleeps, woken by 101 from a hard interrupt: not 101's doing
     * but the interrupt's (a device), a pause */
    "      my - prog-102     [000] d..2.    10.000900: sched_switch: prev_comm=my - prog "
    "prev_pid=102 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120",
    "         python3-101     [001] d.h1.    10.000950: sched_waking: comm=my - prog pid=102 "
    "prio=120 target_cpu=000",
    /* ... and then by 101 itself: a wake */
    "      my - prog-102     [000] d..2.    10.001000: sched_switch: prev_comm=my - prog "
    "prev_pid=102 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120",
    "         python3-101     [001] d..3.    10.001250: sched_waking: comm=my - prog pid=102 "
    "prio=120 target_cpu=000",
    /* 102 in D, a block completion in a softirq ends it: an IO sleep
     * ended by an interrupt (waker 0) */
    "      my - prog-102     [000] d..2.    10.001500: sched_switch: prev_comm=my - prog "
    "prev_pid=102 prev_prio=120 prev_state=D ==> next_comm=swapper/0 next_pid=0 next_prio=120",
    "          <idle>-0       [000] d.s4.    10.001600: sched_waking: comm=my - prog pid=102 "
    "prio=120 target_cpu=000",
    "      my - prog-102     [000] .....    10.002000: sched_process_exit: comm=my - prog "
    "pid=102 prio=120 group_dead=true",
    /* not an event of the tree, not a line at all */
    "          other-900      [000] d..3.    10.002100: sched_waking: comm=x pid=901 prio=120 "
    "target_cpu=000",
    "garbage",
};

/*
 * A wake file of thousands of threads, made here: each thread's tid, pid
 * and parent known to the maker, so the reader's tid index, the root and
 * --lock-wakes's drop are checked against the maker's own answer (no
 * lookup of the library's). Tids scattered (i * 7919 mod 65521 + 1, all
 * distinct), 40 processes; every thread forked by an earlier-listed one
 * except the first (forked by a thread listed last) and thread ROOT
 * (forked by a thread not listed): the root is thread ROOT.
 */
#define BIG_N 4000
#define BIG_W 30000
#define BIG_ROOT 2713
static uint32_t big_tid(size_t i)
{
	return (uint32_t)(i * 7919 % 65521 + 1);
}
static void check_big(void)
{
	static uint32_t pid[BIG_N];
	static struct ts_wake want[BIG_W];
	char *buf = NULL, err[256];
	size_t len = 0, nwant = 0;
	uint64_t x = 88172645463325252ULL; /* xorshift64 */
	FILE *f = open_memstream(&buf, &len);
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "tiersim-wakes 1\nspan 1000 100000000\n");
	for (size_t i = 0; i < BIG_N; i++) {
		pid[i] = big_tid(i % 40); /* the process of thread i % 40 */
		uint32_t ppid = i == 0		? big_tid(BIG_N - 1)
				: i == BIG_ROOT ? 70000
						: big_tid(i / 2);
		fprintf(f, "T %u %u %u 1000 100000000 0 0 t%zu\n", big_tid(i), pid[i], ppid, i);
	}
	for (size_t k = 0; k < BIG_W; k++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t a = x % BIG_N, b = (x >> 20) % BIG_N;
		uint64_t t = 200000 + k * 1000, slept = (x >> 40) % 100000; /* 0-100 us */
		fprintf(f, "W %" PRIu64 " %" PRIu64 " %u %u\n", t, t - slept, big_tid(a),
			big_tid(b));
		if (!(pid[a] == pid[b] && slept < 50000))
			want[nwant++] = (struct ts_wake){.t_ns = t,
							 .since_ns = t - slept,
							 .wakee = big_tid(a),
							 .waker = big_tid(b)};
	}
	fclose(f);
	struct ts_wakes s;
	*err = 0;
	int rc = ts_wakes_read_mem(buf, len, "big.wakes", &s, err, sizeof(err));
	CHECK(rc == 0);
	if (rc)
		fprintf(stderr, "big.wakes: %s\n", err);
	CHECK_EQ_U64(s.nthreads, BIG_N);
	size_t found = 0;
	for (size_t i = 0; i < BIG_N && s.nthreads == BIG_N; i++) {
		const struct ts_wakes_thread *th = ts_wakes_thread_of(&s, big_tid(i));
		found += th == &s.threads[i] && th->pid == pid[i];
	}
	CHECK_EQ_U64(found, BIG_N);
	size_t absent = 0; /* tids not listed: 0 and every tid past the last */
	absent += ts_wakes_thread_of(&s, 0) == NULL;
	for (uint32_t tid = 65522; tid < 66522; tid++)
		absent += ts_wakes_thread_of(&s, tid) == NULL;
	CHECK_EQ_U64(absent, 1001);
	CHECK_EQ_U64(ts_wakes_root(&s), big_tid(BIG_ROOT));
	/* the same threads filled in by hand (no index): the same answers */
	struct ts_wakes h = {.threads = s.threads, .nthreads = s.nthreads};
	CHECK(ts_wakes_thread_of(&h, big_tid(1234)) == &s.threads[1234]);
	CHECK(ts_wakes_thread_of(&h, 65522) == NULL);
	CHECK_EQ_U64(ts_wakes_root(&h), big_tid(BIG_ROOT));
	/* --lock-wakes 50us: exactly the wakes the maker kept */
	CHECK_EQ_U64(ts_wakes_drop_short(&s, 50000), BIG_W - nwant);
	CHECK(s.nwakes == nwant && !memcmp(s.wakes, want, nwant * sizeof(*want)));
	CHECK(nwant > 1000 && BIG_W - nwant > 100); /* both kinds, many of each */
	ts_wakes_free(&s);
	free(buf);

	/* a tid listed twice, far down: the second line named */
	f = open_memstream(&buf, &len);
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "tiersim-wakes 1\n");
	for (size_t i = 0; i < BIG_N; i++)
		fprintf(f, "T %u 1 0 1000 2000 0 0 t\n", big_tid(i == 3999 ? 17 : i));
	fclose(f);
	*err = 0;
	CHECK(ts_wakes_read_mem(buf, len, "big.wakes", &s, err, sizeof(err)) != 0);
	char want_err[64];
	snprintf(want_err, sizeof(want_err), "big.wakes:%d: thread %u listed twice", BIG_N + 1,
		 big_tid(17));
	CHECK(strstr(err, want_err) != NULL);
	free(buf);
}

static bool adv_eq(const struct ts_advice *a, const struct ts_advice *b)
{
	return a->t_ns == b->t_ns && a->ino == b->ino && a->off == b->off && a->len == b->len &&
	       a->tid == b->tid && a->fd == b->fd && a->advice == b->advice;
}

int main(void)
{
	struct ts_wakes_parser *p;
	struct ts_wakes s, r;
	char err[256];

	CHECK(ts_wakes_parser_new(100, 9000000000ULL, &p) == 0);
	int used = 0;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		used += ts_wakes_parser_line(p, lines[i]) == 1;
	CHECK_EQ_U64(used, 17);
	/* advices (A lines): a thread of the tree's kept, in time order
	 * (the BPF ring's order is nearly time's), another's not, nor one
	 * with no inode or an unknown advice */
	static const struct ts_advice adv[] = {
	    {.t_ns = 10000900000ULL, .ino = 77, .off = 0, .len = 0, .tid = 102, .fd = 4, .advice = 1},
	    {.t_ns = 10000800000ULL, .ino = 42, .off = 4096, .len = 8192, .tid = 101, .fd = 3,
	     .advice = 2},
	    {.t_ns = 10000850000ULL, .ino = 42, .tid = 900, .fd = 3, .advice = 2},
	    {.t_ns = 10000860000ULL, .ino = 0, .tid = 101, .fd = 3, .advice = 2},
	    {.t_ns = 10000870000ULL, .ino = 42, .tid = 101, .fd = 3, .advice = 6},
	};
	int kept = 0;
	for (size_t i = 0; i < sizeof(adv) / sizeof(adv[0]); i++)
		kept += ts_wakes_parser_advice(p, &adv[i]) == 1;
	CHECK_EQ_U64(kept, 2);
	CHECK(ts_wakes_parser_finish(p, 10003000000ULL, &s) == 0);
	CHECK_EQ_U64(s.nadvices, 2);
	if (s.nadvices == 2) {
		CHECK(adv_eq(&s.advices[0], &adv[1]));
		CHECK(adv_eq(&s.advices[1], &adv[0]));
	}
	ts_wakes_parser_free(p);

	CHECK_EQ_U64(s.nthreads, 3);
	CHECK_EQ_U64(s.nwakes, 2);
	if (s.nwakes == 2) {
		CHECK_EQ_U64(s.wakes[0].t_ns, 10000300000ULL);
		CHECK_EQ_U64(s.wakes[0].since_ns, 10000100000ULL);
		CHECK_EQ_U64(s.wakes[0].wakee, 101);
		CHECK_EQ_U64(s.wakes[0].waker, 100);
		CHECK_EQ_U64(s.wakes[1].t_ns, 10001250000ULL);
		CHECK_EQ_U64(s.wakes[1].since_ns, 10001000000ULL);
		CHECK_EQ_U64(s.wakes[1].wakee, 102);
		CHECK_EQ_U64(s.wakes[1].waker, 101);
	}
	CHECK_EQ_U64(s.nsleeps, 2);
	if (s.nsleeps == 2) {
		CHECK_EQ_U64(s.sleeps[0].t_ns, 10000700000ULL);
		CHECK_EQ_U64(s.sleeps[0].since_ns, 10000600000ULL);
		CHECK_EQ_U64(s.sleeps[0].tid, 101);
		CHECK_EQ_U64(s.sleeps[0].waker, 555);
		CHECK_EQ_U64(s.sleeps[1].t_ns, 10001600000ULL);
		CHECK_EQ_U64(s.sleeps[1].since_ns, 10001500000ULL);
		CHECK_EQ_U64(s.sleeps[1].tid, 102);
		CHECK_EQ_U64(s.sleeps[1].waker, 0);
	}
	CHECK_EQ_U64(s.npauses, 2);
	if (s.npauses == 2) {
		CHECK_EQ_U64(s.pauses[0].t_ns, 10000500000ULL);
		CHECK_EQ_U64(s.pauses[0].since_ns, 10000400000ULL);
		CHECK_EQ_U64(s.pauses[0].tid, 101);
		CHECK_EQ_U64(s.pauses[1].t_ns, 10000950000ULL);
		CHECK_EQ_U64(s.pauses[1].since_ns, 10000900000ULL);
		CHECK_EQ_U64(s.pauses[1].tid, 102);
	}
	/* an interruptible sleep that a thread outside the tree ended (tierfs's
	 * FUSE reply) is none of these */
	{
		static const char *const fuse_lines[] = {
		    "p-400 [000] d..2. 10.000100: sched_switch: prev_comm=p prev_pid=400 "
		    "prev_prio=120 prev_state=S ==> next_comm=tierfs next_pid=555 next_prio=120",
		    "tierfs-555 [000] d..3. 10.000200: sched_waking: comm=p pid=400 prio=120 "
		    "target_cpu=000",
		};
		struct ts_wakes q;
		CHECK(ts_wakes_parser_new(400, 9000000000ULL, &p) == 0);
		for (size_t i = 0; i < 2; i++)
			CHECK(ts_wakes_parser_line(p, fuse_lines[i]) == 1);
		CHECK(ts_wakes_parser_finish(p, 10001000000ULL, &q) == 0);
		ts_wakes_parser_free(p);
		CHECK(q.nwakes == 0 && q.nsleeps == 0 && q.npauses == 0);
		ts_wakes_free(&q);
	}
	const struct ts_wakes_thread *t102 = ts_wakes_thread_of(&s, 102);
	CHECK(t102 && t102->ppid == 100 && t102->start_ns == 10000010000ULL &&
	      t102->end_ns == 10002000000ULL && !strcmp(t102->comm, "my - prog"));
	const struct ts_wakes_thread *t100 = ts_wakes_thread_of(&s, 100);
	CHECK(t100 && t100->start_ns == 9000000000ULL && t100->end_ns == 10003000000ULL);

	/* time on a CPU and queued for one, from the switches */
	static const char *const cpu_lines[] = {
	    "p-300 [000] ..... 10.000000: sched_process_fork: comm=p pid=300 child_comm=p "
	    "child_pid=301",
	    "<idle>-0 [001] d..2. 10.000100: sched_switch: prev_comm=swapper/1 prev_pid=0 "
	    "prev_prio=120 prev_state=R ==> next_comm=p next_pid=301 next_prio=120",
	    "p-301 [001] d..2. 10.000400: sched_switch: prev_comm=p prev_pid=301 prev_prio=120 "
	    "prev_state=R+ ==> next_comm=p next_pid=300 next_prio=120",
	    "p-300 [001] d..2. 10.000500: sched_switch: prev_comm=p prev_pid=300 prev_prio=120 "
	    "prev_state=S ==> next_comm=p next_pid=301 next_prio=120",
	    "p-301 [001] d..3. 10.000700: sched_waking: comm=p pid=300 prio=120 target_cpu=001",
	    "p-301 [001] d..2. 10.000800: sched_switch: prev_comm=p prev_pid=301 prev_prio=120 "
	    "prev_state=S ==> next_comm=p next_pid=300 next_prio=120",
	};
	struct ts_wakes c;
	CHECK(ts_wakes_parser_new(300, 9000000000ULL, &p) == 0);
	for (size_t i = 0; i < sizeof(cpu_lines) / sizeof(cpu_lines[0]); i++)
		CHECK(ts_wakes_parser_line(p, cpu_lines[i]) == 1);
	CHECK(ts_wakes_parser_finish(p, 10001000000ULL, &c) == 0);
	ts_wakes_parser_free(p);
	const struct ts_wakes_thread *c300 = ts_wakes_thread_of(&c, 300),
				     *c301 = ts_wakes_thread_of(&c, 301);
	CHECK(c300 && c301);
	if (c300 && c301) {
		/* 301: on 100-400 and 500-800, queued 0-100 and 400-500 */
		CHECK_EQ_U64(c301->oncpu_ns, 600000);
		CHECK_EQ_U64(c301->runq_ns, 200000);
		/* 300: on 400-500, woken at 700, on again from 800 to the end */
		CHECK_EQ_U64(c300->oncpu_ns, 300000);
		CHECK_EQ_U64(c300->runq_ns, 100000);
	}
	CHECK_EQ_U64(c.nwakes, 1);
	if (c.nwakes == 1) {
		CHECK_EQ_U64(c.wakes[0].since_ns, 10000500000ULL);
	}
	ts_wakes_free(&c);

	/* written and read back: the same */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK(f && ts_wakes_write(f, &s) == 0);
	fclose(f);
	CHECK(ts_wakes_read_mem(buf, len, "w.wakes", &r, err, sizeof(err)) == 0);
	CHECK_EQ_U64(r.nthreads, s.nthreads);
	CHECK_EQ_U64(r.nwakes, s.nwakes);
	CHECK(r.nwakes == s.nwakes && !memcmp(r.wakes, s.wakes, s.nwakes * sizeof(*s.wakes)));
	CHECK(r.nsleeps == s.nsleeps &&
	      !memcmp(r.sleeps, s.sleeps, s.nsleeps * sizeof(*s.sleeps)));
	CHECK(r.npauses == s.npauses && r.npauses == 2 &&
	      !memcmp(r.pauses, s.pauses, s.npauses * sizeof(*s.pauses)));
	CHECK(r.begin_ns == s.begin_ns && r.end_ns == s.end_ns);
	CHECK(r.nadvices == s.nadvices && r.nadvices == 2 &&
	      adv_eq(&r.advices[0], &s.advices[0]) && adv_eq(&r.advices[1], &s.advices[1]));
	ts_wakes_free(&r);
	free(buf);
	ts_wakes_free(&s);

	/* malformed: one line naming the file and line */
	static const struct {
		const char *text, *want;
	} bad[] = {
	    {"tiersim-trace 1\n", "w.wakes:1: not a tiersim wake file"},
	    {"tiersim-wakes 1\nT 5 5 0 10 20 0 0 a\nW 30 40 5 5\n", "w.wakes:3: a wake line"},
	    {"tiersim-wakes 1\nT 5 5 0 10 20 0 0 a\nA 30 5 3 0 0 0 2\n", "w.wakes:3: an advice line"},
	    {"tiersim-wakes 1\nT 5 5 0 10 20 0 0 a\nA 30 5 3 9 0 0 6\n", "w.wakes:3: an advice line"},
	    {"tiersim-wakes 1\nT 5 5 0 10 20 0 0 a\nA 30 5 3 9 0 0 2\nA 20 5 3 9 0 0 2\n",
	     "w.wakes:4: advices are not in time order"},
	    {"tiersim-wakes 1\nT 5 5 0 10 20 0 0 a\nA 30 6 3 9 0 0 2\n",
	     "w.wakes:3: advice of 6: a thread not listed"},
	    {"tiersim-wakes 1\nT 5 5 0 10 20 0 0 a\nW 30 20 5 5 0 0\n", "w.wakes:3: a wake line"},
	    {"tiersim-wakes 1\nT 5 5 0 10 20 0 0 a\nW 30 20 5 6\n", "by 6: a thread not listed"},
	    /* the faulty line, not the file's last */
	    {"tiersim-wakes 1\nW 20 10 5 5\nW 30 20 5 6\nT 5 5 0 10 20 0 0 a\n",
	     "w.wakes:3: wake of 5 by 6: a thread not listed"},
	    {"tiersim-wakes 1\nT 5 5 0 30 20 0 0 a\n", "w.wakes:2: a thread line"},
	    {"tiersim-wakes 1\nT 5 5 0 10 20 a\n", "w.wakes:2: a thread line"},
	    {"tiersim-wakes 1\nT 5 5 0 10 20 0 0 a\nT 5 5 0 10 20 0 0 a\n",
	     "w.wakes:3: thread 5 listed twice"},
	    {"tiersim-wakes 1\nX\n", "w.wakes:2: not a T, W, S, P, H, A, span or cpus line"},
	    {"tiersim-wakes 1\nT 5 5 0 10 20 0 0 a\nP 30 40 5\n", "w.wakes:3: a pause line"},
	    {"tiersim-wakes 1\nT 5 5 0 10 20 0 0 a\nP 30 20 5 0\n", "w.wakes:3: a pause line"},
	    {"tiersim-wakes 1\nP 20 10 5\nP 30 20 6\nT 5 5 0 10 20 0 0 a\n",
	     "w.wakes:3: pause of 6: a thread not listed"},
	    {"tiersim-wakes 1\nT 5 5 0 10 20 0 0 a\nP 30 20 5\nP 29 20 5\n",
	     "w.wakes:4: pauses are not in time order"},
	    {"tiersim-wakes 1\nT 5 5 0 10 20 0 0 a\nS 30 40 5 0\n", "w.wakes:3: a sleep line"},
	    {"tiersim-wakes 1\nT 5 5 0 10 20 0 0 a\nS 30 20 6 0\n", "sleep of 6: a thread not listed"},
	    {"tiersim-wakes 1\nS 20 10 5 0\nW 25 20 5 5\nS 30 20 6 0\nT 5 5 0 10 20 0 0 a\n",
	     "w.wakes:4: sleep of 6: a thread not listed"},
	    {"tiersim-wakes 1\nT 5 5 0 10 20 0 0 a\nS 30 20 5 0\nS 29 20 5 0\n",
	     "w.wakes:4: sleeps are not in time order"},
	    {"tiersim-wakes 1\ncpus 0 0\n", "w.wakes:2: 'cpus N OTHERS_NS'"},
	    {"tiersim-wakes 1\nT 5 5 0 10 20 0 0 a\nW 30 20 5 5\nW 29 20 5 5\n",
	     "w.wakes:4: wakes are not in time order"},
	    {"", "w.wakes:1: empty file"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		*err = 0;
		int rc = ts_wakes_read_mem(bad[i].text, strlen(bad[i].text), "w.wakes", &r, err,
					   sizeof(err));
		CHECK(rc != 0);
		if (!strstr(err, bad[i].want)) {
			fprintf(stderr, "case %zu: '%s' lacks '%s'\n", i, err, bad[i].want);
			tc_failures++;
		}
	}
	check_big();
	return tc_exit();
}
