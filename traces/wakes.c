/*
 * wakes.c — the wake file beside a trace, and the parser that makes it
 * from tracepoint lines (wakes.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/files.h"
#include "traces/wakes.h"

void ts_wakes_free(struct ts_wakes *s)
{
	free(s->threads);
	free(s->tid_slots);
	free(s->wakes);
	free(s->sleeps);
	free(s->pauses);
	free(s->handoffs);
	free(s->advices);
	memset(s, 0, sizeof(*s));
}

/* The slot of @tid in the index: the one holding it, or the empty one
 * where it would go. */
static size_t tid_slot(const struct ts_wakes *s, uint32_t tid)
{
	size_t i = (tid * 2654435761u) & (s->tid_cap - 1);
	while (s->tid_slots[i] && s->threads[s->tid_slots[i] - 1].tid != tid)
		i = (i + 1) & (s->tid_cap - 1);
	return i;
}

/* Adds the threads from tid_indexed on to the index, made anew (twice as
 * large) when it would be more than half full. */
static int index_threads(struct ts_wakes *s)
{
	if (s->nthreads >= UINT32_MAX)
		return -ENOMEM;
	if (s->nthreads * 2 > s->tid_cap) {
		size_t cap = s->tid_cap ? s->tid_cap : 64;
		while (s->nthreads * 2 > cap)
			cap *= 2;
		uint32_t *n = calloc(cap, sizeof(*n));
		if (!n)
			return -ENOMEM;
		free(s->tid_slots);
		s->tid_slots = n;
		s->tid_cap = cap;
		s->tid_indexed = 0;
	}
	for (; s->tid_indexed < s->nthreads; s->tid_indexed++) {
		size_t k = tid_slot(s, s->threads[s->tid_indexed].tid);
		if (!s->tid_slots[k])
			s->tid_slots[k] = (uint32_t)s->tid_indexed + 1;
	}
	return 0;
}

const struct ts_wakes_thread *ts_wakes_thread_of(const struct ts_wakes *s, uint32_t tid)
{
	if (s->tid_cap && s->tid_indexed == s->nthreads) {
		uint32_t k = s->tid_slots[tid_slot(s, tid)];
		return k ? &s->threads[k - 1] : NULL;
	}
	for (size_t i = 0; i < s->nthreads; i++)
		if (s->threads[i].tid == tid)
			return &s->threads[i];
	return NULL;
}

uint32_t ts_wakes_root(const struct ts_wakes *s)
{
	for (size_t i = 0; i < s->nthreads; i++)
		if (!s->threads[i].ppid || !ts_wakes_thread_of(s, s->threads[i].ppid))
			return s->threads[i].tid;
	return 0;
}

size_t ts_wakes_drop_short(struct ts_wakes *s, uint64_t below_ns)
{
	size_t n = 0;
	for (size_t i = 0; i < s->nwakes; i++) {
		const struct ts_wake *k = &s->wakes[i];
		const struct ts_wakes_thread *e = ts_wakes_thread_of(s, k->wakee),
					     *r = ts_wakes_thread_of(s, k->waker);
		if (e && r && e->pid == r->pid && k->t_ns >= k->since_ns &&
		    k->t_ns - k->since_ns < below_ns)
			continue;
		s->wakes[n++] = *k;
	}
	size_t dropped = s->nwakes - n;
	s->nwakes = n;
	return dropped;
}

static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 64;
	void *p = realloc(*v, c * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}

static int add_thread(struct ts_wakes *s, const struct ts_wakes_thread *th)
{
	if (grow((void **)&s->threads, &s->thread_cap, s->nthreads, sizeof(*th)))
		return -ENOMEM;
	s->threads[s->nthreads++] = *th;
	if (index_threads(s)) {
		s->nthreads--;
		return -ENOMEM;
	}
	return 0;
}

static int add_wake(struct ts_wakes *s, const struct ts_wake *w)
{
	if (grow((void **)&s->wakes, &s->wake_cap, s->nwakes, sizeof(*w)))
		return -ENOMEM;
	s->wakes[s->nwakes++] = *w;
	return 0;
}

static int add_sleep(struct ts_wakes *s, const struct ts_sleep *z)
{
	if (grow((void **)&s->sleeps, &s->sleep_cap, s->nsleeps, sizeof(*z)))
		return -ENOMEM;
	s->sleeps[s->nsleeps++] = *z;
	return 0;
}

static int add_pause(struct ts_wakes *s, const struct ts_sleep *z)
{
	if (grow((void **)&s->pauses, &s->pause_cap, s->npauses, sizeof(*z)))
		return -ENOMEM;
	s->pauses[s->npauses++] = *z;
	return 0;
}

