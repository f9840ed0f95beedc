#!/usr/bin/env bash
# fault.sh — injected faults through a real mount: the fault= mount option
# and the fault= control command make the matching op on the matching
# path or offset range fail with the chosen errno, in the application;
# other ops and files are served; a failed write leaves the file as it was;
# fault=clear restores normal service; a bad command changes nothing.
. "$(dirname "$0")/lib.sh"

# io OP FILE [OFFSET [LENGTH]]: one open + pread/pwrite through the mount;
# prints "ok" or the errno's name.
io() {
	python3 - "$@" <<'EOF'
import errno, os, sys
op, path = sys.argv[1], sys.argv[2]
off = int(sys.argv[3]) if len(sys.argv) > 3 else 0
n = int(sys.argv[4]) if len(sys.argv) > 4 else 4096
try:
    fd = os.open(path, os.O_RDONLY if op == "read" else os.O_WRONLY | os.O_CREAT)
    try:
        if op == "read":
            got = os.pread(fd, n, off)
        else:
            os.pwrite(fd, b"x" * n, off)
    finally:
        os.close(fd)
    print("ok")
except OSError as e:
    print(errno.errorcode[e.errno])
EOF
}
expect() { # WANT OP FILE [OFFSET [LENGTH]]
	local want=$1 got
	shift
	got=$(io "$@")
	[ "$got" = "$want" ] || fail "$* through the mount: $got, expected $want"
}

mkdir -p "$BACKING/d"
for f in bad.dat good.dat d/bad.dat d/other big; do
	head -c 65536 /dev/urandom >"$BACKING/$f"
done

# The mount option: reads of any file named bad.dat fail with EIO.
tfs_mount "tier=unlimited,seed=3,fault=read:EIO:path=bad.dat"
grep -qx 'fault=read:EIO:1:path=bad.dat' "$MNT/.tierfs/control" ||
	fail "control does not show the rule: $(grep ^fault= "$MNT/.tierfs/control")"
expect EIO read "$MNT/bad.dat"
expect EIO read "$MNT/d/bad.dat"
expect ok read "$MNT/good.dat"
cmp -s "$MNT/good.dat" "$BACKING/good.dat" || fail "good.dat reads back wrong"
cat "$MNT/bad.dat" >/dev/null 2>&1 && fail "cat of bad.dat succeeded"
expect ok write "$MNT/bad.dat"   # the rule is for reads only
[ "$(head -c 4096 "$BACKING/bad.dat")" = "$(printf 'x%.0s' $(seq 4096))" ] ||
	fail "the write to bad.dat did not reach the backing file"
[ "$(stat_get model.faults.rules)" = 1 ] || fail "model.faults.rules: $(stat_get model.faults.rules)"
injected=$(stat_get model.faults.injected)
[ "$injected" -ge 3 ] || fail "model.faults.injected is $injected, expected at least 3"
[ "$(stat_get ops.read.errors)" = "$injected" ] ||
	fail "tierfs counted $(stat_get ops.read.errors) read errors, the model injected $injected"

# fault=clear restores normal service.
echo fault=clear >"$MNT/.tierfs/control" || fail "fault=clear refused"
grep -qx 'fault=' "$MNT/.tierfs/control" || fail "rules left after fault=clear"
expect ok read "$MNT/bad.dat"
cmp -s "$MNT/d/bad.dat" "$BACKING/d/bad.dat" || fail "d/bad.dat reads back wrong after fault=clear"

# Control commands: a write fault on a path glob ('*' crosses '/'); the
# failed write leaves the backing file as it was.
echo "fault=write:ENOSPC:path=/d/*" >"$MNT/.tierfs/control" || fail "fault= refused"
expect ENOSPC write "$MNT/d/other"
expect ENOSPC write "$MNT/d/new"
[ -e "$BACKING/d/new" ] || fail "the create (not a write) should have been served"
[ "$(stat -c %s "$BACKING/d/new")" = 0 ] || fail "a failed write changed d/new"
cmp -s "$MNT/d/other" "$BACKING/d/other" || fail "d/other unreadable"
expect ok write "$MNT/good.dat"
expect ok read "$MNT/d/other"

# An offset range, added to the rules in force: only reads that touch
# [8k, 12k) of big fail.
echo "fault=read:EIO:path=big:off=8k-12k" >"$MNT/.tierfs/control" || fail "off= refused"
[ "$(grep -c ';' "$MNT/.tierfs/control")" = 1 ] || fail "control does not list both rules"
expect ok read "$MNT/big" 0 8192
expect EIO read "$MNT/big" 4096 8192
expect EIO read "$MNT/big" 11000 100
expect ok read "$MNT/big" 12288 4096

# Metadata: opens of matching names fail.
echo "fault=clear fault=meta:EACCES:path=good*" >"$MNT/.tierfs/control" || fail "meta rule refused"
expect EACCES read "$MNT/good.dat"
expect ok write "$MNT/d/other"
ls "$MNT" >/dev/null || fail "listing the root failed"

# A probability, seeded: some of 200 reads fail, not all, not none.
echo "fault=clear fault=read:EIO:0.25:path=big" >"$MNT/.tierfs/control" || fail "p rule refused"
n=$(python3 - "$MNT/big" <<'EOF'
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
bad = 0
for i in range(200):
    try:
        os.pread(fd, 512, (i * 512) % 65536)
    except OSError:
        bad += 1
print(bad)
EOF
)
[ "$n" -gt 20 ] && [ "$n" -lt 90 ] || fail "$n of 200 reads failed with p=0.25"

# A bad command fails the write and changes nothing, even the good part.
before=$(grep ^fault= "$MNT/.tierfs/control")
echo "fault=read:EIOX" 2>/dev/null >"$MNT/.tierfs/control" && fail "a bad errno was accepted"
case "$(stat_get control_error)" in *EIOX*) ;; *) fail "control_error: $(stat_get control_error)" ;; esac
echo "fault=clear tier=no-such-tier" 2>/dev/null >"$MNT/.tierfs/control" &&
	fail "a command with an unknown tier was accepted"
[ "$(grep ^fault= "$MNT/.tierfs/control")" = "$before" ] || fail "a refused command changed the rules"
[ "$(stat_get tier)" = unlimited ] || fail "a refused command changed the tier"
echo fault=clear >"$MNT/.tierfs/control" || fail "fault=clear refused"
expect ok read "$MNT/good.dat"
expect ok read "$MNT/big" 4096 8192
tfs_umount
check_log
exit 0
