#!/usr/bin/env bash
# dlio_twin.sh — `tiersim dlio` in real time (N accelerators through one
# tierfs mount) against its virtual-time prediction, for scaled-down
# unet3d and resnet50 datasets on several tiers. The real run is repeated
# REPS times (default 3; virtual time is deterministic and runs once); one
# row per configuration: the real samples/s as the median of the runs with
# their spread ((max - min) / median), the virtual samples/s, the error of
# virtual against each real run (its median, and min..max over the runs),
# and AU in each clock (real: median); the load before and after.
# Virtual time is deterministic: it is not run beside each real run, and
# the real runs of one configuration run back to back (nothing to
# alternate them with); read the error's range with the load.
# Usage: [REPS=3] bench/dlio_twin.sh TIERSIM [TIERS] [ACCELERATORS]
set -u
prog=${1:-build/cli/tiersim}
tiers=${2:-"ssd-cloud essd-pl1 aws-gp3"}
accs=${3:-"1 2 4"}
reps=${REPS:-3}
export TIERSIM_WORKDIR=${TIERSIM_WORKDIR:-/tmp/tiersim-dlio-twin}
# shellcheck source=SCRIPTDIR/dlio_small.sh
. "$(dirname "$0")/dlio_small.sh" # the datasets: over[WORKLOAD]
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
echo "$(bench_load) before"
printf '%-14s %-10s %3s %12s %7s %12s %7s %-15s %8s %8s\n' workload tier N real-smp/s spread virt-smp/s err% "(min..max)" real-AU virt-AU
for wl in unet3d_h100 resnet50_h100; do
	for t in $tiers; do
		for n in $accs; do
			runs=()
			for _ in $(seq 1 "$reps"); do
				# shellcheck disable=SC2086
				runs+=("$("$prog" dlio $wl ${over[$wl]} --tier "$t" --accelerators "$n" --quiet --json - | tr -d '\n')")
			done
			# shellcheck disable=SC2086
			v=$("$prog" dlio $wl ${over[$wl]} --tier "$t" --accelerators "$n" --quiet --virtual --json - | tr -d '\n')
			/usr/bin/python3 - "$wl" "$t" "$n" "$v" "${runs[@]}" <<'PY'
import json, os, sys
sys.path.insert(0, os.environ["BENCH_DIR"])
from benchstat import median, summary
wl, t, n, v, *r = sys.argv[1:]
def run(s):
    return json.loads(s[s.index('{'):])['runs'][0]
real = [run(s) for s in r]
b = run(v)
sps = sorted(x['samples_per_s'] for x in real)
med = median(sps)
au = median([x['au'] for x in real])
spread = 100 * (sps[-1] - sps[0]) / med
err = summary([100 * (b['samples_per_s'] - x) / x for x in sps])
print('%-14s %-10s %3s %12.1f %6.1f%% %12.1f %+7.1f %-15s %7.1f%% %7.1f%%' % (wl, t, n, med, spread,
      b['samples_per_s'], err[0], '(%+.1f..%+.1f)' % err[1:], 100 * au, 100 * b['au']))
PY
		done
	done
done
echo "$(bench_load) after"
