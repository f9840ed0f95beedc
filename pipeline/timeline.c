/*
 * timeline.c — the run's timeline as streamed Chrome trace JSON (see
 * timeline.h for the tracks and the contract).
 *
 * Every event is one line of the "traceEvents" array, written by the one
 * Chrome trace writer (core/chrome.h) under the timeline's lock.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/chrome.h"
#include "pipeline/timeline.h"

/* Thread ids: kind k's lane i is tid (k + 1) * TS_TL_LANES + i, so that
 * the tracks sort engine, batches, reader, decode, tier. */
static const char *const track_name[TS_TL_NTRACKS] = {
	[TS_TL_ENGINE] = "engine", /* one lane: no number */
	[TS_TL_BATCH] = "batch slot",
	[TS_TL_READER] = "reader lane",
	[TS_TL_DECODE] = "decode worker",
	[TS_TL_TIER] = "tier lane",
};

struct lanes {
	uint64_t *busy_until; /* per lane */
	bool *named;	      /* its thread_name is written */
	unsigned n;	      /* lanes known */
};

struct bslot {
	uint64_t seq, epoch, index, open, ready, samples;
	bool live, have_ready;
};

struct ts_tl_proc {
	struct ts_timeline *tl;
	unsigned pid;
	uint64_t t0;
	struct lanes lanes[TS_TL_NTRACKS];
	struct bslot *bs;
	uint64_t nbs;
	struct ts_tl_proc *next;
};

struct ts_timeline {
	FILE *f;
	char *path, *tmp; /* written under @tmp, renamed onto @path at close */
	char *buf; /* the FILE's buffer */
	pthread_mutex_t mu;
	struct ts_chrome out;
	uint64_t max, n, dropped;
	bool capped, oom;
	unsigned npid;
	struct ts_tl_proc *procs;
	const char *clock;
};

/* The FILE buffer: ~7,000 slice lines of ~142 bytes (measured) a write. */
enum { FILE_BUF = 1 << 20 };