static int add_handoff(struct ts_wakes *s, const struct ts_handoff *h)
{
	if (grow((void **)&s->handoffs, &s->handoff_cap, s->nhandoffs, sizeof(*h)))
		return -ENOMEM;
	s->handoffs[s->nhandoffs++] = *h;
	return 0;
}

static int add_advice(struct ts_wakes *s, const struct ts_advice *a)
{
	if (grow((void **)&s->advices, &s->advice_cap, s->nadvices, sizeof(*a)))
		return -ENOMEM;
	s->advices[s->nadvices++] = *a;
	return 0;
}

/* ---- the file ---- */

int ts_wakes_write(FILE *f, const struct ts_wakes *s)
{
	fprintf(f, "tiersim-wakes 1\n"
		   "# who woke whom among the recorded command's threads (traces/wakes.h)\n");
	fprintf(f, "span %" PRIu64 " %" PRIu64 "\n", s->begin_ns, s->end_ns);
	if (s->cpus)
		fprintf(f, "cpus %" PRIu32 " %" PRIu64 "\n", s->cpus, s->others_ns);
	for (size_t i = 0; i < s->nthreads; i++) {
		const struct ts_wakes_thread *t = &s->threads[i];
		fprintf(f,
			"T %" PRIu32 " %" PRIu32 " %" PRIu32 " %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 " %s\n",
			t->tid, t->pid, t->ppid, t->start_ns, t->end_ns, t->oncpu_ns, t->runq_ns,
			*t->comm ? t->comm : "?");
	}
	for (size_t i = 0; i < s->nwakes; i++) {
		const struct ts_wake *w = &s->wakes[i];
		fprintf(f, "W %" PRIu64 " %" PRIu64 " %" PRIu32 " %" PRIu32 "\n", w->t_ns,
			w->since_ns, w->wakee, w->waker);
	}
	for (size_t i = 0; i < s->nsleeps; i++) {
		const struct ts_sleep *z = &s->sleeps[i];
		fprintf(f, "S %" PRIu64 " %" PRIu64 " %" PRIu32 " %" PRIu32 "\n", z->t_ns,
			z->since_ns, z->tid, z->waker);
	}
	for (size_t i = 0; i < s->npauses; i++) {
		const struct ts_sleep *z = &s->pauses[i];
		fprintf(f, "P %" PRIu64 " %" PRIu64 " %" PRIu32 "\n", z->t_ns, z->since_ns,
			z->tid);
	}
	for (size_t i = 0; i < s->nhandoffs; i++) {
		const struct ts_handoff *h = &s->handoffs[i];
		fprintf(f, "H %" PRIu64 " %" PRIu64 " %" PRIu32 " %" PRIu32 "\n", h->t_ns,
			h->wrote_ns, h->reader, h->writer);
	}
	for (size_t i = 0; i < s->nadvices; i++) {
		const struct ts_advice *a = &s->advices[i];
		fprintf(f,
			"A %" PRIu64 " %" PRIu32 " %" PRIu32 " %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu32 "\n",
			a->t_ns, a->tid, a->fd, a->ino, a->off, a->len, a->advice);
	}
	return fflush(f) || ferror(f) ? -EIO : 0;
}

static int bad(char *err, size_t errlen, const char *name, unsigned line, const char *fmt, ...)
    TS_PRINTF(5, 6);
static int bad(char *err, size_t errlen, const char *name, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errlen, "%s:%u: ", name, line);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return TS_E_FORMAT;
}

/* Reads @n unsigned decimal fields from *@p into @v; false when one is
 * missing, malformed or out of range. */
static bool fields(const char **p, uint64_t *v, int n)
{
	for (int i = 0; i < n; i++) {
		char *e;
		while (**p == ' ')
			(*p)++;
		if (**p < '0' || **p > '9')
			return false;
		errno = 0;
		v[i] = strtoull(*p, &e, 10);
		if (errno || (*e != ' ' && *e != 0))
			return false;
		*p = e;
	}
	return true;
}

