/*
 * wake_capture.c — the scheduler tracepoints of a recorded command
 * (wake_capture.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/files.h"
#include "traces/wake_capture.h"
#include "traces/wakes.h"
#include "ts_config.h"
#if TS_HAVE_BPF
#include "traces/wake_bpf.h"
#endif

#define TRACEFS "/sys/kernel/tracing"

/* Where an event's fields sit in its record (events/sched/NAME/format). */
struct evfmt {
	uint16_t id;	 /* common_type; 0 = not enabled */
	int off_a, off_b; /* the two pids it carries (-1: none) */
	int off_state;	 /* sched_switch: prev_state (a long) */
	int off_str;	 /* fork: child_comm; exec: filename; -1: none */
	bool str_loc;	 /* the string is a __data_loc (offset | length << 16) */
	int str_size;	 /* a fixed char[N]'s N */
};

/* One event read from a CPU's buffer, until its turn comes. */
struct rawev {
	struct ts_wakes_event ev;
	uint32_t cpu;
	uint64_t seq; /* read order on its CPU, for equal times */
	char str[16]; /* the comm, or the file name's last component */
};

struct ts_wake_capture {
	char dir[PATH_MAX + 64];
	char mnt[PATH_MAX]; /* tracefs mounted for this capture alone, or "" */
	int *cpu_fd;	    /* per_cpu/cpuN/trace_pipe_raw */
	uint32_t ncpu;
	size_t page;	    /* a buffer page's size (events/header_page) */
	struct evfmt fmt[5]; /* per enum ts_wakes_ev_type - 1 */
	struct rawev *pend;  /* read, not yet fed: sorted by time at each round */
	size_t npend, pend_cap;
	uint64_t seq;
	bool missed; /* a page said the kernel lost events */
	pthread_t reader;
	bool running;
	atomic_bool stop;
	struct ts_wakes_parser *parser;
	int err; /* the reader's: -ENOMEM */
	uint64_t busy0; /* /proc/stat's busy CPU time at the start, ns */
	uint32_t cpus;
	struct ts_wake_bpf *bpf; /* capturing through BPF (wake_bpf.h), not tracefs */
	char note[320];		 /* why not through BPF, when it could not be */
};

static const char *const events[] = {"sched_switch", "sched_waking", "sched_process_fork",
				     "sched_process_exit", "sched_process_exec"};

static int put(const struct ts_wake_capture *c, const char *file, const char *val)
{
	char path[PATH_MAX + 160];
	snprintf(path, sizeof(path), "%s/%s", c->dir, file);
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, val, strlen(val));
	int e = n < 0 ? -errno : 0;
	close(fd);
	return e;
}

/* Per-CPU ring buffer: 8 MiB (a few seconds of context switches of a
 * busy loader between two drains), or $TIERSIM_WAKES_BUFFER_KB. */
static const char *buffer_kb(void)
{
	const char *v = getenv("TIERSIM_WAKES_BUFFER_KB");
	return v && *v && strspn(v, "0123456789") == strlen(v) ? v : "8192";
}

/* All CPUs' busy time so far (/proc/stat: user, nice, system, irq,
 * softirq, steal), ns; 0 when unreadable. */
static uint64_t busy_ns(void)
{
	unsigned long long v[8] = {0};
	FILE *f = fopen("/proc/stat", "re");
	int n = f ? fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
			   &v[3], &v[4], &v[5], &v[6], &v[7])
		  : 0;
	if (f)
		fclose(f);
	long hz = sysconf(_SC_CLK_TCK);
	if (n < 8 || hz <= 0)
		return 0;
	/* v[3] idle and v[4] iowait are not busy */
	unsigned long long ticks = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	return (uint64_t)(ticks * (1000000000ULL / (unsigned long long)hz));
}

