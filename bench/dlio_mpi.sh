#!/usr/bin/env bash
# dlio_mpi.sh — `tiersim dlio` in real time as one process with N
# accelerators against `mpirun -np N` ranks of one accelerator each, both
# through one tierfs mount, for the scaled-down unet3d and resnet50
# datasets of bench/dlio_twin.sh. One row per configuration: AU,
# samples/s and MiB/s of each, and the ranks' samples/s over the single
# process's (the goal: within 5%). The two run side by side in REPS rounds
# (default 3), the single process first in odd rounds and the ranks first
# in even ones: each figure is the median of its runs, and the ratio is
# taken within each round, its median and min..max over the rounds
# printed. The load average is printed before and after.
# Usage: [REPS=3] bench/dlio_mpi.sh TIERSIM [TIERS] [ACCELERATORS]
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
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
echo "$(bench_load) before"
printf '%-14s %-10s %2s %7s %7s %10s %10s %9s %9s %7s %s\n' workload tier N AU-1p AU-mpi smp/s-1p smp/s-mpi MiB/s-1p MiB/s-mpi ratio "(min..max)"
reps=${REPS:-3}
for wl in unet3d_h100 resnet50_h100; do
	for t in $tiers; do
		for n in $accs; do
			pairs=()
			for ((i = 0; i < reps; i++)); do
				for side in $(bench_order "$i" one ranks); do
					if [ "$side" = one ]; then
						# shellcheck disable=SC2086
						a=$("$prog" dlio $wl ${over[$wl]} --tier "$t" --accelerators "$n" --quiet --json - | tr -d '\n')
					else
						# shellcheck disable=SC2086
						b=$("${mpi[@]}" -np "$n" "$prog" dlio $wl ${over[$wl]} --tier "$t" --quiet --json - | tr -d '\n')
					fi
				done
				pairs+=("$a" "$b")
			done
			/usr/bin/python3 - "$wl" "$t" "$n" "${pairs[@]}" <<'PY'
import json, os, sys
sys.path.insert(0, os.environ["BENCH_DIR"])
from benchstat import median as med, summary
wl, t, n, *p = sys.argv[1:]
def run(s):
    j = json.loads(s[s.index('{'):])
    return j['runs'][0], j['ranks']
one, ranks = [], []
for a, b in zip(p[0::2], p[1::2]):
    (a, _), (b, nr) = run(a), run(b)
    assert nr == int(n) and b['accelerators'] == int(n), (nr, b)
    one.append(a)
    ranks.append(b)
ratios = [b['samples_per_s'] / a['samples_per_s'] for a, b in zip(one, ranks)]
m = lambda runs, k: med([r[k] for r in runs])
print('%-14s %-10s %2s %6.1f%% %6.1f%% %10.1f %10.1f %9.1f %9.1f %7.3f (%.3f..%.3f)' % (
    wl, t, n, 100 * m(one, 'au'), 100 * m(ranks, 'au'), m(one, 'samples_per_s'),
    m(ranks, 'samples_per_s'), m(one, 'mib_per_s'), m(ranks, 'mib_per_s'), *summary(ratios)))
PY
		done
	done
done
echo "$(bench_load) after"