static int parse_line(struct ts_wakes *s, const char *l, const char *name, unsigned line,
		      char *err, size_t errlen)
{
	uint64_t v[7];
	if (l[0] == 'T' && l[1] == ' ') {
		const char *p = l + 1;
		if (!fields(&p, v, 7) || v[0] == 0 || v[0] > UINT32_MAX || v[1] > UINT32_MAX ||
		    v[2] > UINT32_MAX || v[4] < v[3])
			return bad(err, errlen, name, line,
				   "a thread line is 'T tid pid ppid start end oncpu runq comm' with "
				   "end >= start");
		if (ts_wakes_thread_of(s, (uint32_t)v[0]))
			return bad(err, errlen, name, line, "thread %" PRIu64 " listed twice",
				   v[0]);
		struct ts_wakes_thread t = {.tid = (uint32_t)v[0],
					    .pid = (uint32_t)v[1],
					    .ppid = (uint32_t)v[2],
					    .start_ns = v[3],
					    .end_ns = v[4],
					    .oncpu_ns = v[5],
					    .runq_ns = v[6]};
		while (*p == ' ')
			p++;
		snprintf(t.comm, sizeof(t.comm), "%s", p);
		return add_thread(s, &t);
	}
	if (l[0] == 'W' && l[1] == ' ') {
		const char *p = l + 1;
		if (!fields(&p, v, 4) || *p || v[2] == 0 || v[3] == 0 || v[2] > UINT32_MAX ||
		    v[3] > UINT32_MAX || v[1] > v[0])
			return bad(err, errlen, name, line,
				   "a wake line is 'W t since wakee waker' with since <= t");
		if (s->nwakes && s->wakes[s->nwakes - 1].t_ns > v[0])
			return bad(err, errlen, name, line, "wakes are not in time order");
		struct ts_wake w = {.t_ns = v[0],
					  .since_ns = v[1],
					  .wakee = (uint32_t)v[2],
					  .waker = (uint32_t)v[3]};
		return add_wake(s, &w);
	}
	if (l[0] == 'S' && l[1] == ' ') {
		const char *p = l + 1;
		if (!fields(&p, v, 4) || *p || v[2] == 0 || v[2] > UINT32_MAX ||
		    v[3] > UINT32_MAX || v[1] > v[0])
			return bad(err, errlen, name, line,
				   "a sleep line is 'S t since tid waker' with since <= t");
		if (s->nsleeps && s->sleeps[s->nsleeps - 1].t_ns > v[0])
			return bad(err, errlen, name, line, "sleeps are not in time order");
		struct ts_sleep z = {.t_ns = v[0],
				     .since_ns = v[1],
				     .tid = (uint32_t)v[2],
				     .waker = (uint32_t)v[3]};
		return add_sleep(s, &z);
	}
	if (l[0] == 'P' && l[1] == ' ') {
		const char *p = l + 1;
		if (!fields(&p, v, 3) || *p || v[2] == 0 || v[2] > UINT32_MAX || v[1] > v[0])
			return bad(err, errlen, name, line,
				   "a pause line is 'P t since tid' with since <= t");
		if (s->npauses && s->pauses[s->npauses - 1].t_ns > v[0])
			return bad(err, errlen, name, line, "pauses are not in time order");
		struct ts_sleep z = {.t_ns = v[0], .since_ns = v[1], .tid = (uint32_t)v[2]};
		return add_pause(s, &z);
	}
	if (l[0] == 'H' && l[1] == ' ') {
		const char *p = l + 1;
		if (!fields(&p, v, 4) || *p || v[2] == 0 || v[3] == 0 || v[2] > UINT32_MAX ||
		    v[3] > UINT32_MAX || v[1] > v[0] || v[2] == v[3])
			return bad(err, errlen, name, line,
				   "a hand-off line is 'H t wrote reader writer' with wrote <= t "
				   "and reader != writer");
		if (s->nhandoffs && s->handoffs[s->nhandoffs - 1].t_ns > v[0])
			return bad(err, errlen, name, line, "hand-offs are not in time order");
		struct ts_handoff h = {.t_ns = v[0],
				       .wrote_ns = v[1],
				       .reader = (uint32_t)v[2],
				       .writer = (uint32_t)v[3]};
		return add_handoff(s, &h);
	}
	if (l[0] == 'A' && l[1] == ' ') {
		const char *p = l + 1;
		if (!fields(&p, v, 7) || *p || v[1] == 0 || v[1] > UINT32_MAX || v[2] > INT32_MAX ||
		    v[3] == 0 || v[6] > 5)
			return bad(err, errlen, name, line,
				   "an advice line is 'A t tid fd ino offset len advice' with ino > 0 "
				   "and advice 0 to 5");
		if (s->nadvices && s->advices[s->nadvices - 1].t_ns > v[0])
			return bad(err, errlen, name, line, "advices are not in time order");
		struct ts_advice a = {.t_ns = v[0],
				      .tid = (uint32_t)v[1],
				      .fd = (uint32_t)v[2],
				      .ino = v[3],
				      .off = v[4],
				      .len = v[5],
				      .advice = (uint32_t)v[6]};
		return add_advice(s, &a);
	}
	if (!strncmp(l, "cpus ", 5)) {
		const char *p = l + 4;
		if (!fields(&p, v, 2) || *p || v[0] == 0 || v[0] > 65536)
			return bad(err, errlen, name, line, "'cpus N OTHERS_NS' with 1 <= N <= 65536");
		s->cpus = (uint32_t)v[0];
		s->others_ns = v[1];
		return 0;
	}
	if (!strncmp(l, "span ", 5)) {
		const char *p = l + 4;
		if (!fields(&p, v, 2) || *p || v[1] < v[0])
			return bad(err, errlen, name, line, "'span BEGIN END' with END >= BEGIN");
		s->begin_ns = v[0];
		s->end_ns = v[1];
		return 0;
	}
	return bad(err, errlen, name, line, "not a T, W, S, P, H, A, span or cpus line");
}