static uint32_t tgid_of(uint32_t tid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%u/status", tid);
	FILE *f = fopen(path, "re");
	uint32_t tgid = 0;
	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "Tgid: %u", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

static void remove_instance(struct ts_wake_capture *c)
{
	if (*c->dir) {
		(void)put(c, "tracing_on", "0");
		(void)rmdir(c->dir);
	}
	if (*c->mnt) {
		(void)umount2(c->mnt, MNT_DETACH);
		(void)rmdir(c->mnt);
	}
}

/* Instances a `tiersim record` left behind under @root when it died
 * without removing its own (a crash, SIGKILL): tiersim-record-PID whose
 * process is gone (in this pid namespace) is removed. One still in use,
 * or whose number a live process has, stays. */
static void remove_stale(const char *root)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s/instances", root);
	DIR *d = opendir(dir);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		char *end;
		if (strncmp(e->d_name, "tiersim-record-", 15))
			continue;
		long pid = strtol(e->d_name + 15, &end, 10);
		if (*end || pid <= 0 || pid == (long)getpid() ||
		    !(kill((pid_t)pid, 0) && errno == ESRCH))
			continue;
		char path[PATH_MAX + 260]; /* the folder, /, a name of up to 255 */
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		(void)rmdir(path);
	}
	closedir(d);
}

/*
 * BPF first: its programs keep the tree's state in the kernel and send
 * only the wake file's lines, where tracefs records four events per FUSE
 * read of an IO-only loader for user space to decode and mostly drop.
 * Where BPF cannot be had (built without libbpf, no BTF, no CAP_BPF), the
 * note says why and tracefs captures the same lines.
 * $TIERSIM_WAKE_CAPTURE=tracefs asks for tracefs (to compare the two).
 */
static bool bpf_first(struct ts_wake_capture *c)
{
	const char *m = getenv("TIERSIM_WAKE_CAPTURE");
	if (m && !strcmp(m, "tracefs"))
		return false;
#if TS_HAVE_BPF
	char why[256] = "";
	/* one ring for all CPUs, of W and S lines and forks only: 2 MiB holds
	 * 40k of them, far more than come between two drains */
	const char *v = getenv("TIERSIM_WAKES_BUFFER_KB");
	size_t kb = v ? strtoul(buffer_kb(), NULL, 10) : 2048;
	if (!ts_wake_bpf_open(&c->bpf, kb, why, sizeof(why)))
		return true;
	snprintf(c->note, sizeof(c->note), "no BPF wake capture (%.220s): through tracefs, without hand-offs or advices", why);
#else
	snprintf(c->note, sizeof(c->note),
		 "no BPF wake capture (built without libbpf): through tracefs, without hand-offs or advices");
#endif
	return false;
}

const char *ts_wake_capture_note(const struct ts_wake_capture *c)
{
	return c && *c->note ? c->note : NULL;
}

