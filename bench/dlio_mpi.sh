#!/usr/bin/env bash
# dlio_mpi.sh — `tiersim dlio` in real time as one process with N
# accelerators against `mpirun -np N` ranks of one accelerator each, both
# through one tierfs mount, for the scaled-down unet3d and resnet50
# datasets of bench/dlio_twin.sh. One row per configuration: AU,
# samples/s and MiB/s of each, and the ranks' samples/s over the single
# process's (the goal: within 5%).
# Usage: bench/dlio_mpi.sh TIERSIM [TIERS] [ACCELERATORS]
set -u
prog=${1:-build/cli/tiersim}
tiers=${2:-"ssd-cloud aws-gp3"}
accs=${3:-"1 2 3 4"}
export TIERSIM_WORKDIR=${TIERSIM_WORKDIR:-/tmp/tiersim-dlio-mpi}
# Root needs --allow-run-as-root; ranks may outnumber cores (--oversubscribe)
# and stay unbound, so that their loader threads are not pinned to one core.
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none -q)
# shellcheck source=SCRIPTDIR/dlio_small.sh
. "$(dirname "$0")/dlio_small.sh" # the datasets: over[WORKLOAD]
printf '%-14s %-10s %2s %7s %7s %10s %10s %9s %9s %7s\n' workload tier N AU-1p AU-mpi smp/s-1p smp/s-mpi MiB/s-1p MiB/s-mpi ratio
for wl in unet3d_h100 resnet50_h100; do
	for t in $tiers; do
		for n in $accs; do
			# shellcheck disable=SC2086
			a=$("$prog" dlio $wl ${over[$wl]} --tier "$t" --accelerators "$n" --quiet --json - | tr -d '\n')
			# shellcheck disable=SC2086
			b=$("${mpi[@]}" -np "$n" "$prog" dlio $wl ${over[$wl]} --tier "$t" --quiet --json - | tr -d '\n')
			/usr/bin/python3 - "$wl" "$t" "$n" "$a" "$b" <<'PY'
import json, sys
wl, t, n, a, b = sys.argv[1:]
def run(s):
    j = json.loads(s[s.index('{'):])
    return j['runs'][0], j['ranks']
(a, _), (b, ranks) = run(a), run(b)
assert ranks == int(n) and b['accelerators'] == int(n), (ranks, b)
print('%-14s %-10s %2s %6.1f%% %6.1f%% %10.1f %10.1f %9.1f %9.1f %7.3f' % (
    wl, t, n, 100 * a['au'], 100 * b['au'], a['samples_per_s'], b['samples_per_s'],
    a['mib_per_s'], b['mib_per_s'], b['samples_per_s'] / a['samples_per_s']))
PY
		done
	done
done