/* The line number of the (@n+1)-th line of @buf that starts with "@kind ".
 * Looked up only when a check after the parse fails, so the parse keeps no
 * line per record. */
static unsigned line_of(const char *buf, size_t len, char kind, size_t n)
{
	unsigned line = 0;
	for (size_t i = 0; i < len;) {
		size_t j = i;
		while (j < len && buf[j] != '\n')
			j++;
		line++;
		if (j - i >= 2 && buf[i] == kind && buf[i + 1] == ' ' && n-- == 0)
			return line;
		i = j + 1;
	}
	return line;
}

int ts_wakes_read_mem(const char *buf, size_t len, const char *name, struct ts_wakes *s,
		      char *err, size_t errlen)
{
	char l[256];
	unsigned line = 0;
	int ret = 0;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < len && !ret;) {
		size_t j = i;
		while (j < len && buf[j] != '\n')
			j++;
		line++;
		if (j - i >= sizeof(l)) {
			ret = bad(err, errlen, name, line, "line too long");
			break;
		}
		memcpy(l, buf + i, j - i);
		l[j - i] = 0;
		i = j + 1;
		if (line == 1) {
			if (strcmp(l, "tiersim-wakes 1"))
				ret = bad(err, errlen, name, line,
					  "not a tiersim wake file (version 1)");
			continue;
		}
		if (!*l || *l == '#')
			continue;
		ret = parse_line(s, l, name, line, err, errlen);
		if (ret == -ENOMEM)
			snprintf(err, errlen, "%s: out of memory", name);
	}
	if (!ret && !line)
		ret = bad(err, errlen, name, 1, "empty file");
	for (size_t i = 0; !ret && i < s->nwakes; i++)
		if (!ts_wakes_thread_of(s, s->wakes[i].wakee) ||
		    !ts_wakes_thread_of(s, s->wakes[i].waker))
			ret = bad(err, errlen, name, line_of(buf, len, 'W', i),
				  "wake of %" PRIu32 " by %" PRIu32 ": a thread not listed",
				  s->wakes[i].wakee, s->wakes[i].waker);
	for (size_t i = 0; !ret && i < s->nsleeps; i++)
		if (!ts_wakes_thread_of(s, s->sleeps[i].tid))
			ret = bad(err, errlen, name, line_of(buf, len, 'S', i),
				  "sleep of %" PRIu32 ": a thread not listed",
				  s->sleeps[i].tid);
	for (size_t i = 0; !ret && i < s->npauses; i++)
		if (!ts_wakes_thread_of(s, s->pauses[i].tid))
			ret = bad(err, errlen, name, line_of(buf, len, 'P', i),
				  "pause of %" PRIu32 ": a thread not listed",
				  s->pauses[i].tid);
	for (size_t i = 0; !ret && i < s->nhandoffs; i++)
		if (!ts_wakes_thread_of(s, s->handoffs[i].reader) ||
		    !ts_wakes_thread_of(s, s->handoffs[i].writer))
			ret = bad(err, errlen, name, line_of(buf, len, 'H', i),
				  "hand-off to %" PRIu32 " from %" PRIu32 ": a thread not listed",
				  s->handoffs[i].reader, s->handoffs[i].writer);
	for (size_t i = 0; !ret && i < s->nadvices; i++)
		if (!ts_wakes_thread_of(s, s->advices[i].tid))
			ret = bad(err, errlen, name, line_of(buf, len, 'A', i),
				  "advice of %" PRIu32 ": a thread not listed", s->advices[i].tid);
	if (ret)
		ts_wakes_free(s);
	return ret;
}

int ts_wakes_read(const char *path, struct ts_wakes *s, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;
	int ret;

	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	if ((ret = ts_read_stream(f, &buf, &len)))
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
	else
		ret = ts_wakes_read_mem(buf, len, path, s, err, errlen);
	fclose(f);
	free(buf);
	return ret;
}

/* ---- tracepoint lines ---- */

struct tstate {
	uint64_t since;	   /* off the CPU asleep since, 0 = running or runnable */
	bool d;		   /* that sleep is uninterruptible (state D) */
	uint64_t on_since; /* on a CPU since, 0 = not */
	uint64_t rq_since; /* runnable, waiting for a CPU, since; 0 = not */
	size_t th;	   /* its index in s.threads */
};

/* a pipe read or write of the tree's, until the parser ties them */
struct pipe_op {
	uint64_t pipe, t_ns, end;
	uint32_t tid;
	bool write;
};

