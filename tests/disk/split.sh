#!/usr/bin/env bash
# split.sh — the tier model charges the requests the loop device sends, no
# more. tierfs receives at most 1 MiB a request through FUSE
# (fs.fuse.max_pages_limit, libfuse's 256-page buffer), so a bigger request
# would reach the model as two. ssd-cloud's max_sectors_kb is Linux's 1280:
# the mount caps the queue at what tierfs receives and says so, and a cold
# buffered read in 4 MiB calls (readahead in large folios, requests of up
# to max_sectors_kb; 80 requests of 64 MiB at 1280 reached tierfs as 125)
# and O_DIRECT reads reach tierfs as exactly the loop device's reads.
. "$(dirname "$0")/lib.sh"

command -v mkfs.ext4 >/dev/null || { echo "SKIP: mkfs.ext4 missing"; exit 77; }
head -c $((32 << 20)) /dev/urandom >"$TMPD/data/big"
img=$TMPD/images/img.ext4
"$TIERSIM" disk make "$img" --size 128MiB --fs ext4 --from "$TMPD/data" || fail "make failed"
"$TIERSIM" disk mount "$img" "$MNT" --tier ssd-cloud 2>"$TMPD/err" ||
	fail "mount failed: $(cat "$TMPD/err")"
dev=$(sed -n 's/^loop=//p' "$TIERSIM_DISK_STATE"/*.state)
fuse=$(sed -n 's/^fuse=//p' "$TIERSIM_DISK_STATE"/*.state)
q=/sys/block/${dev#/dev/}
pk=$(($(getconf PAGESIZE) / 1024))
lim=$(cat /proc/sys/fs/fuse/max_pages_limit 2>/dev/null || echo 256)
[ "$lim" -gt 256 ] && lim=256
fk=$((lim * pk))
ms=$(cat "$q/queue/max_sectors_kb")
[ "$ms" -le "$fk" ] || fail "max_sectors_kb $ms: above the $fk KiB tierfs receives a request"
if [ "$(cat "$q/queue/max_hw_sectors_kb")" -gt "$fk" ]; then
	grep -q "max_sectors_kb $fk, not the tier's 1280" "$TMPD/err" ||
		fail "the mount did not say its queue deviates from the tier's: '$(cat "$TMPD/err")'"
fi
# Reads: the loop device's (completed requests, sectors) and tierfs's.
loop_reads() { read -r r _ s _ <"$q/stat"; echo "$r $((s * 512))"; }
fuse_reads() {
	/usr/bin/python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["ops"]["read"]; print(r["count"], r["bytes"])' \
		"$fuse/.tierfs/stats"
}
for how in buffered direct; do
	l0=$(loop_reads); f0=$(fuse_reads) || fail "cannot read tierfs's stats"
	if [ $how = buffered ]; then
		dd if="$MNT/big" of=/dev/null bs=4M 2>/dev/null || fail "buffered read failed"
	else
		dd if="$MNT/big" of=/dev/null bs=1280k iflag=direct 2>/dev/null || fail "direct read failed"
	fi
	l1=$(loop_reads); f1=$(fuse_reads) || fail "cannot read tierfs's stats"
	set -- $l0 $l1 $f0 $f1
	[ "$(($3 - $1)) $(($4 - $2))" = "$(($7 - $5)) $(($8 - $6))" ] ||
		fail "$how: the loop device sent $(($3 - $1)) reads ($(($4 - $2)) bytes), tierfs got $(($7 - $5)) ($(($8 - $6)) bytes)"
	[ $(($3 - $1)) -gt 0 ] || fail "$how: the read reached no device"
done
"$TIERSIM" disk umount "$MNT" || fail "umount failed"
check_clean "split"
exit 0
