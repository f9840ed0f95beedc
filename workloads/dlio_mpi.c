/*
 * dlio_mpi.c — the ranks of `mpirun -np N tiersim dlio` (dlio_mpi.h).
 *
 * One collective for everything: an allreduce of a fixed message (the
 * lowest failing rank, then sums, maxima and minima) under one user
 * operation, and, when some rank failed, a broadcast of its code and
 * message from it. Because every collective is the same operation, ranks
 * that are at different points of the run still meet in it.
 *
 * Waits poll (MPI_Test, then a short sleep) rather than block: on a host
 * with fewer cores than ranks (CI: 2 cores, 3 ranks, tierfs and the
 * loaders' threads) a rank spinning in a barrier would take the CPU from
 * the ranks still reading, and the stop flag is seen while waiting.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "workloads/dlio_mpi.h"
#include "ts_config.h"

static struct {
	bool on;	/* launched by mpirun, MPI initialised */
	bool lockstep;
	bool broken;	/* a collective was left waiting: abort at the end */
	bool failed;	/* a sync has seen a failure: later ones are local */
	int rank, size;
	int rc;		/* the failure seen, and its message */
	char msg[2048];
	volatile sig_atomic_t *stop;
} M;

static bool launched(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK");
}

int ts_dlio_mpi_ranks(void)
{
	return M.on ? M.size : 0;
}

int ts_dlio_mpi_rank(void)
{
	return M.on ? M.rank : 0;
}

bool ts_dlio_mpi_owner(void)
{
	return !M.on || M.rank == 0;
}

void ts_dlio_mpi_lockstep(bool on)
{
	M.lockstep = on;
}

int ts_dlio_mpi_shard(uint64_t total, uint64_t batch, uint64_t *first, uint64_t *count,
		      char *err, size_t errlen)
{
	uint64_t ranks = M.on ? (uint64_t)M.size : 1, rank = M.on ? (uint64_t)M.rank : 0;
	uint64_t steps = batch ? total / (batch * ranks) : 0;
	if (!steps) {
		snprintf(err, errlen, "%llu samples make no step of %llu samples on each of %llu "
				      "ranks; use more files (++workload.dataset.num_files_train=...)",
			 (unsigned long long)total, (unsigned long long)batch,
			 (unsigned long long)ranks);
		return -EINVAL;
	}
	*count = steps * batch;
	*first = rank * *count;
	return 0;
}

#if TS_HAVE_MPI
#include <mpi.h>

static void fail_copy(char *err, size_t errlen)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", M.msg);
}

/* The message every sync reduces: [0] the lowest failing rank (size when
 * none), then the sums, the maxima, the minima. */
enum { V_WHO, V_SUM, V_MAX = V_SUM + TS_DLIO_MPI_NSUM, V_MIN = V_MAX + TS_DLIO_MPI_NMAX,
       V_N = V_MIN + TS_DLIO_MPI_NMIN };
static MPI_Datatype msg_type;
static MPI_Op msg_op;

static void combine(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	(void)dt;
	const double *a = in;
	double *b = inout;
	for (int k = 0; k < *len; k++, a += V_N, b += V_N) {
		b[V_WHO] = a[V_WHO] < b[V_WHO] ? a[V_WHO] : b[V_WHO];
		for (int i = V_SUM; i < V_MAX; i++)
			b[i] += a[i];
		for (int i = V_MAX; i < V_MIN; i++)
			b[i] = a[i] > b[i] ? a[i] : b[i];
		for (int i = V_MIN; i < V_N; i++)
			b[i] = a[i] < b[i] ? a[i] : b[i];
	}
}

/* Polled every 20 us while a collective is outstanding (assumed: small
 * against a DLIO step, 1.36 s for unet3d and 20 ms in the benchmark here;
 * range 1 us..1 ms; the kernel's default timer slack adds ~50 us). */
#define POLL_NS 20000