struct ts_wakes_parser {
	struct ts_wakes s;
	struct pipe_op *pipe_ops;
	size_t npipe_ops, pipe_op_cap;
	/* open addressing: tid -> state; 0 = empty */
	uint32_t *keys;
	struct tstate *vals;
	size_t cap, used;
	uint32_t (*tgid)(uint32_t tid);
};

static size_t slot(const struct ts_wakes_parser *p, uint32_t tid)
{
	size_t i = (tid * 2654435761u) & (p->cap - 1);
	while (p->keys[i] && p->keys[i] != tid)
		i = (i + 1) & (p->cap - 1);
	return i;
}

static struct tstate *find(struct ts_wakes_parser *p, uint32_t tid)
{
	size_t i = slot(p, tid);
	return p->keys[i] ? &p->vals[i] : NULL;
}

static int rehash(struct ts_wakes_parser *p)
{
	struct ts_wakes_parser n = {.cap = p->cap ? p->cap * 2 : 256};
	n.keys = calloc(n.cap, sizeof(*n.keys));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->cap; i++) {
		if (!p->keys[i])
			continue;
		size_t j = slot(&n, p->keys[i]);
		n.keys[j] = p->keys[i];
		n.vals[j] = p->vals[i];
	}
	free(p->keys);
	free(p->vals);
	p->keys = n.keys;
	p->vals = n.vals;
	p->cap = n.cap;
	return 0;
}

static int adopt(struct ts_wakes_parser *p, uint32_t tid, uint32_t parent, uint64_t t,
		 const char *comm, size_t commlen, uint32_t tgid)
{
	if ((p->used + 1) * 2 > p->cap && rehash(p))
		return -ENOMEM;
	struct ts_wakes_thread th = {.tid = tid, .start_ns = t};
	/* the fork tracepoint does not say whether the child is a thread of
	 * its parent's process or a process of its own: the capture asks
	 * /proc while the thread lives (0: not known) */
	th.ppid = parent;
	th.pid = tgid ? tgid : p->tgid ? p->tgid(tid) : 0;
	if (commlen >= sizeof(th.comm))
		commlen = sizeof(th.comm) - 1;
	memcpy(th.comm, comm, commlen);
	if (add_thread(&p->s, &th))
		return -ENOMEM;
	size_t i = slot(p, tid);
	p->keys[i] = tid;
	/* a forked thread is runnable from its fork until it first runs */
	p->vals[i] = (struct tstate){.th = p->s.nthreads - 1, .rq_since = parent ? t : 0};
	p->used++;
	return 0;
}

int ts_wakes_parser_new(uint32_t root, uint64_t begin_ns, struct ts_wakes_parser **out)
{
	struct ts_wakes_parser *p = calloc(1, sizeof(*p));
	if (!p || rehash(p) || adopt(p, root, 0, begin_ns, "", 0, 0)) {
		ts_wakes_parser_free(p);
		return -ENOMEM;
	}
	p->s.begin_ns = begin_ns;
	*out = p;
	return 0;
}

void ts_wakes_parser_tgid(struct ts_wakes_parser *p, uint32_t (*tgid)(uint32_t tid))
{
	p->tgid = tgid;
	p->s.threads[0].pid = tgid ? tgid(p->s.threads[0].tid) : 0;
}

void ts_wakes_parser_free(struct ts_wakes_parser *p)
{
	if (!p)
		return;
	ts_wakes_free(&p->s);
	free(p->pipe_ops);
	free(p->keys);
	free(p->vals);
	free(p);
}

/* The value of "key=" in @f (up to the next space), or NULL. */
static const char *field(const char *f, const char *key, size_t *len)
{
	size_t kl = strlen(key);
	for (const char *q = f; (q = strstr(q, key)); q++) {
		if (q != f && q[-1] != ' ')
			continue;
		q += kl;
		*len = strcspn(q, " \n");
		return q;
	}
	return NULL;
}

static bool num_field(const char *f, const char *key, uint64_t *v)
{
	size_t n;
	const char *q = field(f, key, &n);
	if (!q || !n)
		return false;
	char *e;
	*v = strtoull(q, &e, 10);
	return e == q + n;
}

