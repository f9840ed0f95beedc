#!/usr/bin/env bash
# daemon_links.sh — tierfs started as a daemon (no -f) keeps the other
# names of a hard-linked file true: the attribute-invalidation thread must
# be started after the fork, or the daemon has none and a write through
# one name waits for it forever.
. "$(dirname "$0")/lib.sh"

"$TIERFS" -o tier=unlimited "$BACKING" "$MNT" 2>>"$LOG" || fail "tierfs did not start as a daemon"
is_mounted "$MNT" || fail "$MNT is not mounted"
echo abc >"$MNT/a" || fail "cannot write a"
ln "$MNT/a" "$MNT/b" || fail "cannot link b"
stat -c %s "$MNT/b" >/dev/null
timeout 20 sh -c "echo defgh >>'$MNT/a'" || fail "a write through one name of a hard link did not return"
got=$(stat -c '%s %h' "$MNT/b")
[ "$got" = "10 2" ] || fail "b after a write through a: size and links '$got', expected '10 2'"
fusermount3 -u "$MNT" || fail "fusermount3 -u $MNT failed"
check_log
echo ok
exit 0