static int wait_req(MPI_Request *rq)
{
	int done = 0;
	for (;;) {
		if (MPI_Test(rq, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return -EIO;
		if (done)
			return 0;
		if (M.stop && *M.stop) {
			M.broken = true; /* the request stays posted: MPI_Abort at the end */
			return -EINTR;
		}
		struct timespec ts = { 0, POLL_NS };
		nanosleep(&ts, NULL);
	}
}

static int comm_failed(int rc, char *err, size_t errlen)
{
	M.failed = true;
	M.rc = rc;
	snprintf(M.msg, sizeof(M.msg), "%s", rc == -EINTR ? "interrupted while the ranks met"
							    : "the ranks could not meet (MPI)");
	fail_copy(err, errlen);
	return rc;
}

static int sync_all(int rc, struct ts_dlio_mpi_vals *v, char *err, size_t errlen)
{
	if (M.failed) {
		fail_copy(err, errlen);
		return M.rc;
	}
	double in[V_N] = { 0 }, out[V_N];
	in[V_WHO] = rc ? M.rank : M.size;
	if (v) {
		memcpy(in + V_SUM, v->sum, sizeof(v->sum));
		memcpy(in + V_MAX, v->max, sizeof(v->max));
		memcpy(in + V_MIN, v->min, sizeof(v->min));
	}
	MPI_Request rq;
	int wrc;
	if (MPI_Iallreduce(in, out, 1, msg_type, msg_op, MPI_COMM_WORLD, &rq) != MPI_SUCCESS)
		return comm_failed(-EIO, err, errlen);
	if ((wrc = wait_req(&rq)))
		return comm_failed(wrc, err, errlen);
	int who = (int)out[V_WHO];
	if (who >= M.size) {
		if (v) {
			memcpy(v->sum, out + V_SUM, sizeof(v->sum));
			memcpy(v->max, out + V_MAX, sizeof(v->max));
			memcpy(v->min, out + V_MIN, sizeof(v->min));
		}
		return 0;
	}
	/* Some rank failed: its code and message, from it, to all. */
	struct {
		int rc;
		char msg[sizeof(M.msg)];
	} f = { rc, "" };
	if (who == M.rank) {
		if (M.rank > 0)
			snprintf(f.msg, sizeof(f.msg), "rank %d: %s", M.rank, err ? err : "");
		else
			snprintf(f.msg, sizeof(f.msg), "%s", err ? err : "");
	}
	if (MPI_Ibcast(&f, (int)sizeof(f), MPI_BYTE, who, MPI_COMM_WORLD, &rq) != MPI_SUCCESS)
		return comm_failed(-EIO, err, errlen);
	if ((wrc = wait_req(&rq)))
		return comm_failed(wrc, err, errlen);
	M.failed = true;
	M.rc = f.rc;
	memcpy(M.msg, f.msg, sizeof(M.msg));
	M.msg[sizeof(M.msg) - 1] = 0;
	fail_copy(err, errlen);
	return M.rc;
}

int ts_dlio_mpi_init(volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	if (M.on || !launched())
		return 0;
	int provided;
	/* The loader's threads never call MPI: the main thread alone does. */
	if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
		snprintf(err, errlen, "MPI_Init failed under mpirun");
		return -EIO;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &M.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &M.size);
	MPI_Type_contiguous(V_N, MPI_DOUBLE, &msg_type);
	MPI_Type_commit(&msg_type);
	MPI_Op_create(combine, 1, &msg_op);
	M.on = true;
	M.stop = stop;
	if (M.rank > 0) {
		/* One voice: rank 0 reports for all. Sanitizers write to fd 2
		 * themselves and still do. */
		FILE *null = fopen("/dev/null", "w");
		if (null) {
			fflush(stdout);
			fflush(stderr);
			stdout = null;
			stderr = null;
		}
	}
	return 0;
}

int ts_dlio_mpi_status(int status, char *err, size_t errlen)
{
	if (!M.on || M.failed)
		return status; /* already agreed at the sync that saw it */
	return sync_all(status, NULL, err, errlen);
}

void ts_dlio_mpi_end(void)
{
	if (!M.on)
		return;
	if (M.broken) {
		MPI_Abort(MPI_COMM_WORLD, 130);
		return;
	}
	MPI_Op_free(&msg_op);
	MPI_Type_free(&msg_type);
	MPI_Finalize();
	M.on = false;
}

#else /* built without MPI */

static int sync_all(int rc, struct ts_dlio_mpi_vals *v, char *err, size_t errlen)
{
	(void)v, (void)err, (void)errlen;
	return rc;
}

int ts_dlio_mpi_init(volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	(void)stop;
	if (!launched())
		return 0;
	/* said once, by the launcher's rank 0 */
	const char *r = getenv("OMPI_COMM_WORLD_RANK");
	if (!r)
		r = getenv("PMIX_RANK");
	if (!r)
		r = getenv("PMI_RANK");
	err[0] = 0;
	if (!r || !strcmp(r, "0"))
		snprintf(err, errlen, "launched by mpirun, but this tiersim was built without MPI "
				      "(install libopenmpi-dev and rebuild)");
	return -ENOTSUP;
}

int ts_dlio_mpi_status(int status, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	return status;
}

void ts_dlio_mpi_end(void)
{
}

#endif

int ts_dlio_mpi_sync(int rc, struct ts_dlio_mpi_vals *v, char *err, size_t errlen)
{
	if (!M.on || !M.lockstep)
		return rc;
	return sync_all(rc, v, err, errlen);
}

int ts_dlio_mpi_step(char *err, size_t errlen)
{
	return ts_dlio_mpi_sync(0, NULL, err, errlen);
}

int ts_dlio_mpi_share(int rc, char *buf, size_t len, char *err, size_t errlen)
{
	if ((rc = ts_dlio_mpi_sync(rc, NULL, err, errlen)) || !M.on || !M.lockstep)
		return rc;
#if TS_HAVE_MPI
	MPI_Request rq;
	int wrc;
	if (MPI_Ibcast(buf, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD, &rq) != MPI_SUCCESS)
		return comm_failed(-EIO, err, errlen);
	if ((wrc = wait_req(&rq)))
		return comm_failed(wrc, err, errlen);
	buf[len - 1] = 0;
#else
	(void)buf, (void)len;
#endif
	return 0;
}
