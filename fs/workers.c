/*
 * workers.c — tierfs's multi-threaded request loop (workers.h).
 *
 * libfuse 3.14's fuse_loop_mt can only end an idle worker the moment it
 * finishes a request while more than max_idle_threads are idle, so a
 * small bound starts and ends threads as the depth in flight jitters (2.6%
 * of IOPS at QD256 with 16, ~10% more daemon CPU a read) and a large one
 * keeps a busy moment's pool for the mount's life. This loop ends a worker
 * only after it has been idle for a while (fs/README.md, "Worker
 * threads").
 *
 * The pool. Idle workers wait on the device with a blocking read, as in
 * fuse_loop_mt (one syscall a request, and the kernel wakes one reader),
 * but at most max_idle_threads of them (at least one): a worker done with
 * a request while that many wait is parked on its own condition variable,
 * on a stack, instead of ending. A request that takes the last reader
 * sends the worker parked last back to reading (or starts one, up to
 * max_threads), and a worker parked for idle_ns ends. So a depth that
 * jitters moves workers between reading and parked, never starts or ends
 * a thread, and the workers parked longest, never used, are the ones that
 * end. (An epoll set a worker, with EPOLLEXCLUSIVE and a time-out, wakes
 * the first-started waiting worker but costs an epoll wait beside every
 * read and a walk of every busy worker's set on each request: 11-32% more
 * daemon CPU a read than libfuse's loop at QD1-256, measured.)
 *
 * What fuse_loop_mt does and this keeps: a worker is started (under the
 * lock) by the worker that takes the last reader, so one is always
 * waiting while fewer than max_threads run; FORGETs do not take a slot
 * (they are answered at once: a burst of them would start threads);
 * workers block the stop signals, so they (libfuse's handlers:
 * fuse_session_exit) reach the waiting main thread; ENODEV at unmount ends
 * the session (fuse_session_receive_buf returns 0); EINTR is retried; at
 * the end the workers waiting on the device are cancelled there (the only
 * place cancellation is enabled); the high-level API's cleanup thread runs
 * beside the loop; the workers' stack size is FUSE_THREAD_STACK's, read as
 * libfuse reads it (stack_from_env). Unlike it, an ended worker is joined
 * (by the main thread), never detached, so its thread-local state (the
 * trace's ring, libfuse's splice pipe) has been given back before the loop
 * returns and the trace is closed.
 * clone_fd is not supported (the public API has no channel to read from).
 */
#include "fs/workers.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "fs/daemon.h"

#include <fuse.h>
#include <fuse_lowlevel.h>

/* The kernel's request header starts len (u32), opcode (u32); FUSE_FORGET
 * and FUSE_BATCH_FORGET (linux/fuse.h) expect no reply. */
#define FORGET_OP 2
#define BATCH_FORGET_OP 42
/* The main thread's wait is woken by the workers; it also looks at the
 * session this often, in case a stop signal reached another thread. */
#define MAIN_CHECK_NS 500000000L

struct worker {
	struct worker *next, *prev; /* the live list: every running worker */
	struct worker *below;	    /* the parked stack */
	pthread_t thread;
	pthread_cond_t wake;
	bool woken; /* unparked: back to reading (counted in nread by the waker) */
	struct fuse_buf buf;
	struct pool *pool;
};

struct pool {
	struct fuse_session *se;
	struct ts_fs_workers_cfg cfg;
	unsigned readers; /* the most workers waiting on the device; 0: no bound */
	pthread_mutex_t lock;
	unsigned nworker;      /* running, ended ones not counted */
	unsigned nread;	       /* of them, waiting on (or going back to) the device */
	struct worker *live;   /* every running worker, parked or not */
	struct worker *parked; /* the parked stack, last parked on top */
	struct worker *ended;  /* ended for being parked too long, to join */
	bool exiting;	       /* the loop is ending: no worker starts, parks or ends */
	int error;	       /* -errno of the first failed receive */
	bool warned;	       /* a worker could not be started: said once */
	pthread_attr_t attr;   /* the workers' (their stack size) */
	bool stack_set;	       /* attr holds FUSE_THREAD_STACK's size */
	sem_t done;	       /* a worker ended, or the session exited */
};

static void *worker_main(void *arg);

