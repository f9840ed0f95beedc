#!/usr/bin/env bash
# dlio_twin.sh — `tiersim dlio` in real time (N accelerators through one
# tierfs mount) against its virtual-time prediction, for scaled-down
# unet3d and resnet50 datasets on several tiers. Prints one row per
# configuration: samples/s and AU in each clock and the relative error.
# Usage: bench/dlio_twin.sh TIERSIM [TIERS] [ACCELERATORS]
set -u
prog=${1:-build/cli/tiersim}
tiers=${2:-"ssd-cloud essd-pl1 aws-gp3"}
accs=${3:-"1 2 4"}
export TIERSIM_WORKDIR=${TIERSIM_WORKDIR:-/tmp/tiersim-dlio-twin}
# shellcheck source=SCRIPTDIR/dlio_small.sh
. "$(dirname "$0")/dlio_small.sh" # the datasets: over[WORKLOAD]
printf '%-14s %-10s %3s %12s %12s %7s %8s %8s\n' workload tier N real-smp/s virt-smp/s err% real-AU virt-AU
for wl in unet3d_h100 resnet50_h100; do
	for t in $tiers; do
		for n in $accs; do
			# shellcheck disable=SC2086
			r=$("$prog" dlio $wl ${over[$wl]} --tier "$t" --accelerators "$n" --quiet --json - | tr -d '\n')
			# shellcheck disable=SC2086
			v=$("$prog" dlio $wl ${over[$wl]} --tier "$t" --accelerators "$n" --quiet --virtual --json - | tr -d '\n')
			/usr/bin/python3 - "$wl" "$t" "$n" "$r" "$v" <<'PY'
import json, sys, re
wl, t, n, r, v = sys.argv[1:]
def run(s):
    return json.loads(s[s.index('{'):])['runs'][0]
a, b = run(r), run(v)
err = 100 * (b['samples_per_s'] - a['samples_per_s']) / a['samples_per_s']
print('%-14s %-10s %3s %12.1f %12.1f %+7.1f %7.1f%% %7.1f%%' % (wl, t, n, a['samples_per_s'],
      b['samples_per_s'], err, 100 * a['au'], 100 * b['au']))
PY
		done
	done
done
