#!/usr/bin/env bash
# ra_trace.sh — what the kernel's readahead did on loop devices while CMD
# ran: a tracefs instance of its own records, for file systems on a loop
# device (major 7) only, readahead's decisions (readahead:page_cache_sync_ra,
# page_cache_async_ra, page_cache_ra_order: the index, size, async_size,
# order and mmap_miss of each, and page_cache_ra_unbounded: the order-0
# fallback), the folios it adds to and deletes from the
# page cache (filemap:mm_filemap_add_to_page_cache with their order,
# mm_filemap_delete_from_page_cache: eviction or reclaim during the run),
# the map's faults and fault-around (mm_filemap_fault,
# mm_filemap_map_pages) and the loop device's requests
# (block:block_rq_issue). bench/ra_trace.py reads the result.
#
# usage: bench/ra_trace.sh OUT -- CMD...
#   OUT: the trace (text, trace_clock mono). Needs root and tracefs at
#   /sys/kernel/tracing. RA_TRACE_KB: the per-CPU buffer (default 131072).
#   The instance is removed at the end; nothing else of tracefs is touched.
set -u
OUT=${1:?usage: bench/ra_trace.sh OUT -- CMD...}
shift
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "ra_trace.sh: no command (usage: bench/ra_trace.sh OUT -- CMD...)" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "ra_trace.sh: tracefs needs root" >&2; exit 2; }
TR=/sys/kernel/tracing/instances/ra_trace.$$
mkdir "$TR" || { echo "ra_trace.sh: cannot make a tracefs instance at $TR" >&2; exit 1; }
EV=(readahead/page_cache_sync_ra readahead/page_cache_async_ra readahead/page_cache_ra_order
	readahead/page_cache_ra_unbounded
	filemap/mm_filemap_add_to_page_cache filemap/mm_filemap_delete_from_page_cache
	filemap/mm_filemap_fault filemap/mm_filemap_map_pages block/block_rq_issue)
cleanup() {
	for e in "${EV[@]}"; do echo 0 >"$TR/events/$e/enable" 2>/dev/null; done
	: >"$TR/trace" 2>/dev/null
	rmdir "$TR" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 1' INT TERM
echo mono >"$TR/trace_clock"
echo "${RA_TRACE_KB:-131072}" >"$TR/buffer_size_kb" || exit 1
# major 7 (loop): dev_t is major << 20 | minor
LOOP='>= 7340032 && %s < 8388608'
for e in "${EV[@]}"; do
	f=s_dev
	[ "${e%%/*}" = block ] && f=dev
	# shellcheck disable=SC2059
	echo "$f $(printf "$LOOP" "$f")" >"$TR/events/$e/filter" || exit 1
	echo 1 >"$TR/events/$e/enable" || exit 1
done
"$@"
rc=$?
for e in "${EV[@]}"; do echo 0 >"$TR/events/$e/enable"; done
cp "$TR/trace" "$OUT" || exit 1
grep -q 'LOST' "$OUT" && echo "ra_trace.sh: events lost (raise RA_TRACE_KB)" >&2
exit "$rc"