int ts_wake_capture_open(struct ts_wake_capture **out, const char *scratch, char *why,
			 size_t whylen)
{
	struct ts_wake_capture *c = calloc(1, sizeof(*c));
	const char *root = TRACEFS;
	struct stat st;
	int e;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	if (bpf_first(c)) {
		/* still the tracefs capture's housekeeping: the instances of
		 * records that died, through a mount of our own for the moment
		 * where tracefs is not mounted */
		if (!stat(TRACEFS "/instances", &st)) {
			remove_stale(TRACEFS);
		} else if (geteuid() == 0) {
			snprintf(c->mnt, sizeof(c->mnt), "%s/tracefs", scratch);
			if (!mkdir(c->mnt, 0700)) {
				if (!mount("nodev", c->mnt, "tracefs", 0, NULL)) {
					remove_stale(c->mnt);
					(void)umount2(c->mnt, MNT_DETACH);
				}
				(void)rmdir(c->mnt);
			}
			*c->mnt = 0;
		}
		*out = c;
		return 0;
	}
	if (stat(TRACEFS "/instances", &st)) {
		/* not mounted where it usually is: a mount of our own, in
		 * @scratch, that nobody else uses or unmounts under us */
		if (geteuid() != 0) {
			snprintf(why, whylen, "tracefs is not mounted at " TRACEFS
					      " and mounting it needs root");
			free(c);
			return -EACCES;
		}
		snprintf(c->mnt, sizeof(c->mnt), "%s/tracefs", scratch);
		if (mkdir(c->mnt, 0700) || mount("nodev", c->mnt, "tracefs", 0, NULL)) {
			e = -errno;
			snprintf(why, whylen, "mounting tracefs at %s: %s", c->mnt, strerror(errno));
			(void)rmdir(c->mnt);
			free(c);
			return e;
		}
		root = c->mnt;
	}
	remove_stale(root);
	snprintf(c->dir, sizeof(c->dir), "%s/instances/tiersim-record-%ld", root, (long)getpid());
	if (mkdir(c->dir, 0700)) {
		e = -errno;
		snprintf(why, whylen, "%s: %s", c->dir, strerror(errno));
		*c->dir = 0;
		remove_instance(c);
		free(c);
		return e;
	}
	/* a new instance traces from the start: off until the command's pid
	 * is the filter */
	const char *step = "tracing_on";
	if (!(e = put(c, "tracing_on", "0")) && !(e = put(c, "trace_clock", "mono")) &&
	    !(e = put(c, "buffer_size_kb", buffer_kb())) &&
	    !(e = put(c, "options/event-fork", "1"))) {
		for (size_t i = 0; i < TS_ARRAY_SIZE(events) && !e; i++) {
			char f[96];
			snprintf(f, sizeof(f), "events/sched/%s/enable", events[i]);
			step = events[i];
			e = put(c, f, "1");
		}
	}
	if (e) {
		snprintf(why, whylen, "%s: setting %s: %s", c->dir, step, strerror(-e));
		remove_instance(c);
		free(c);
		return e;
	}
	*out = c;
	return 0;
}

/*
 * Reading the events. Each CPU's buffer is read in its binary form
 * (per_cpu/cpuN/trace_pipe_raw: whole pages of records, as the kernel
 * stores them) rather than as trace_pipe's text: trace_pipe formats every
 * event into a line, taking the buffer's lock with interrupts off once per
 * event, and the line is parsed back; perf on `tiersim record` of an
 * IO-only loader put most of wake capture's cost there. A page is one
 * copy out of the kernel; its records are decoded with the field offsets
 * the kernel publishes (events/sched/NAME/format), so no layout is
 * assumed but the page's (events/header_page, header_event).
 *
 * The CPUs' buffers are read one after another, so their events are
 * merged by time here, as trace_pipe merged them: each round reads every
 * CPU empty and feeds the parser, in time order, the events older than
 * the round's start less a margin (an event not yet read was stamped
 * after its CPU was emptied, less the moment between its stamp and its
 * commit); the rest wait for the next round, and the last round, after
 * tracing stops, feeds all.
 */
#define MERGE_MARGIN_NS (5 * TS_NS_PER_MS)

/* "field:TYPE NAME;\toffset:N;\tsize:N;..." lines of @text: the offset and
 * size of field @name, and whether it is a __data_loc; -1 when absent. */
static int field_at(const char *text, const char *name, int *size, bool *loc)
{
	size_t nl = strlen(name);
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *semi = strstr(l, ";\toffset:");
		const char *f = strstr(l, "field:");
		const char *eol = strchr(l, '\n');
		if (!semi || !f || (eol && semi > eol))
			continue;
		/* the name is the declaration's last word, less any [N] */
		const char *w = semi;
		while (w > f && w[-1] != ' ' && w[-1] != ':')
			w--;
		size_t wl = strcspn(w, "[;");
		if (wl != nl || memcmp(w, name, nl))
			continue;
		const char *sz = strstr(semi, "size:");
		if (size)
			*size = sz && (!eol || sz < eol) ? atoi(sz + 5) : 0;
		if (loc)
			*loc = strstr(f, "__data_loc") && strstr(f, "__data_loc") < semi;
		return atoi(semi + 9);
	}
	return -1;
}

static int read_text(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t got = 0;
	ssize_t k;
	while (got + 1 < n && (k = read(fd, buf + got, n - 1 - got)) > 0)
		got += (size_t)k;
	buf[got] = 0;
	close(fd);
	return 0;
}