int ts_wakes_parser_event(struct ts_wakes_parser *p, const struct ts_wakes_event *ev)
{
	const uint64_t t = ev->t_ns;
	const uint32_t cur = ev->cur;

	switch (ev->type) {
	case TS_WAKES_SWITCH: {
		struct tstate *s = find(p, ev->a), *nx = find(p, ev->b);
		if (!s && !nx)
			return 0;
		if (s) {
			struct ts_wakes_thread *th = &p->s.threads[s->th];
			if (s->on_since && t >= s->on_since)
				th->oncpu_ns += t - s->on_since;
			s->on_since = 0;
			/* R / R+: preempted, still runnable; anything else sleeps */
			s->since = ev->runnable ? 0 : t;
			s->d = ev->uninterruptible;
			s->rq_since = ev->runnable ? t : 0;
		}
		if (nx) {
			struct ts_wakes_thread *th = &p->s.threads[nx->th];
			if (nx->rq_since && t >= nx->rq_since)
				th->runq_ns += t - nx->rq_since;
			nx->rq_since = 0;
			nx->on_since = t;
			nx->since = 0;
		}
		return 1;
	}
	case TS_WAKES_WAKING: {
		struct tstate *s = find(p, ev->a), *w = find(p, cur);
		if (!s)
			return 0;
		uint64_t since = s->since;
		s->since = 0;
		if (since && !s->on_since)
			s->rq_since = t; /* woken: runnable until it runs */
		if (!since || since > t || cur == ev->a)
			return 1;
		if (ev->irq || !w) { /* from outside the tree: kept when it ended IO */
			struct ts_sleep z = {
			    .t_ns = t, .since_ns = since, .tid = ev->a, .waker = ev->irq ? 0 : cur};
			if (s->d)
				return add_sleep(&p->s, &z) ? -ENOMEM : 1;
			/* or an interrupt ended it: the thread's own pace */
			if (ev->irq)
				return add_pause(&p->s, &z) ? -ENOMEM : 1;
			return 1;
		}
		struct ts_wake wk = {.t_ns = t, .since_ns = since, .wakee = ev->a, .waker = cur};
		return add_wake(&p->s, &wk) ? -ENOMEM : 1;
	}
	case TS_WAKES_FORK:
		if (!find(p, ev->a) || find(p, ev->b))
			return 0;
		return adopt(p, ev->b, ev->a, t, ev->str, ev->len, ev->tgid) ? -ENOMEM : 1;
	case TS_WAKES_EXEC: {
		/* the root's comm once it runs the command */
		struct tstate *s = find(p, cur);
		if (!s)
			return 0;
		const char *base = ev->str;
		for (size_t i = 0; i < ev->len; i++)
			if (ev->str[i] == '/')
				base = ev->str + i + 1;
		size_t bl = (size_t)(ev->str + ev->len - base);
		struct ts_wakes_thread *th = &p->s.threads[s->th];
		memset(th->comm, 0, sizeof(th->comm));
		memcpy(th->comm, base, bl < sizeof(th->comm) ? bl : sizeof(th->comm) - 1);
		return 1;
	}
	case TS_WAKES_EXIT: {
		struct tstate *s = find(p, ev->a);
		if (!s)
			return 0;
		p->s.threads[s->th].end_ns = t;
		s->since = 0;
		return 1; /* its last switch-out (state X) ends its time on the CPU */
	}
	}
	return 0;
}

int ts_wakes_parser_wake(struct ts_wakes_parser *p, const struct ts_wake *w)
{
	if (!find(p, w->wakee) || !find(p, w->waker))
		return 0;
	return add_wake(&p->s, w) ? -ENOMEM : 1;
}

int ts_wakes_parser_sleep(struct ts_wakes_parser *p, const struct ts_sleep *z)
{
	if (!find(p, z->tid))
		return 0;
	return add_sleep(&p->s, z) ? -ENOMEM : 1;
}

int ts_wakes_parser_pause(struct ts_wakes_parser *p, const struct ts_sleep *z)
{
	if (!find(p, z->tid))
		return 0;
	struct ts_sleep q = *z;
	q.waker = 0;
	return add_pause(&p->s, &q) ? -ENOMEM : 1;
}

int ts_wakes_parser_pipe(struct ts_wakes_parser *p, bool write, uint64_t t_ns, uint32_t tid,
			 uint64_t pipe, uint64_t end)
{
	if (!find(p, tid))
		return 0;
	if (grow((void **)&p->pipe_ops, &p->pipe_op_cap, p->npipe_ops, sizeof(*p->pipe_ops)))
		return -ENOMEM;
	p->pipe_ops[p->npipe_ops++] =
	    (struct pipe_op){.pipe = pipe, .t_ns = t_ns, .end = end, .tid = tid, .write = write};
	return 1;
}

/* writes first, by pipe, then by their end byte; reads after, in time
 * order */
static int pipe_op_cmp(const void *a, const void *b)
{
	const struct pipe_op *x = a, *y = b;
	if (x->write != y->write)
		return x->write ? -1 : 1;
	if (x->write && x->pipe != y->pipe)
		return x->pipe < y->pipe ? -1 : 1;
	uint64_t kx = x->write ? x->end : x->t_ns, ky = y->write ? y->end : y->t_ns;
	return kx < ky ? -1 : kx > ky;
}

/* Each read tied to the write that put its last byte in its pipe: the
 * first write of that pipe whose end reaches the read's end. A write
 * recorded after the read (the writer's return is seen after the reader
 * took the bytes) counts as at the read; one of the reader's own is no
 * tie, nor is a read that got the same write's bytes as the reader's
 * previous hand-off (a message's header, then its body). */
