#!/bin/bash
# open_inline.sh — regression: the loader's reader must not open files
# itself. io_uring tries an OPENAT inline when the name is in the dentry
# cache, and through FUSE that open waits for the daemon's reply, holding
# the one reader thread (nothing reaped, nothing submitted) for the round
# trip: through tierfs on ssd-cloud the queue fell to ~2 requests at QD 16
# while the names the folder listing had looked up were still cached.
#
# Counted, not timed: tierfs records the thread of every request in its
# trace. The names are looked up first and stay cached (entry_timeout), then
# uring_opens reads them with the loader's reader in its own thread; the
# opens whose thread is that one were run inline. With async_opens=false
# (the old behaviour) there must be some, or this kernel never opens inline
# and there is nothing to pin (skip); with the loader's defaults, none.
T=${TS_BUILD_ROOT:?run through meson test}
OPENS=$T/tests/pipeline/uring_opens
TIERSIM=$T/cli/tiersim
if [ ! -x "$T/fs/tierfs" ] || [ ! -x "$TIERSIM" ]; then
	echo "SKIP: tierfs or tiersim is not built"
	exit 77
fi
# shellcheck source=../fs/lib.sh
. "${TS_SOURCE_ROOT:?}/tests/fs/lib.sh"

N=64
python3 - "$BACKING" "$N" <<'PY' || fail "cannot write the files"
import sys
for i in range(int(sys.argv[2])):
    with open(f"{sys.argv[1]}/f{i:03d}", "wb") as f:
        f.write(bytes((i * 31 + k) & 255 for k in range(4096)))
PY
TRACE=$TMPD/run.trace
tfs_mount "tier=unlimited,trace=$TRACE,entry_timeout=3600"
inline_tid=$("$OPENS" "$MNT" "$N" 8 async_opens=false)
rc=$?
[ $rc -eq 77 ] && { echo "SKIP: no opens through io_uring here"; exit 77; }
[ $rc -eq 0 ] || fail "uring_opens async_opens=false (status $rc)"
default_tid=$("$OPENS" "$MNT" "$N" 8) || fail "uring_opens with the loader's defaults"
tfs_umount
# A trace that lost records says so here, and check_log then fails on it.
sed -i '/^tierfs: trace .* written, no records dropped\( (.*)\)\{0,1\}$/d' "$LOG"
check_log
"$TIERSIM" trace dump "$TRACE" >"$TMPD/trace.txt" || fail "tiersim trace dump $TRACE"

# IO lines: submit_ns complete_ns op file_id offset length result tid ...
opens_by() { # TID: opens that thread sent
	awk -v t="$1" '$3 == "open" && $8 == t { n++ } END { print n + 0 }' "$TMPD/trace.txt"
}
all=$(awk '$3 == "open" { n++ } END { print n + 0 }' "$TMPD/trace.txt")
[ "$all" -eq $((2 * N)) ] || fail "the trace holds $all opens, not $((2 * N))"
before=$(opens_by "${inline_tid#tid }")
after=$(opens_by "${default_tid#tid }")
echo "opens run in the reader's own thread: $before of $N with async_opens=false, $after of $N by default"
if [ "$before" -eq 0 ]; then
	echo "SKIP: this kernel never ran a cached open inline; nothing to pin"
	exit 77
fi
[ "$after" -eq 0 ] || fail "$after of $N opens ran in the reader's thread with the loader's defaults"
echo "ok: opens leave the reader's thread"
