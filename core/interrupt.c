/* interrupt.c — the one SIGINT/SIGTERM handler (see interrupt.h). */
#include <signal.h>
#include <string.h>

#include "core/interrupt.h"

volatile sig_atomic_t ts_interrupted;
static volatile pid_t forward_to;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	pid_t child = forward_to;
	/* a terminal's Ctrl-C reaches the whole foreground group (SI_KERNEL);
	 * kill(1) reaches tiersim only (SI_USER) */
	if (child > 0 && (sig != SIGINT || si->si_code == SI_USER))
		kill(child, sig);
	if (ts_interrupted && child <= 0) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	ts_interrupted = sig;
}

void ts_interrupt_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal; /* no SA_RESTART: blocking waits return EINTR */
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sa.sa_flags = 0;
	sigaction(SIGPIPE, &sa, NULL);
}

void ts_interrupt_forward(pid_t child)
{
	forward_to = child;
}
