#!/usr/bin/env bash
# dlio_validate.sh — the MLPerf Storage workload cases of validation/cases
# (those with a config.workload.dlio block) predicted in virtual time:
# `tiersim validate` runs each with `tiersim dlio`'s code at the published
# accelerator count (AU, samples/s, MiB/s) and with --find-max (the count),
# its dataset scaled to run_files and the page cache with it
# (validation/README.md). A thin wrapper kept for the figures' history.
# Usage: bench/dlio_validate.sh [TIERSIM] [CASE-GLOB] [--json]
set -u
prog=${1:-build/cli/tiersim}
glob=${2:-mlperf-*}
shift $(($# < 2 ? $# : 2))
exec "$prog" validate "$glob" "$@"
