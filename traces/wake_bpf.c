/*
 * wake_bpf.c — the user half of the BPF wake capture (wake_bpf.h): loads
 * wake_bpf.bpf.c, names the tree's root to it, drains its ring into the
 * parser and, at the end, reads each thread's totals from its map.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "traces/wake_bpf.h"
#include "traces/wake_bpf_rec.h"
#include "traces/wake_bpf.skel.h" /* generated: traces/meson.build */

struct ts_wake_bpf {
	struct wake_bpf *skel;
	struct ring_buffer *ring;
	struct ts_wakes_parser *parser;
	pthread_t reader;
	bool running;
	atomic_bool stop;
	int err; /* the reader's: -ENOMEM */
	struct bpf_link *links[32];
	size_t nlinks;
};

/* the map's value (wake_bpf.bpf.c's struct tstate) */
struct tstate {
	uint64_t since, on_since, rq_since, oncpu_ns, runq_ns;
	uint32_t d, pad;
};

/* libbpf's own messages would be lines of their own: the reason a load
 * failed goes into @why instead */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

int ts_wake_bpf_open(struct ts_wake_bpf **out, size_t ring_kb, char *why, size_t whylen)
{
	struct ts_wake_bpf *b = calloc(1, sizeof(*b));
	int e;

	*out = NULL;
	if (!b)
		return -ENOMEM;
	libbpf_set_print(quiet);
	b->skel = wake_bpf__open();
	if (!b->skel) {
		e = -errno;
		snprintf(why, whylen, "opening the BPF programs: %s", strerror(errno));
		free(b);
		return e ? e : -EINVAL;
	}
	/* a power of two of pages, as the kernel's ring wants */
	size_t ring = (size_t)sysconf(_SC_PAGESIZE);
	while (ring < ring_kb * 1024 && ring < (1UL << 30))
		ring *= 2;
	if ((e = bpf_map__set_max_entries(b->skel->maps.recs, (uint32_t)ring)) ||
	    (e = wake_bpf__load(b->skel))) {
		snprintf(why, whylen, "loading the BPF programs: %s%s", strerror(-e),
			 e == -EPERM ? " (needs CAP_BPF and CAP_PERFMON)" : "");
		ts_wake_bpf_free(b);
		return e;
	}
	*out = b;
	return 0;
}

/*
 * The programs, attached in an order that keeps the interrupt depth
 * right: the interrupts' exits first (an exit whose entry was not seen
 * counts nothing), then their entries (an entry whose exit would not be
 * seen would count forever), then the scheduler's.
 */
static int attach(struct ts_wake_bpf *b)
{
	for (int pass = 0; pass < 3; pass++) {
		struct bpf_program *p;
		bpf_object__for_each_program(p, b->skel->obj)
		{
			const char *n = bpf_program__name(p);
			size_t l = strlen(n);
			int kind = l > 4 && !strcmp(n + l - 4, "_out")	 ? 0
				   : l > 3 && !strcmp(n + l - 3, "_in") ? 1
									 : 2;
			if (kind != pass)
				continue;
			if (b->nlinks == TS_ARRAY_SIZE(b->links))
				return -E2BIG;
			struct bpf_link *k = bpf_program__attach(p);
			if (!k)
				return -errno;
			b->links[b->nlinks++] = k;
		}
	}
	return 0;
}

static void detach(struct ts_wake_bpf *b)
{
	/* the scheduler's first, in the reverse order */
	while (b->nlinks)
		bpf_link__destroy(b->links[--b->nlinks]);
}

