#!/usr/bin/env bash
# mounted.sh OPTIONS PROGRAM [ARGS...] — mounts a fresh BACKING with
# `tierfs -o OPTIONS`, runs `PROGRAM MOUNTPOINT SHADOW BACKING ARGS...`
# (SHADOW: an empty plain directory to compare against), then unmounts and
# fails on the program's failure, an unclean daemon exit or an error line
# in the daemon's log.
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || fail "usage: mounted.sh OPTIONS PROGRAM [ARGS...]"
opts=$1
prog=$2
shift 2
mkdir -p "$TMPD/shadow"
tfs_mount "$opts"
"$prog" "$MNT" "$TMPD/shadow" "$BACKING" "$@" || fail "$(basename "$prog") failed"
tfs_umount
check_log
exit 0
