#!/usr/bin/env bash
# owner.sh — with -o allow_other, a root daemon creates what another user
# creates as that user's (files, directories, symlinks, FIFOs), as a local
# file system would; root's own files stay root's.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
	echo "SKIP: needs root and setpriv to act as another user"
	exit 77
fi
chmod 755 "$TMPD"
chmod 777 "$BACKING"
tfs_mount tier=unlimited,allow_other
as_user() { setpriv --reuid=4321 --regid=4321 --clear-groups "$@"; }
as_user sh -c "echo hi > '$MNT/file' && mkdir '$MNT/dir' && ln -s file '$MNT/link' && mkfifo '$MNT/fifo'" ||
	fail "creating files as uid 4321 through the mount"
for n in file dir link fifo; do
	[ "$(stat -c %u:%g "$BACKING/$n")" = 4321:4321 ] || fail "$n is owned by $(stat -c %u:%g "$BACKING/$n")"
done
as_user sh -c "echo more >> '$MNT/file'" || fail "the owner cannot append to its file"
echo root >"$MNT/rootfile" || fail "create as root"
[ "$(stat -c %u "$BACKING/rootfile")" = 0 ] || fail "root's file is not root's"
# An existing file opened with O_CREAT keeps its owner.
as_user sh -c "echo x >> '$MNT/rootfile'" 2>/dev/null
[ "$(stat -c %u "$BACKING/rootfile")" = 0 ] || fail "O_CREAT on an existing file changed its owner"
tfs_umount
check_log
exit 0