/* The layout of the five events and of a buffer page. */
static int formats(struct ts_wake_capture *c, char *why, size_t whylen)
{
	static const char *const a_name[] = {"prev_pid", "pid", "parent_pid", NULL, "pid"};
	static const char *const b_name[] = {"next_pid", NULL, "child_pid", NULL, NULL};
	static const char *const s_name[] = {NULL, NULL, "child_comm", "filename", NULL};
	static const char *const ev_name[] = {"sched_switch", "sched_waking", "sched_process_fork",
					      "sched_process_exec", "sched_process_exit"};
	char path[PATH_MAX + 160], text[8192];

	snprintf(path, sizeof(path), "%s/events/header_page", c->dir);
	if (access(path, F_OK)) /* the top level's, where an instance has none */
		snprintf(path, sizeof(path), "%s/../../events/header_page", c->dir);
	int size;
	if (read_text(path, text, sizeof(text)) || field_at(text, "data", &size, NULL) != 16 ||
	    size <= 0) {
		snprintf(why, whylen, "%s: no page layout the capture knows", path);
		return -ENOTSUP;
	}
	c->page = 16 + (size_t)size;
	for (size_t i = 0; i < TS_ARRAY_SIZE(ev_name); i++) {
		struct evfmt *f = &c->fmt[i];
		snprintf(path, sizeof(path), "%s/events/sched/%s/format", c->dir, ev_name[i]);
		const char *id = read_text(path, text, sizeof(text)) ? NULL : strstr(text, "\nID: ");
		f->off_a = a_name[i] ? field_at(text, a_name[i], NULL, NULL) : -1;
		f->off_b = b_name[i] ? field_at(text, b_name[i], NULL, NULL) : -1;
		f->off_state = i == 0 ? field_at(text, "prev_state", NULL, NULL) : -1;
		f->off_str = s_name[i] ? field_at(text, s_name[i], &f->str_size, &f->str_loc) : -1;
		if (!id || (a_name[i] && f->off_a < 0) || (b_name[i] && f->off_b < 0) ||
		    (i == 0 && f->off_state < 0) || (s_name[i] && f->off_str < 0)) {
			snprintf(why, whylen, "%s: not the fields the capture reads", path);
			return -ENOTSUP;
		}
		f->id = (uint16_t)atoi(id + 5);
	}
	return 0;
}

static uint32_t u32_at(const unsigned char *d, size_t len, int off)
{
	uint32_t v = 0;
	if (off >= 0 && (size_t)off + 4 <= len)
		memcpy(&v, d + off, 4);
	return v;
}

/* trace_entry's common_flags: interrupt context (kernel/trace/trace.h) */
#define FLAG_HARDIRQ 0x08
#define FLAG_SOFTIRQ 0x10
#define FLAG_NMI 0x40
/* sched_switch's prev_state: the task-state bits below TASK_REPORT_MAX
 * (0x100 since Linux 4.14; the format's print fmt spells it); none set is
 * "R", runnable (preempted) */
#define STATE_REPORT_MASK 0xff
#define STATE_UNINTERRUPTIBLE 0x02 /* "D": the kernel's waits for IO */

