#!/usr/bin/env bash
# confine.sh — no request through the mount touches anything outside
# BACKING. Symlinks inside BACKING that point outside (absolute, or
# climbing with ..) are acted on as links, never followed by the daemon;
# and a directory the kernel has cached, swapped behind its back for such a
# symlink, leads every kind of request into EXDEV/ELOOP, not outside.
. "$(dirname "$0")/lib.sh"

OUT=$TMPD/outside
mkdir -p "$OUT/sub"
echo secret >"$OUT/secret"
chmod 600 "$OUT/secret"
touch -d @1500000000 "$OUT/secret"
snapshot() { (cd "$OUT" && find . -printf '%p %y %s %m %U %G %T@\n' | sort && cat secret); }
before=$(snapshot)

# Names and attributes stay cached in the kernel for a minute, so the swap
# below is not noticed by the kernel and the daemon sees the requests (with
# attributes uncached, default_permissions would refetch d's, see a symlink
# and have the kernel follow it as any symlink).
tfs_mount tier=unlimited,entry_timeout=60,attr_timeout=60

# 1. Links pointing out of BACKING: acted on as links.
ln -s "$OUT/secret" "$BACKING/abs"
ln -s ../outside/secret "$BACKING/rel"
[ "$(readlink "$MNT/abs")" = "$OUT/secret" ] || fail "readlink of an absolute link"
[ "$(readlink "$MNT/rel")" = ../outside/secret ] || fail "readlink of a relative link"
chown -h 4242:4242 "$MNT/abs" "$MNT/rel" || fail "lchown through the mount"
touch -h -d @1000000000 "$MNT/abs" "$MNT/rel" || fail "touch -h through the mount"
[ "$(stat -c %u "$BACKING/abs")" = 4242 ] || fail "lchown did not change the link"
rm "$MNT/abs" "$MNT/rel" || fail "unlink of links"
[ -e "$OUT/secret" ] || fail "unlinking a link removed its target"

# 2. Cached directories swapped for links out of BACKING.
for target in "$OUT" ../outside ../../../../../../../.."$OUT"; do
	mkdir "$MNT/d" && echo inside >"$MNT/d/secret" && ln -s x "$MNT/d/l" && mkdir "$MNT/d/sub" ||
		fail "setup through the mount"
	stat "$MNT/d/secret" "$MNT/d/l" "$MNT/d/sub" "$MNT/d/new" "$MNT/d/new2" >/dev/null 2>&1
	ls "$MNT/d" >/dev/null
	mv "$BACKING/d" "$BACKING/d.real"
	ln -s "$target" "$BACKING/d"
	cat "$MNT/d/secret" >/dev/null 2>&1 && fail "read of d/secret went through ($target)"
	echo x 2>/dev/null >"$MNT/d/new" && fail "create in d went through ($target)"
	echo x 2>/dev/null >>"$MNT/d/secret" && fail "append to d/secret went through ($target)"
	truncate -s 0 "$MNT/d/secret" 2>/dev/null && fail "truncate of d/secret went through ($target)"
	chmod 666 "$MNT/d/secret" 2>/dev/null && fail "chmod of d/secret went through ($target)"
	chown 4242 "$MNT/d/secret" 2>/dev/null && fail "chown of d/secret went through ($target)"
	touch -d @1000000000 "$MNT/d/secret" 2>/dev/null && fail "utimens of d/secret went through ($target)"
	rm -f "$MNT/d/secret" 2>/dev/null
	mkdir "$MNT/d/new2" 2>/dev/null && fail "mkdir in d went through ($target)"
	rmdir "$MNT/d/sub" 2>/dev/null && fail "rmdir in d went through ($target)"
	ln -s x "$MNT/d/new" 2>/dev/null && fail "symlink in d went through ($target)"
	readlink "$MNT/d/l" >/dev/null 2>&1 && fail "readlink in d went through ($target)"
	mv "$MNT/d/secret" "$MNT/moved" 2>/dev/null && fail "rename out of d went through ($target)"
	ln "$MNT/d/secret" "$MNT/hard" 2>/dev/null && fail "link out of d went through ($target)"
	ls "$MNT/d/" >/dev/null 2>&1
	[ "$before" = "$(snapshot)" ] || fail "something outside BACKING changed ($target)"
	rm "$BACKING/d"
	rm -rf "$BACKING/d.real"
	sleep 0 # the kernel's cached entries for d go stale; the next mkdir replaces them
	tfs_umount
	tfs_mount tier=unlimited,entry_timeout=60,attr_timeout=60
done

[ "$before" = "$(snapshot)" ] || fail "something outside BACKING changed"
tfs_umount
# EXDEV/ELOOP answers are expected here, not daemon errors.
check_log
exit 0