/* Under the lock: one more worker, reading. 0, or -errno. */
static int start_worker(struct pool *p)
{
	struct worker *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->pool = p;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* park()'s deadline */
	pthread_cond_init(&w->wake, &ca);
	pthread_condattr_destroy(&ca);
	/* Workers take no stop signal (the set fuse_loop_mt's workers
	 * block): they go to the main thread, whose wait they end. */
	sigset_t stops, old;
	sigemptyset(&stops);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGHUP);
	sigaddset(&stops, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, &stops, &old);
	int ret = -pthread_create(&w->thread, p->stack_set ? &p->attr : NULL, worker_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		pthread_cond_destroy(&w->wake);
		free(w);
		return ret;
	}
	w->next = p->live;
	if (p->live)
		p->live->prev = w;
	p->live = w;
	p->nworker++;
	p->nread++;
	return 0;
}

static void unlink_live(struct pool *p, struct worker *w)
{
	if (w->prev)
		w->prev->next = w->next;
	else
		p->live = w->next;
	if (w->next)
		w->next->prev = w->prev;
	w->next = w->prev = NULL;
}

static void unlink_parked(struct pool *p, struct worker *w)
{
	for (struct worker **q = &p->parked; *q; q = &(*q)->below)
		if (*q == w) {
			*q = w->below;
			return;
		}
}

/* Under the lock, after a request took the last reader: the worker parked
 * last goes back to reading, or a new one is started (up to max_threads). */
static void add_reader(struct pool *p)
{
	struct worker *w = p->parked;
	if (w) {
		p->parked = w->below;
		w->woken = true;
		p->nread++;
		pthread_cond_signal(&w->wake);
		return;
	}
	if (p->nworker >= p->cfg.max_threads)
		return;
	int err = start_worker(p);
	if (err && !p->warned) {
		p->warned = true;
		ts_fs_log(p->cfg.fs, LOG_WARNING,
			  "tierfs: cannot start a worker thread (%u running): %s", p->nworker,
			  strerror(-err));
	}
}

/* Under the lock, a worker just done with a request and not needed on the
 * device: parked until a request needs it (true: read again) or until it
 * has waited idle_ns (false, and it is on the ended list: end). */
static bool park(struct pool *p, struct worker *w)
{
	struct timespec until;
	clock_gettime(CLOCK_MONOTONIC, &until);
	uint64_t ns = (uint64_t)until.tv_nsec + p->cfg.idle_ns;
	until.tv_sec += (time_t)(ns / 1000000000ULL);
	until.tv_nsec = (long)(ns % 1000000000ULL);
	w->woken = false;
	w->below = p->parked;
	p->parked = w;
	while (!w->woken && !p->exiting) {
		if (pthread_cond_timedwait(&w->wake, &p->lock, &until) == ETIMEDOUT && !w->woken &&
		    !p->exiting) {
			unlink_parked(p, w);
			unlink_live(p, w);
			p->nworker--;
			w->next = p->ended;
			p->ended = w;
			return false;
		}
	}
	if (!w->woken)
		unlink_parked(p, w); /* exiting */
	return true;
}

static bool is_forget(const struct fuse_buf *b)
{
	uint32_t op;
	if ((b->flags & FUSE_BUF_IS_FD) || b->size < 8)
		return false; /* spliced: a large write */
	memcpy(&op, (const char *)b->mem + 4, sizeof(op));
	return op == FORGET_OP || op == BATCH_FORGET_OP;
}

static void free_buf(void *arg)
{
	struct worker *w = arg;
	free(w->buf.mem);
	w->buf.mem = NULL;
}

/* A worker's requests, until the session ends or the worker was parked
 * too long. */
