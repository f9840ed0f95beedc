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
 * How a request finds a worker. The device fd is non-blocking and every
 * worker waits on its own epoll set holding it with EPOLLEXCLUSIVE: a
 * request wakes one waiting set, the first registered of those whose
 * worker is waiting, so the workers started first take the requests and
 * the ones started last stay idle and time out. (A plain blocking read
 * wakes the longest-waiting reader, which rotates through every worker and
 * keeps all of them alive; poll() would wake every idle worker for each
 * request.) A worker woken with nothing to read (EAGAIN: another took it)
 * waits again. Each set also holds an eventfd the loop writes once at the
 * end, which wakes every worker.
 *
 * What fuse_loop_mt does and this keeps: a worker is started (under the
 * lock) by the worker that takes the last idle slot, so one is always
 * waiting while fewer than max_threads run; FORGETs do not take a slot
 * (they are answered at once: a burst of them would start threads);
 * workers block every signal, so the stop signals (libfuse's handlers:
 * fuse_session_exit) reach the waiting main thread; ENODEV at unmount ends
 * the session (fuse_session_receive_buf returns 0); EINTR is retried; the
 * high-level API's cleanup thread runs beside the loop. Unlike it, an
 * ended worker is joined (by the main thread), never detached, so its
 * thread-local state (the trace's ring, libfuse's splice pipe) has been
 * given back before the loop returns and the trace is closed.
 * clone_fd is not supported (the public API has no channel to read from).
 */
#include "fs/workers.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
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
	struct worker *next;
	pthread_t thread;
	int ep;
	struct fuse_buf buf;
	struct pool *pool;
};

struct pool {
	struct fuse_session *se;
	int fd;	  /* the device */
	int stop; /* eventfd: written once at the end */
	struct ts_fs_workers_cfg cfg;
	pthread_mutex_t lock;
	unsigned nworker; /* running, ended ones not counted */
	unsigned navail;  /* of them, idle */
	struct worker *live, *ended; /* ended: returned or returning, to join */
	bool exiting;		     /* the loop is ending: no worker starts or ends */
	int error;		     /* -errno of the first failed receive */
	bool warned;		     /* a worker could not be started: said once */
	sem_t wake;		     /* a worker ended, or the session exited */
};

static void unlink_worker(struct worker **head, struct worker *w)
{
	for (struct worker **p = head; *p; p = &(*p)->next)
		if (*p == w) {
			*p = w->next;
			return;
		}
}

static void *worker_main(void *arg);