/* Each reader's latest hand-off: a table of tids (open addressing, at
 * most half full) to 1 + its index in s->handoffs (0: an empty slot). A
 * scan back through the hand-offs for the reader's previous one was
 * quadratic in them where a reader had none before. */
struct last_handoff {
	uint32_t *tid;
	size_t *at;
	size_t mask;
};

static size_t *last_handoff_of(struct last_handoff *x, uint32_t tid)
{
	size_t i = (size_t)(tid * 0x9e3779b1u) & x->mask;
	while (x->at[i] && x->tid[i] != tid)
		i = (i + 1) & x->mask;
	x->tid[i] = tid;
	return &x->at[i];
}

static int tie_pipes(struct ts_wakes_parser *p)
{
	struct pipe_op *o = p->pipe_ops;
	size_t n = p->npipe_ops, nw = 0;
	if (!n)
		return 0;
	qsort(o, n, sizeof(*o), pipe_op_cmp);
	while (nw < n && o[nw].write)
		nw++;
	/* room for every reader twice over: those of the hand-offs there,
	 * and one a read */
	struct last_handoff last = {0};
	size_t cap = 16;
	while (cap < 2 * (p->s.nhandoffs + n - nw))
		cap *= 2;
	last.tid = malloc(cap * sizeof(*last.tid));
	last.at = calloc(cap, sizeof(*last.at));
	last.mask = cap - 1;
	if (!last.tid || !last.at) {
		free(last.tid);
		free(last.at);
		return -ENOMEM;
	}
	for (size_t k = 0; k < p->s.nhandoffs; k++)
		*last_handoff_of(&last, p->s.handoffs[k].reader) = k + 1;
	int ret = 0;
	for (size_t i = nw; i < n && !ret; i++) {
		const struct pipe_op *r = &o[i];
		size_t lo = 0, hi = nw;
		while (lo < hi) { /* the first write of r's pipe ending at or past r's end */
			size_t m = (lo + hi) / 2;
			if (o[m].pipe < r->pipe || (o[m].pipe == r->pipe && o[m].end < r->end))
				lo = m + 1;
			else
				hi = m;
		}
		if (lo == nw || o[lo].pipe != r->pipe || o[lo].tid == r->tid)
			continue;
		struct ts_handoff h = {.t_ns = r->t_ns,
				       .wrote_ns = TS_MIN(o[lo].t_ns, r->t_ns),
				       .reader = r->tid,
				       .writer = o[lo].tid};
		size_t *at = last_handoff_of(&last, h.reader); /* the reader's previous one */
		const struct ts_handoff *prev = *at ? &p->s.handoffs[*at - 1] : NULL;
		if (prev && prev->writer == h.writer && prev->wrote_ns == h.wrote_ns)
			continue;
		if (add_handoff(&p->s, &h))
			ret = -ENOMEM;
		else
			*at = p->s.nhandoffs;
	}
	free(last.tid);
	free(last.at);
	return ret;
}

int ts_wakes_parser_advice(struct ts_wakes_parser *p, const struct ts_advice *a)
{
	if (!find(p, a->tid) || !a->ino || a->advice > 5)
		return 0;
	return add_advice(&p->s, a) ? -ENOMEM : 1;
}

int ts_wakes_parser_times(struct ts_wakes_parser *p, uint32_t tid, uint64_t oncpu_ns,
			  uint64_t runq_ns)
{
	struct tstate *s = find(p, tid);
	if (!s)
		return 0;
	p->s.threads[s->th].oncpu_ns = oncpu_ns;
	p->s.threads[s->th].runq_ns = runq_ns;
	return 1;
}

/*
 * A trace_pipe line: "COMM-TID [CPU] FLAGS SECONDS.MICROS: EVENT: FIELDS".
 * COMM may hold spaces and dashes; TID follows the last dash before " [".
 * FLAGS' third character says the context: 'h', 'H', 's' (or 'z', NMI)
 * for an interrupt, which runs on behalf of nobody in the tree. The line
 * becomes one event for ts_wakes_parser_event().
 */