static void work(struct worker *w)
{
	struct pool *p = w->pool;
	bool ended = false; /* parked too long (else the session is over) */

	while (!fuse_session_exited(p->se)) {
		/* As in fuse_loop_mt: only a wait for a request may be
		 * cancelled, at the end of the loop. */
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
		w->buf.flags = 0; /* a spliced write left FUSE_BUF_IS_FD; mem is kept */
		int res = fuse_session_receive_buf(p->se, &w->buf);
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		if (res == -EINTR)
			continue;
		if (res <= 0) {
			/* 0: unmounted (ENODEV) or exited; else a device error,
			 * said by libfuse */
			if (res < 0) {
				pthread_mutex_lock(&p->lock);
				if (!p->error)
					p->error = res;
				pthread_mutex_unlock(&p->lock);
				fuse_session_exit(p->se);
			}
			break;
		}
		bool forget = is_forget(&w->buf);
		pthread_mutex_lock(&p->lock);
		if (p->exiting) {
			pthread_mutex_unlock(&p->lock);
			break;
		}
		if (!forget && --p->nread == 0)
			add_reader(p);
		pthread_mutex_unlock(&p->lock);

		fuse_session_process_buf(p->se, &w->buf);

		if (forget)
			continue; /* it never left the readers */
		pthread_mutex_lock(&p->lock);
		if (p->readers && p->nread >= p->readers && !p->exiting)
			ended = !park(p, w); /* woken: the waker counted it in nread */
		else if (!p->exiting)
			p->nread++;
		bool exiting = p->exiting;
		pthread_mutex_unlock(&p->lock);
		if (ended || exiting)
			break;
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	pthread_cleanup_push(free_buf, w);
	work(w);
	pthread_cleanup_pop(1);
	sem_post(&w->pool->done);
	return NULL;
}

/* Joins and frees the workers that ended for being parked too long. */
static void join_ended(struct pool *p)
{
	pthread_mutex_lock(&p->lock);
	struct worker *w = p->ended;
	p->ended = NULL;
	pthread_mutex_unlock(&p->lock);
	while (w) {
		struct worker *next = w->next;
		pthread_join(w->thread, NULL);
		pthread_cond_destroy(&w->wake);
		free(w);
		w = next;
	}
}

static int serve(struct pool *p)
{
	pthread_mutex_lock(&p->lock);
	int ret = start_worker(p);
	pthread_mutex_unlock(&p->lock);
	if (ret)
		return ret;
	while (!fuse_session_exited(p->se)) {
		struct timespec t;
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_nsec += MAIN_CHECK_NS;
		if (t.tv_nsec >= 1000000000L) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000L;
		}
		/* EINTR: a stop signal; ETIMEDOUT: look at the session anyway */
		(void)sem_timedwait(&p->done, &t);
		join_ended(p);
	}
	/* Parked workers are woken and end; the others are cancelled in
	 * their wait for a request (one in a request ends after it). No
	 * worker starts, parks or ends once exiting is set: the live list is
	 * final. */
	pthread_mutex_lock(&p->lock);
	p->exiting = true;
	for (struct worker *w = p->live; w; w = w->next) {
		pthread_cond_signal(&w->wake);
		pthread_cancel(w->thread);
	}
	pthread_mutex_unlock(&p->lock);
	for (struct worker *w = p->live, *next; w; w = next) {
		next = w->next;
		pthread_join(w->thread, NULL);
		pthread_cond_destroy(&w->wake);
		free(w);
	}
	p->live = NULL;
	join_ended(p);
	return p->error;
}

/* The workers' stack size from FUSE_THREAD_STACK, as libfuse 3.14's
 * fuse_start_thread reads it for fuse_loop_mt's workers: a number of bytes
 * (atoi's reading: leading digits, the rest ignored) given to
 * pthread_attr_setstacksize; a value it refuses (under PTHREAD_STACK_MIN,
 * or no number) is said, once, and the default stack kept, as libfuse
 * does. Unlike libfuse, a negative value is refused too (libfuse passes it
 * on as a huge size_t, and then no worker can start). */
static void stack_from_env(struct pool *p)
{
	const char *s = getenv("FUSE_THREAD_STACK");
	if (!s)
		return;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	pthread_attr_init(&p->attr);
	if (end != s && !errno && v >= 0 && v <= INT_MAX &&
	    !pthread_attr_setstacksize(&p->attr, (size_t)v)) {
		p->stack_set = true;
		return;
	}
	pthread_attr_destroy(&p->attr);
	ts_fs_log(p->cfg.fs, LOG_WARNING,
		  "tierfs: FUSE_THREAD_STACK=%s: invalid stack size, the workers keep the "
		  "default stack", s);
}

int ts_fs_workers_run(struct fuse *f, const struct ts_fs_workers_cfg *cfg)
{
	struct pool p = {.se = fuse_get_session(f), .cfg = *cfg};
	int ret;

	if (cfg->max_threads < 1)
		return -EINVAL;
	/* max_idle_threads idle workers wait on the device (at least one:
	 * someone must), the rest parked; -1: all wait on it, none ends. */
	p.readers = cfg->max_idle < 0 ? 0 : cfg->max_idle > 0 ? (unsigned)cfg->max_idle : 1;
	stack_from_env(&p);
	pthread_mutex_init(&p.lock, NULL);
	sem_init(&p.done, 0, 0);
	if (fuse_start_cleanup_thread(f)) {
		ret = -ENOMEM;
	} else {
		ret = serve(&p);
		fuse_stop_cleanup_thread(f);
	}
	fuse_session_reset(p.se);
	sem_destroy(&p.done);
	pthread_mutex_destroy(&p.lock);
	if (p.stack_set)
		pthread_attr_destroy(&p.attr);
	return ret;
}