/* Under the lock: one more worker, counted idle. 0, or -errno. */
static int start_worker(struct pool *p)
{
	struct worker *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->pool = p;
	w->ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event dev = { .events = EPOLLIN | EPOLLEXCLUSIVE, .data.u32 = 0 };
	struct epoll_event stop = { .events = EPOLLIN, .data.u32 = 1 };
	int ret = 0;
	if (w->ep < 0 || epoll_ctl(w->ep, EPOLL_CTL_ADD, p->fd, &dev) ||
	    epoll_ctl(w->ep, EPOLL_CTL_ADD, p->stop, &stop))
		ret = -errno;
	if (!ret) {
		/* Workers take no signal: the stop signals go to the main
		 * thread, whose wait they end. */
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		ret = -pthread_create(&w->thread, NULL, worker_main, w);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (ret) {
		if (w->ep >= 0)
			close(w->ep);
		free(w);
		return ret;
	}
	w->next = p->live;
	p->live = w;
	p->nworker++;
	p->navail++;
	return 0;
}

/* The epoll timeout for a worker idle since @since: -1 (never end), or the
 * milliseconds left of the idle time, rounded up, at least 1. */
static int idle_wait_ms(const struct pool *p, uint64_t since)
{
	if (p->cfg.max_idle < 0)
		return -1;
	uint64_t now = ts_now_ns(), end = since + p->cfg.idle_ns;
	if (now >= end)
		return 1;
	uint64_t ms = (end - now + 999999) / 1000000;
	return ms > INT32_MAX ? INT32_MAX : (int)ms;
}

static bool is_forget(const struct fuse_buf *b)
{
	uint32_t op;
	if ((b->flags & FUSE_BUF_IS_FD) || b->size < 8)
		return false; /* spliced: a large write */
	memcpy(&op, (const char *)b->mem + 4, sizeof(op));
	return op == FORGET_OP || op == BATCH_FORGET_OP;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct pool *p = w->pool;
	uint64_t idle_since = ts_now_ns();
	bool ended = false; /* ended for being idle (else the session is over) */

	while (!fuse_session_exited(p->se)) {
		struct epoll_event ev[2];
		int n = epoll_wait(w->ep, ev, 2, idle_wait_ms(p, idle_since));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			pthread_mutex_lock(&p->lock);
			if (!p->error)
				p->error = -errno;
			pthread_mutex_unlock(&p->lock);
			fuse_session_exit(p->se);
			break;
		}
		if (n == 0) {
			if (ts_now_ns() - idle_since < p->cfg.idle_ns)
				continue; /* woken early: wait out the rest */
			pthread_mutex_lock(&p->lock);
			if (!p->exiting && p->navail > (unsigned)p->cfg.max_idle &&
			    p->nworker > 1) {
				p->navail--;
				p->nworker--;
				unlink_worker(&p->live, w);
				w->next = p->ended;
				p->ended = w;
				ended = true;
			}
			pthread_mutex_unlock(&p->lock);
			if (ended)
				break;
			idle_since = ts_now_ns(); /* kept: look again after another idle time */
			continue;
		}
		bool dev = false;
		for (int i = 0; i < n; i++)
			dev |= ev[i].data.u32 == 0;
		if (!dev)
			break; /* the stop eventfd */

		w->buf.flags = 0; /* a spliced write left FUSE_BUF_IS_FD; mem is kept */
		int res = fuse_session_receive_buf(p->se, &w->buf);
		if (res == -EAGAIN || res == -EINTR)
			continue; /* another worker took it */
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
		if (!forget)
			p->navail--;
		if (p->navail == 0 && p->nworker < p->cfg.max_threads && !p->exiting) {
			int err = start_worker(p);
			if (err && !p->warned) {
				p->warned = true;
				ts_fs_log(p->cfg.fs, LOG_WARNING,
					  "tierfs: cannot start a worker thread (%u running): %s",
					  p->nworker, strerror(-err));
			}
		}
		pthread_mutex_unlock(&p->lock);

		fuse_session_process_buf(p->se, &w->buf);

		pthread_mutex_lock(&p->lock);
		if (!forget)
			p->navail++;
		pthread_mutex_unlock(&p->lock);
		idle_since = ts_now_ns();
	}
	free(w->buf.mem);
	w->buf.mem = NULL;
	close(w->ep);
	w->ep = -1;
	sem_post(&p->wake);
	return NULL;
}

/* Joins and frees the workers that ended for being idle. */
static void join_ended(struct pool *p)
{
	pthread_mutex_lock(&p->lock);
	struct worker *w = p->ended;
	p->ended = NULL;
	pthread_mutex_unlock(&p->lock);
	while (w) {
		struct worker *next = w->next;
		pthread_join(w->thread, NULL);
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
		(void)sem_timedwait(&p->wake, &t);
		join_ended(p);
	}
	pthread_mutex_lock(&p->lock);
	p->exiting = true;
	pthread_mutex_unlock(&p->lock);
	uint64_t one = 1;
	if (write(p->stop, &one, sizeof(one)) != sizeof(one))
		return -errno; /* cannot happen: an eventfd of 1 */
	/* No worker starts or ends once exiting is set: the live list is
	 * final. */
	for (struct worker *w = p->live, *next; w; w = next) {
		next = w->next;
		pthread_join(w->thread, NULL);
		free(w);
	}
	p->live = NULL;
	join_ended(p);
	return p->error;
}

int ts_fs_workers_run(struct fuse *f, const struct ts_fs_workers_cfg *cfg)
{
	struct pool p = { .se = fuse_get_session(f), .cfg = *cfg, .stop = -1 };
	int ret;

	if (cfg->max_threads < 1)
		return -EINVAL;
	p.fd = fuse_session_fd(p.se);
	int fl = fcntl(p.fd, F_GETFL);
	if (fl < 0 || fcntl(p.fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	p.stop = eventfd(0, EFD_CLOEXEC);
	if (p.stop < 0)
		return -errno;
	pthread_mutex_init(&p.lock, NULL);
	sem_init(&p.wake, 0, 0);
	if (fuse_start_cleanup_thread(f)) {
		ret = -ENOMEM;
	} else {
		ret = serve(&p);
		fuse_stop_cleanup_thread(f);
	}
	fuse_session_reset(p.se);
	sem_destroy(&p.wake);
	pthread_mutex_destroy(&p.lock);
	close(p.stop);
	return ret;
}