static int pend_push(struct ts_wake_capture *c, const struct rawev *r)
{
	if (c->npend == c->pend_cap) {
		size_t cap = c->pend_cap ? c->pend_cap * 2 : 4096;
		struct rawev *n = realloc(c->pend, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		c->pend = n;
		c->pend_cap = cap;
	}
	c->pend[c->npend++] = *r;
	return 0;
}

/* One record's data: a scheduler event of ours, queued; others ignored. */
static int decode_event(struct ts_wake_capture *c, const unsigned char *d, size_t len,
			uint64_t t, uint32_t cpu)
{
	if (len < 8)
		return 0;
	uint16_t type;
	memcpy(&type, d, 2);
	size_t i = 0;
	while (i < TS_ARRAY_SIZE(c->fmt) && c->fmt[i].id != type)
		i++;
	if (i == TS_ARRAY_SIZE(c->fmt))
		return 0;
	const struct evfmt *f = &c->fmt[i];
	struct rawev r = {.cpu = cpu, .seq = c->seq++};
	r.ev.type = (unsigned)i + TS_WAKES_SWITCH;
	r.ev.t_ns = t;
	r.ev.cur = u32_at(d, len, 4);
	r.ev.irq = d[2] & (FLAG_HARDIRQ | FLAG_SOFTIRQ | FLAG_NMI);
	r.ev.a = u32_at(d, len, f->off_a);
	r.ev.b = u32_at(d, len, f->off_b);
	if (f->off_state >= 0 && (size_t)f->off_state + 8 <= len) {
		uint64_t st;
		memcpy(&st, d + f->off_state, 8);
		r.ev.runnable = !(st & STATE_REPORT_MASK);
		r.ev.uninterruptible = st & STATE_UNINTERRUPTIBLE;
	}
	if (f->off_str >= 0) {
		size_t so = (size_t)f->off_str, sl = (size_t)f->str_size;
		if (f->str_loc) {
			uint32_t loc = u32_at(d, len, f->off_str);
			so = loc & 0xffff;
			sl = loc >> 16;
		}
		if (so > len || sl > len - so)
			return 0;
		const char *s = (const char *)d + so;
		sl = strnlen(s, sl);
		const char *base = s; /* the parser keeps a comm's worth of the name */
		for (size_t k = 0; k < sl; k++)
			if (s[k] == '/')
				base = s + k + 1;
		r.ev.len = TS_MIN((size_t)(s + sl - base), sizeof(r.str) - 1);
		memcpy(r.str, base, r.ev.len);
	}
	return pend_push(c, &r);
}

/*
 * One page as trace_pipe_raw returns it (events/header_page): a u64 time
 * stamp, the committed length (with the lost-events flags in bits 30 and
 * 31), then records, each a 32-bit header (type_len: 5 bits, time_delta:
 * 27; events/header_event) and its data: type_len 1 to 28, that many
 * 4-byte words; 0, a length word first; 29, padding; 30, a time extend;
 * 31, an absolute time stamp.
 */
static int decode_page(struct ts_wake_capture *c, const unsigned char *pg, size_t n, uint32_t cpu)
{
	uint64_t t, commit;
	if (n < 16)
		return 0;
	memcpy(&t, pg, 8);
	memcpy(&commit, pg + 8, 8);
	if (commit & (3ULL << 30))
		c->missed = true;
	size_t end = 16 + TS_MIN((size_t)(commit & ((1ULL << 30) - 1)), n - 16);
	for (size_t off = 16; off + 4 <= end;) {
		uint32_t h, a0 = 0;
		memcpy(&h, pg + off, 4);
		unsigned tl = h & 31;
		uint64_t delta = h >> 5;
		if (off + 8 <= end)
			memcpy(&a0, pg + off + 4, 4);
		int e = 0;
		switch (tl) {
		case 29: /* padding; none of the page after a null one */
			if (!delta || off + 8 > end)
				return 0;
			off += 4 + (size_t)a0;
			continue;
		case 30:
			t += ((uint64_t)a0 << 27) | delta;
			off += 8;
			continue;
		case 31:
			t = ((uint64_t)a0 << 27) | delta;
			off += 8;
			continue;
		case 0:
			if (a0 < 4 || off + 4 + (size_t)a0 > end)
				return 0;
			t += delta;
			e = decode_event(c, pg + off + 8, (size_t)a0 - 4, t, cpu);
			off += 4 + (size_t)a0;
			break;
		default:
			if (off + 4 + tl * 4u > end)
				return 0;
			t += delta;
			e = decode_event(c, pg + off + 4, tl * 4u, t, cpu);
			off += 4 + tl * 4u;
		}
		if (e)
			return e;
	}
	return 0;
}

static int cmp_raw(const void *x, const void *y)
{
	const struct rawev *a = x, *b = y;
	if (a->ev.t_ns != b->ev.t_ns)
		return a->ev.t_ns < b->ev.t_ns ? -1 : 1;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Feeds the events older than @upto, in time order; keeps the rest. */
static int feed(struct ts_wake_capture *c, uint64_t upto)
{
	if (!c->npend)
		return 0;
	qsort(c->pend, c->npend, sizeof(*c->pend), cmp_raw);
	size_t i = 0;
	for (; i < c->npend && c->pend[i].ev.t_ns < upto; i++) {
		struct rawev *r = &c->pend[i];
		r->ev.str = r->str;
		if (ts_wakes_parser_event(c->parser, &r->ev) < 0)
			return -ENOMEM;
	}
	memmove(c->pend, c->pend + i, (c->npend - i) * sizeof(*c->pend));
	c->npend -= i;
	return 0;
}

/* Empties every CPU's buffer into pend; how many bytes it read. */
static size_t read_round(struct ts_wake_capture *c, unsigned char *buf)
{
	size_t total = 0;
	for (uint32_t cpu = 0; cpu < c->ncpu && !c->err; cpu++) {
		ssize_t n;
		while ((n = read(c->cpu_fd[cpu], buf, c->page)) > 0) {
			total += (size_t)n;
			if ((c->err = decode_page(c, buf, (size_t)n, cpu)))
				break;
		}
	}
	return total;
}

/* Drains the CPUs' buffers while the command runs, and once more after it. */
static void *reader_main(void *arg)
{
	struct ts_wake_capture *c = arg;
	unsigned char *buf = malloc(c->page);

	if (!buf) {
		c->err = -ENOMEM;
		return NULL;
	}
	for (;;) {
		bool stopping = atomic_load(&c->stop);
		uint64_t start = ts_now_ns();
		size_t got = read_round(c, buf);
		if (!c->err)
			c->err = feed(c, stopping ? UINT64_MAX : start - TS_MIN(start, MERGE_MARGIN_NS));
		if (c->err || stopping)
			break;
		if (got >= c->page * c->ncpu)
			continue; /* busy: read again at once */
		/* the per-CPU buffers hold far more than 20 ms of events */
		struct timespec ts = {0, 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	free(buf);
	return NULL;
}

void ts_wake_capture_no_handoffs(struct ts_wake_capture *c)
{
#if TS_HAVE_BPF
	if (c->bpf)
		ts_wake_bpf_no_handoffs(c->bpf);
#else
	(void)c; /* tracefs captures none */
#endif
}

int ts_wake_capture_start(struct ts_wake_capture *c, pid_t pid, char *why, size_t whylen)
{
	char v[32], path[PATH_MAX + 192];
	int e;

	snprintf(v, sizeof(v), "%ld", (long)pid);
	if ((e = ts_wakes_parser_new((uint32_t)pid, ts_now_ns(), &c->parser))) {
		snprintf(why, whylen, "out of memory");
		return e;
	}
	ts_wakes_parser_tgid(c->parser, tgid_of);
	cpu_set_t set;
	c->cpus = sched_getaffinity(pid, sizeof(set), &set) ? 0 : (uint32_t)CPU_COUNT(&set);
	c->busy0 = busy_ns();
#if TS_HAVE_BPF
	if (c->bpf)
		return ts_wake_bpf_start(c->bpf, pid, c->parser, why, whylen);
#endif
	if ((e = formats(c, why, whylen)))
		return e;
	/* every CPU the kernel may bring up has a buffer (an offline one
	 * may have none: skipped) */
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	for (int cpu = 0; cpu < (int)TS_MIN(TS_MAX(conf, 1L), 65536L); cpu++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", c->dir, cpu);
		if (access(path, F_OK))
			continue;
		int *fds = realloc(c->cpu_fd, (c->ncpu + 1) * sizeof(*fds));
		if (!fds)
			return -ENOMEM;
		c->cpu_fd = fds;
		if ((fds[c->ncpu] = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
			e = -errno;
			snprintf(why, whylen, "%s: %s", path, strerror(errno));
			return e;
		}
		c->ncpu++;
	}
	if (!c->ncpu || (e = put(c, "set_event_pid", v)) || (e = put(c, "tracing_on", "1"))) {
		e = c->ncpu ? e : -ENOENT;
		snprintf(why, whylen, "%s: %s", c->dir, strerror(-e));
		return e;
	}
	if ((e = -pthread_create(&c->reader, NULL, reader_main, c))) {
		snprintf(why, whylen, "starting the scheduler reader: %s", strerror(-e));
		return e;
	}
	c->running = true;
	return 0;
}

/* Events the instance's ring buffers lost (overwritten before they were
 * read, or dropped): per_cpu/cpuN/stats. */
static uint64_t lost_events(const struct ts_wake_capture *c)
{
	uint64_t lost = 0;
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	for (int cpu = 0; cpu < (int)TS_MIN(TS_MAX(conf, 1L), 65536L); cpu++) {
		char path[PATH_MAX + 160], line[128];
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", c->dir, cpu);
		FILE *f = fopen(path, "re");
		if (!f)
			continue; /* an offline CPU's */
		while (fgets(line, sizeof(line), f)) {
			unsigned long long v;
			if (sscanf(line, "overrun: %llu", &v) == 1 ||
			    sscanf(line, "dropped events: %llu", &v) == 1)
				lost += v;
		}
		fclose(f);
	}
	return lost;
}

int ts_wake_capture_close(struct ts_wake_capture *c, const char *path, char *why,
			  size_t whylen)
{
	struct ts_wakes s = {0};
	int e = 0;

	if (!c)
		return 0;
	uint64_t end = ts_now_ns(), lost = 0;
	if (c->bpf) {
#if TS_HAVE_BPF
		if (c->parser)
			e = ts_wake_bpf_stop(c->bpf, end, &lost, why, whylen);
		ts_wake_bpf_free(c->bpf);
#endif
	} else {
		(void)put(c, "tracing_on", "0");
		if (c->running) {
			atomic_store(&c->stop, true);
			pthread_join(c->reader, NULL);
		}
		for (uint32_t i = 0; i < c->ncpu; i++)
			close(c->cpu_fd[i]);
		free(c->cpu_fd);
		free(c->pend);
		lost = path ? lost_events(c) + c->missed : 0;
	}
	if (!path)
		lost = 0;
	if (e) {
		/* said in @why */
	} else if (c->err) {
		e = c->err;
		snprintf(why, whylen, "reading the scheduler events: %s", strerror(-e));
	} else if (lost) {
		/* a wake file with holes would order the replay wrongly and
		 * say nothing: none at all, and the reason */
		e = -ENOBUFS;
		snprintf(why, whylen,
			 "the kernel lost %llu scheduler events (its buffers filled faster than "
			 "they were read); none written",
			 (unsigned long long)lost);
	} else if (path && c->parser) {
		(void)!ts_wakes_parser_finish(c->parser, end, &s);
		/* what the host's CPUs did for others meanwhile: the replay's
		 * CPU model leaves it to them */
		uint64_t busy1 = busy_ns(), mine = 0;
		for (size_t i = 0; i < s.nthreads; i++)
			mine += s.threads[i].oncpu_ns;
		if (c->busy0 && busy1 > c->busy0 && c->cpus) {
			s.cpus = c->cpus;
			s.others_ns = busy1 - c->busy0 > mine ? busy1 - c->busy0 - mine : 0;
		}
		char tmp[PATH_MAX + 16];
		snprintf(tmp, sizeof(tmp), "%s.tmp", path);
		FILE *f = fopen(tmp, "we");
		if (!f) {
			e = -errno;
		} else {
			e = ts_wakes_write(f, &s);
			if (fclose(f) && !e)
				e = -errno;
		}
		if (e) {
			snprintf(why, whylen, "%s: %s", tmp, strerror(-e));
			unlink(tmp);
		} else if (rename(tmp, path)) {
			e = -errno;
			snprintf(why, whylen, "%s: %s", path, strerror(errno));
			unlink(tmp);
		}
		ts_wakes_free(&s);
	}
	ts_wakes_parser_free(c->parser);
	remove_instance(c);
	free(c);
	return e;
}