int ts_wakes_parser_line(struct ts_wakes_parser *p, const char *line)
{
	const char *br = strstr(line, " [");
	const char *evn = br ? strstr(br, ": sched_") : NULL;
	if (!evn)
		return 0;
	const char *dash = NULL;
	for (const char *q = line; q < br; q++)
		if (*q == '-')
			dash = q;
	if (!dash)
		return 0;
	struct ts_wakes_event ev = {.cur = (uint32_t)strtoul(dash + 1, NULL, 10)};
	const char *cb = strchr(br, ']');
	if (!cb || cb > evn)
		return 0;
	const char *fl = cb + 1;
	while (*fl == ' ')
		fl++;
	const char *ts = fl;
	for (; *ts && *ts != ' '; ts++)
		if (ts - fl == 2 && (*ts == 'h' || *ts == 'H' || *ts == 's' || *ts == 'z'))
			ev.irq = true;
	char *e;
	uint64_t sec = strtoull(ts, &e, 10), us = 0;
	if (*e == '.') {
		const char *d = e + 1;
		us = strtoull(d, &e, 10);
		for (ptrdiff_t n = e - d; n < 6; n++)
			us *= 10;
		for (ptrdiff_t n = e - d; n > 6; n--)
			us /= 10;
	}
	ev.t_ns = sec * 1000000000ULL + us * 1000ULL;
	const char *name = evn + 2, *f = strchr(name, ':');
	if (!f)
		return 0;
	f++;
	uint64_t a, b;
	size_t n;

	if (!strncmp(name, "sched_switch:", 13)) {
		const char *st = field(f, "prev_state=", &n);
		if (!num_field(f, "prev_pid=", &a) || !num_field(f, "next_pid=", &b) || !st)
			return 0;
		ev.type = TS_WAKES_SWITCH;
		ev.runnable = st[0] == 'R';
		ev.uninterruptible = st[0] == 'D';
	} else if (!strncmp(name, "sched_waking:", 13)) {
		if (!num_field(f, "pid=", &a))
			return 0;
		ev.type = TS_WAKES_WAKING;
		b = 0;
	} else if (!strncmp(name, "sched_process_fork:", 19)) {
		/* a comm may hold spaces: it runs up to " child_pid=" */
		const char *cc = field(f, "child_comm=", &n), *ce = strstr(f, " child_pid=");
		if (!num_field(f, "pid=", &a) || !num_field(f, "child_pid=", &b) || !cc || !ce ||
		    ce < cc)
			return 0;
		ev.type = TS_WAKES_FORK;
		ev.str = cc;
		ev.len = (size_t)(ce - cc);
	} else if (!strncmp(name, "sched_process_exec:", 19)) {
		const char *fn = field(f, "filename=", &n);
		if (!fn)
			return 0;
		ev.type = TS_WAKES_EXEC;
		ev.str = fn;
		ev.len = n;
		a = b = 0;
	} else if (!strncmp(name, "sched_process_exit:", 19)) {
		if (!num_field(f, "pid=", &a))
			return 0;
		ev.type = TS_WAKES_EXIT;
		b = 0;
	} else {
		return 0;
	}
	ev.a = (uint32_t)a;
	ev.b = (uint32_t)b;
	return ts_wakes_parser_event(p, &ev);
}

/* Sleep lines (S or P) in the time order of their ends; they arrive nearly
 * sorted (a microsecond's rounding between CPUs), so insertion is cheap. */
static void sleeps_in_time_order(struct ts_sleep *z, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct ts_sleep x = z[i];
		size_t j = i;
		for (; j && z[j - 1].t_ns > x.t_ns; j--)
			z[j] = z[j - 1];
		z[j] = x;
	}
}

int ts_wakes_parser_finish(struct ts_wakes_parser *p, uint64_t end_ns, struct ts_wakes *s)
{
	p->s.end_ns = end_ns;
	for (size_t i = 0; i < p->cap; i++) { /* still on a CPU at the end */
		const struct tstate *st = &p->vals[i];
		if (p->keys[i] && st->on_since && end_ns > st->on_since)
			p->s.threads[st->th].oncpu_ns += end_ns - st->on_since;
	}
	for (size_t i = 0; i < p->s.nthreads; i++) {
		struct ts_wakes_thread *th = &p->s.threads[i];
		if (!th->end_ns)
			th->end_ns = TS_MAX(end_ns, th->start_ns);
	}
	/* events from several CPUs arrive merged in time order; a wake read
	 * from trace_pipe's text can still trail its neighbour by a
	 * microsecond's rounding */
	for (size_t i = 1; i < p->s.nwakes; i++) {
		struct ts_wake w = p->s.wakes[i];
		size_t j = i;
		for (; j && p->s.wakes[j - 1].t_ns > w.t_ns; j--)
			p->s.wakes[j] = p->s.wakes[j - 1];
		p->s.wakes[j] = w;
	}
	sleeps_in_time_order(p->s.sleeps, p->s.nsleeps);
	sleeps_in_time_order(p->s.pauses, p->s.npauses);
	for (size_t i = 1; i < p->s.nadvices; i++) { /* the ring's order, nearly time's */
		struct ts_advice a = p->s.advices[i];
		size_t j = i;
		for (; j && p->s.advices[j - 1].t_ns > a.t_ns; j--)
			p->s.advices[j] = p->s.advices[j - 1];
		p->s.advices[j] = a;
	}
	if (tie_pipes(p))
		return -ENOMEM;
	*s = p->s;
	memset(&p->s, 0, sizeof(p->s));
	return 0;
}