int ts_timeline_open(const char *path, const char *clock, uint64_t max_events,
		     struct ts_timeline **out, char *err, size_t errlen)
{
	*out = NULL;
	struct ts_timeline *tl = calloc(1, sizeof(*tl));
	if (!tl || !(tl->path = strdup(path)) || !(tl->buf = malloc(FILE_BUF)) ||
	    asprintf(&tl->tmp, "%s.%ld.tmp", path, (long)getpid()) < 0) {
		if (tl) {
			free(tl->buf);
			free(tl->path);
		}
		free(tl);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	int fd = open(tl->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0 || !(tl->f = fdopen(fd, "w"))) {
		int e = errno;
		snprintf(err, errlen, "cannot create %s: %s", path, strerror(e));
		if (fd >= 0) {
			close(fd);
			unlink(tl->tmp);
		}
		free(tl->tmp);
		free(tl->buf);
		free(tl->path);
		free(tl);
		return -e;
	}
	setvbuf(tl->f, tl->buf, _IOFBF, FILE_BUF);
	pthread_mutex_init(&tl->mu, NULL);
	tl->max = max_events;
	tl->clock = clock;
	ts_chrome_begin(&tl->out, tl->f);
	*out = tl;
	return 0;
}

static unsigned tid_of(enum ts_tl_track k, unsigned lane)
{
	return (unsigned)(k + 1) * TS_TL_LANES + lane;
}

/* Makes lane @lane of @k known (and named); false when out of memory. */
static bool lane_have(struct ts_tl_proc *p, enum ts_tl_track k, unsigned lane)
{
	struct lanes *l = &p->lanes[k];
	if (lane >= l->n) {
		unsigned n = lane + 1 > 2 * l->n ? lane + 1 : 2 * l->n;
		uint64_t *b = realloc(l->busy_until, n * sizeof(*b));
		if (b)
			l->busy_until = b;
		bool *nm = realloc(l->named, n * sizeof(*nm));
		if (nm)
			l->named = nm;
		if (!b || !nm) {
			p->tl->oom = true;
			return false;
		}
		for (unsigned i = l->n; i < n; i++) {
			l->busy_until[i] = 0;
			l->named[i] = false;
		}
		l->n = n;
	}
	if (!l->named[lane]) {
		char name[64];
		if (k == TS_TL_ENGINE)
			snprintf(name, sizeof(name), "%s", track_name[k]);
		else
			snprintf(name, sizeof(name), "%s %u", track_name[k], lane);
		ts_chrome_meta_name(&p->tl->out, "thread_name", p->pid, tid_of(k, lane), name);
		ts_chrome_meta_sort(&p->tl->out, "thread_sort_index", p->pid, tid_of(k, lane),
				    tid_of(k, lane));
		l->named[lane] = true;
	}
	return true;
}

struct ts_tl_proc *ts_timeline_proc(struct ts_timeline *tl, const char *name, uint64_t t0_ns)
{
	struct ts_tl_proc *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->tl = tl;
	p->t0 = t0_ns;
	pthread_mutex_lock(&tl->mu);
	p->pid = ++tl->npid;
	p->next = tl->procs;
	tl->procs = p;
	ts_chrome_meta_name(&tl->out, "process_name", p->pid, 0, name);
	ts_chrome_meta_sort(&tl->out, "process_sort_index", p->pid, 0, p->pid);
	pthread_mutex_unlock(&tl->mu);
	return p;
}

/* Under the lock: may one more slice be written? */
static bool room(struct ts_timeline *tl, uint64_t t_rel, unsigned pid)
{
	if (!tl->max || tl->n < tl->max)
		return true;
	if (!tl->capped) {
		char name[128];
		tl->capped = true;
		snprintf(name, sizeof(name),
			 "timeline cap reached: %" PRIu64 " events written, later ones left out "
			 "(--timeline-max)",
			 tl->max);
		ts_chrome_instant(&tl->out, name, pid, 0, t_rel);
	}
	tl->dropped++;
	return false;
}

/* A slice's arguments are the writer's, field for field. */
_Static_assert(sizeof(struct ts_tl_arg) == sizeof(struct ts_chrome_arg) &&
		       offsetof(struct ts_tl_arg, key) == offsetof(struct ts_chrome_arg, key) &&
		       offsetof(struct ts_tl_arg, val) == offsetof(struct ts_chrome_arg, val),
	       "struct ts_tl_arg is struct ts_chrome_arg");

static void put_slice(struct ts_tl_proc *p, enum ts_tl_track k, unsigned lane, const char *name,
		      uint64_t t0, uint64_t t1, const struct ts_tl_arg *a, unsigned na)
{
	struct ts_timeline *tl = p->tl;
	if (lane >= TS_TL_LANES)
		lane = TS_TL_LANES - 1;
	uint64_t r0 = t0 > p->t0 ? t0 - p->t0 : 0;
	uint64_t dur = t1 > t0 ? t1 - t0 : 0;
	if (!room(tl, r0, p->pid) || !lane_have(p, k, lane))
		return;
	tl->n++;
	ts_chrome_slice(&tl->out, name, NULL, p->pid, tid_of(k, lane), r0, dur,
			(const struct ts_chrome_arg *)a, na);
}

void ts_tl_slice(struct ts_tl_proc *p, enum ts_tl_track k, unsigned lane, const char *name,
		 uint64_t t0, uint64_t t1, const struct ts_tl_arg *a, unsigned na)
{
	pthread_mutex_lock(&p->tl->mu);
	put_slice(p, k, lane, name, t0, t1, a, na);
	pthread_mutex_unlock(&p->tl->mu);
}

static unsigned lane_take(struct ts_tl_proc *p, enum ts_tl_track k, uint64_t t0, uint64_t t1)
{
	struct lanes *l = &p->lanes[k];
	unsigned i = 0;
	while (i < l->n && l->busy_until[i] > t0)
		i++;
	if (i >= TS_TL_LANES - 1)
		return TS_TL_LANES - 1;
	if (!lane_have(p, k, i))
		return i;
	l->busy_until[i] = t1;
	return i;
}

unsigned ts_tl_lane(struct ts_tl_proc *p, enum ts_tl_track k, uint64_t t0, uint64_t t1)
{
	pthread_mutex_lock(&p->tl->mu);
	unsigned i = lane_take(p, k, t0, t1);
	pthread_mutex_unlock(&p->tl->mu);
	return i;
}

void ts_tl_slice_end(struct ts_tl_proc *p, enum ts_tl_track k, unsigned lane, const char *name,
		     uint64_t t0, uint64_t t1, const struct ts_tl_arg *a, unsigned na)
{
	pthread_mutex_lock(&p->tl->mu);
	put_slice(p, k, lane, name, t0, t1, a, na);
	if (lane < p->lanes[k].n && lane < TS_TL_LANES - 1)
		p->lanes[k].busy_until[lane] = t1;
	pthread_mutex_unlock(&p->tl->mu);
}

unsigned ts_tl_slice_lane(struct ts_tl_proc *p, enum ts_tl_track k, const char *name,
			  uint64_t t0, uint64_t t1, const struct ts_tl_arg *a, unsigned na)
{
	pthread_mutex_lock(&p->tl->mu);
	unsigned i = lane_take(p, k, t0, t1);
	put_slice(p, k, i, name, t0, t1, a, na);
	pthread_mutex_unlock(&p->tl->mu);
	return i;
}

/* ---- batches --------------------------------------------------------- */

static struct bslot *bslot(struct ts_tl_proc *p, uint64_t seq)
{
	if (!p->nbs)
		return NULL;
	struct bslot *b = &p->bs[seq % p->nbs];
	return b->live && b->seq == seq ? b : NULL;
}

void ts_tl_batch_open(struct ts_tl_proc *p, uint64_t seq, uint64_t epoch, uint64_t index,
		      uint64_t prefetch, uint64_t t)
{
	pthread_mutex_lock(&p->tl->mu);
	if (!p->nbs && prefetch) {
		if ((p->bs = calloc(prefetch, sizeof(*p->bs))))
			p->nbs = prefetch;
		else
			p->tl->oom = true;
	}
	if (p->nbs)
		p->bs[seq % p->nbs] = (struct bslot){ .seq = seq, .epoch = epoch, .index = index,
						      .open = t, .live = true };
	pthread_mutex_unlock(&p->tl->mu);
}

void ts_tl_batch_ready(struct ts_tl_proc *p, uint64_t seq, uint64_t t)
{
	pthread_mutex_lock(&p->tl->mu);
	struct bslot *b = bslot(p, seq);
	if (b && !b->have_ready) {
		b->ready = t;
		b->have_ready = true;
	}
	pthread_mutex_unlock(&p->tl->mu);
}

void ts_tl_batch_take(struct ts_tl_proc *p, uint64_t seq, uint64_t samples)
{
	pthread_mutex_lock(&p->tl->mu);
	struct bslot *b = bslot(p, seq);
	if (b)
		b->samples = samples;
	pthread_mutex_unlock(&p->tl->mu);
}

void ts_tl_batch_release(struct ts_tl_proc *p, uint64_t seq, uint64_t t)
{
	pthread_mutex_lock(&p->tl->mu);
	struct bslot *b = bslot(p, seq);
	if (b) {
		char name[48];
		snprintf(name, sizeof(name), "batch %" PRIu64, seq);
		struct ts_tl_arg a[] = { { "seq", (int64_t)seq },
					 { "epoch", (int64_t)b->epoch },
					 { "index", (int64_t)b->index },
					 { "samples", (int64_t)b->samples } };
		unsigned lane = (unsigned)(seq % p->nbs);
		put_slice(p, TS_TL_BATCH, lane, name, b->open, t, a, TS_ARRAY_SIZE(a));
		if (b->have_ready)
			put_slice(p, TS_TL_BATCH, lane, "complete", b->ready, t, a, 1);
		b->live = false;
	}
	pthread_mutex_unlock(&p->tl->mu);
}

/* ---- the end ----------------------------------------------------------- */

uint64_t ts_timeline_events(struct ts_timeline *tl)
{
	pthread_mutex_lock(&tl->mu);
	uint64_t n = tl->n;
	pthread_mutex_unlock(&tl->mu);
	return n;
}

uint64_t ts_timeline_dropped(struct ts_timeline *tl)
{
	pthread_mutex_lock(&tl->mu);
	uint64_t n = tl->dropped;
	pthread_mutex_unlock(&tl->mu);
	return n;
}

bool ts_timeline_capped(struct ts_timeline *tl)
{
	pthread_mutex_lock(&tl->mu);
	bool c = tl->capped;
	pthread_mutex_unlock(&tl->mu);
	return c;
}

int ts_timeline_close(struct ts_timeline *tl, char *err, size_t errlen)
{
	if (!tl)
		return 0;
	int rc = ts_chrome_end(&tl->out,
			       "\"clock\":\"%s\",\"events\":%" PRIu64 ",\"dropped\":%" PRIu64
			       ",\"max_events\":%" PRIu64,
			       tl->clock, tl->n, tl->dropped, tl->max);
	if (fclose(tl->f) && !rc)
		rc = -errno;
	/* @path keeps what it held unless the whole file made it. */
	if (rc) {
		snprintf(err, errlen, "%s: write error: %s; not written", tl->path, strerror(-rc));
	} else if (!tl->procs) {
		rc = -ENODATA;
		snprintf(err, errlen, "%s: not written: no configuration ran", tl->path);
	} else if (rename(tl->tmp, tl->path)) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot rename %s onto it: %s", tl->path, tl->tmp,
			 strerror(-rc));
	} else if (tl->oom) {
		rc = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory: some tracks left out", tl->path);
	}
	if (rc && rc != -ENOMEM)
		unlink(tl->tmp);
	for (struct ts_tl_proc *p = tl->procs, *nx; p; p = nx) {
		nx = p->next;
		for (int k = 0; k < TS_TL_NTRACKS; k++) {
			free(p->lanes[k].busy_until);
			free(p->lanes[k].named);
		}
		free(p->bs);
		free(p);
	}
	pthread_mutex_destroy(&tl->mu);
	free(tl->buf);
	free(tl->tmp);
	free(tl->path);
	free(tl);
	return rc;
}
