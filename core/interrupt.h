/*
 * interrupt.h — the program's one SIGINT/SIGTERM/SIGHUP path. The first signal
 * asks for an orderly stop: it sets ts_interrupted, which every long loop
 * polls (the runner, the loaders' consumers, dataset generation, DLIO's
 * accelerators, record's wait), and blocking waits return EINTR (no
 * SA_RESTART) so they look at it. Whoever holds a mount unmounts on the way
 * out and the command exits 130 (TS_EXIT_INTERRUPT). A second signal ends
 * the program at once; the tierfs daemons get SIGTERM from the kernel when
 * tiersim dies (PR_SET_PDEATHSIG, fs/mount.h) and unmount themselves.
 *
 * A command that runs another program (tiersim record) names it with
 * ts_interrupt_forward: a signal sent to tiersim alone (kill(1)) is passed
 * on to it; a terminal's Ctrl-C already reaches the whole foreground group.
 */
#ifndef TS_INTERRUPT_H
#define TS_INTERRUPT_H

#include <signal.h>
#include <sys/types.h>

/* The signal that asked for a stop; 0 while none has. */
extern volatile sig_atomic_t ts_interrupted;

/* Installs the handler for SIGINT, SIGTERM and SIGHUP and ignores SIGPIPE (a
 * closed pipe is an EPIPE where it is written). Idempotent. */
void ts_interrupt_install(void);
/* A child to pass signals to (0: none). */
void ts_interrupt_forward(pid_t child);

#endif