static int on_rec(void *ctx, void *data, size_t len)
{
	struct ts_wake_bpf *b = ctx;
	const struct ts_wake_bpf_rec *r = data;
	struct ts_wakes_event ev = {.t_ns = r->t_ns, .a = r->a, .b = r->b};
	int e = 0;

	if (len < sizeof(*r))
		return 0;
	switch (r->type) {
	case TS_WAKE_BPF_WAKE: {
		struct ts_wake w = {
		    .t_ns = r->t_ns, .since_ns = r->since_ns, .wakee = r->a, .waker = r->b};
		e = ts_wakes_parser_wake(b->parser, &w);
		break;
	}
	case TS_WAKE_BPF_SLEEP: {
		struct ts_sleep z = {
		    .t_ns = r->t_ns, .since_ns = r->since_ns, .tid = r->a, .waker = r->b};
		e = ts_wakes_parser_sleep(b->parser, &z);
		break;
	}
	case TS_WAKE_BPF_FORK:
		ev.type = TS_WAKES_FORK;
		ev.cur = r->a;
		ev.tgid = r->c;
		ev.str = r->comm;
		ev.len = strnlen(r->comm, sizeof(r->comm));
		e = ts_wakes_parser_event(b->parser, &ev);
		break;
	case TS_WAKE_BPF_EXEC:
		ev.type = TS_WAKES_EXEC;
		ev.cur = r->a;
		ev.str = r->comm;
		ev.len = strnlen(r->comm, sizeof(r->comm));
		e = ts_wakes_parser_event(b->parser, &ev);
		break;
	case TS_WAKE_BPF_EXIT:
		ev.type = TS_WAKES_EXIT;
		ev.cur = r->a;
		e = ts_wakes_parser_event(b->parser, &ev);
		break;
	}
	if (e < 0) {
		b->err = e;
		return e; /* stops the drain */
	}
	return 0;
}

/* Drains the ring while the command runs: the programs wake nobody per
 * record (BPF_RB_NO_WAKEUP), so the reader looks every 20 ms, far less
 * than the ring takes to fill. */
static void *reader_main(void *arg)
{
	struct ts_wake_bpf *b = arg;
	while (!atomic_load(&b->stop) && !b->err) {
		if (ring_buffer__consume(b->ring) < 0 && !b->err)
			b->err = -EIO;
		struct timespec ts = {0, 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int ts_wake_bpf_start(struct ts_wake_bpf *b, pid_t pid, struct ts_wakes_parser *p, char *why,
		      size_t whylen)
{
	uint32_t root = (uint32_t)pid;
	struct tstate st = {0};
	int e;

	b->parser = p;
	b->ring = ring_buffer__new(bpf_map__fd(b->skel->maps.recs), on_rec, b, NULL);
	if (!b->ring) {
		e = -errno;
		snprintf(why, whylen, "the BPF ring: %s", strerror(errno));
		return e ? e : -ENOMEM;
	}
	if (bpf_map_update_elem(bpf_map__fd(b->skel->maps.tasks), &root, &st, BPF_ANY)) {
		e = -errno;
		snprintf(why, whylen, "naming the command to the BPF programs: %s", strerror(errno));
		return e;
	}
	if ((e = attach(b))) {
		detach(b);
		snprintf(why, whylen, "attaching the BPF programs: %s", strerror(-e));
		return e;
	}
	if ((e = -pthread_create(&b->reader, NULL, reader_main, b))) {
		detach(b);
		snprintf(why, whylen, "starting the scheduler reader: %s", strerror(-e));
		return e;
	}
	b->running = true;
	return 0;
}

int ts_wake_bpf_stop(struct ts_wake_bpf *b, uint64_t end_ns, uint64_t *lost, char *why,
		     size_t whylen)
{
	*lost = 0;
	detach(b);
	if (b->running) {
		atomic_store(&b->stop, true);
		pthread_join(b->reader, NULL);
		b->running = false;
	}
	if (!b->err && b->ring && ring_buffer__consume(b->ring) < 0 && !b->err)
		b->err = -EIO;
	if (b->err) {
		snprintf(why, whylen, "reading the scheduler records: %s", strerror(-b->err));
		return b->err;
	}
	*lost = b->skel->bss->lost;
	/* each thread's totals; one still on a CPU at the end, to the end */
	int fd = bpf_map__fd(b->skel->maps.tasks);
	uint32_t key, next;
	uint32_t *prev = NULL;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct tstate st;
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &st))
			continue;
		uint64_t on = st.oncpu_ns;
		if (st.on_since && end_ns > st.on_since)
			on += end_ns - st.on_since;
		(void)ts_wakes_parser_times(b->parser, key, on, st.runq_ns);
	}
	return 0;
}

void ts_wake_bpf_free(struct ts_wake_bpf *b)
{
	if (!b)
		return;
	if (b->running) {
		atomic_store(&b->stop, true);
		pthread_join(b->reader, NULL);
	}
	detach(b);
	ring_buffer__free(b->ring);
	wake_bpf__destroy(b->skel);
	free(b);
}
