#!/bin/bash
# tierfs.sh — the loader's delivery table (test_loader) through a tierfs
# mount: every source type, QD 1 and 64, 1 and 4 workers, bytes checked
# against what was written to the backing folder; then its skip and fatal
# error policies on a real EIO that the mount injects (test_eio). Skips
# (77) only when the tierfs daemon is not built; never leaves a mount or a
# daemon behind.
LOADER=${TS_BUILD_ROOT:?run through meson test}/tests/pipeline/test_loader
EIO=$TS_BUILD_ROOT/tests/pipeline/test_eio
if [ ! -x "$TS_BUILD_ROOT/fs/tierfs" ]; then
	echo "SKIP: tierfs is not built"
	exit 77
fi
# shellcheck source=../fs/lib.sh
. "${TS_SOURCE_ROOT:?}/tests/fs/lib.sh"

tfs_mount "tier=unlimited"
"$LOADER" "$BACKING" "$MNT" || fail "the loader through the mount"
# And through an emulated device, with its throttling in the path.
tfs_umount
tfs_mount "tier=nvme-local"
"$LOADER" "$BACKING" "$MNT" || fail "the loader through a nvme-local mount"
tfs_umount
# Every read of one file fails with EIO, through the mount.
tfs_mount "tier=unlimited,fault=read:EIO:path=s017.jpg"
"$EIO" "$BACKING" "$MNT" s017.jpg || fail "the loader's error policies on an injected EIO"
[ "$(stat_get model.faults.injected)" -ge 2 ] ||
	fail "the mount injected $(stat_get model.faults.injected) faults, expected at least 2"
tfs_umount
check_log
echo "ok: loader through tierfs (unlimited, nvme-local, injected EIO)"
