/*
 * dlio_mpi.h — `tiersim dlio` as ranks under Open MPI (`mpirun -np N
 * tiersim dlio ...`), as DLIO runs: one accelerator per rank, each rank
 * reading its own shard with its own loader, a collective between steps,
 * the per-rank figures reduced to rank 0 (workloads/DLIO.md, "Ranks and shared
 * storage").
 *
 * MPI is initialised only when the process was launched by mpirun
 * (OMPI_COMM_WORLD_SIZE, PMIX_RANK or PMI_RANK in the environment); a
 * plain `tiersim` calls nothing of it, and every hook below is then a
 * pass-through (ts_dlio_mpi_ranks() == 0).
 *
 * Every collective is one operation (ts_dlio_mpi_sync), so ranks that
 * fail at different points still meet: a rank that fails takes its error
 * to its next sync, every rank learns it there (with the lowest failing
 * rank's message), and from then on no sync communicates. The mount owner
 * (rank 0) is therefore always free to unmount.
 */
#ifndef TS_DLIO_MPI_H
#define TS_DLIO_MPI_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ts.h"

/* What a sync carries besides the status: summed, maxed and minned over
 * the ranks. */
#define TS_DLIO_MPI_NSUM 8
#define TS_DLIO_MPI_NMAX 4
#define TS_DLIO_MPI_NMIN 4
struct ts_dlio_mpi_vals {
	double sum[TS_DLIO_MPI_NSUM];
	double max[TS_DLIO_MPI_NMAX];
	double min[TS_DLIO_MPI_NMIN];
};

/* Initialises MPI when launched by mpirun; a no-op otherwise. @stop is
 * polled while a collective waits (SIGINT/SIGTERM). Ranks above 0 write
 * nothing to stdout and stderr from here on (their errors reach rank 0
 * through the syncs). -ENOTSUP when launched by mpirun but built without
 * MPI, with @err empty on every rank but the launcher's rank 0. */
TS_WUR int ts_dlio_mpi_init(volatile sig_atomic_t *stop, char *err, size_t errlen);
/* The world size; 0 when not launched by mpirun. */
int ts_dlio_mpi_ranks(void);
int ts_dlio_mpi_rank(void);
/* Rank 0, or not under mpirun: the one that places the dataset, mounts
 * tierfs, runs virtual time and reports. */
bool ts_dlio_mpi_owner(void);
/* Real time: every rank runs the steps, so the syncs inside a run
 * communicate. Off (virtual time: rank 0 alone runs), they pass @rc
 * through. */
void ts_dlio_mpi_lockstep(bool on);

/* The collective: every rank's @rc (0 or a negative errno / an exit
 * status) and @v (may be NULL on every rank: nothing carried). Returns 0
 * with @v reduced when every rank passed 0, else the lowest failing rank's
 * code with its message in @err ("rank K: ..." for K > 0), the same on
 * every rank. */
TS_WUR int ts_dlio_mpi_sync(int rc, struct ts_dlio_mpi_vals *v, char *err, size_t errlen);
/* A sync, then rank 0's @buf (a string of up to @len bytes) to all. */
TS_WUR int ts_dlio_mpi_share(int rc, char *buf, size_t len, char *err, size_t errlen);
/* The step collective DLIO makes between training steps (comm.barrier()
 * in main.py's _train). */
TS_WUR int ts_dlio_mpi_step(char *err, size_t errlen);
/* The run's exit status agreed by every rank (whether or not lockstep):
 * the lowest failing rank's, with its message in @err. */
int ts_dlio_mpi_status(int status, char *err, size_t errlen);
/* MPI_Finalize, or MPI_Abort when a collective was left waiting. */
void ts_dlio_mpi_end(void);

/* This rank's shard of @total samples for batches of @batch: DLIO's steps
 * per epoch, floor(total / (batch x ranks)), each of one batch, so rank r
 * reads [r x steps x batch, (r + 1) x steps x batch). -EINVAL with a line
 * in @err when that is not one step. */
TS_WUR int ts_dlio_mpi_shard(uint64_t total, uint64_t batch, uint64_t *first, uint64_t *count,
			     char *err, size_t errlen);

#endif
