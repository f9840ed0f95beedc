#!/usr/bin/env bash
# queue.sh — the loop device ends with the tier's queue limits. Writing
# max_sectors_kb or rotational recomputes the readahead (the kernel raises
# it to max(read_ahead_kb, 2 x io_opt, 128 KiB)), so a read_ahead_kb
# written before them was lost: a tier asking for 32 KiB got 128. Each
# tier of the table is mounted and its queue read back.
. "$(dirname "$0")/lib.sh"

command -v mkfs.ext4 >/dev/null || { echo "SKIP: mkfs.ext4 missing"; exit 77; }
cat >"$TMPD/queue.lua" <<'X'
tier "ra32" { desc = "test", source = "test", latency = { read = { fixed = "50us" } },
	queue = { read_ahead_kb = 32, max_sectors_kb = 256 } }
tier "ra0" { desc = "test", source = "test", latency = { read = { fixed = "50us" } },
	queue = { read_ahead_kb = 0, max_sectors_kb = 512 } }
tier "ra4096" { desc = "test", source = "test", latency = { read = { fixed = "50us" } },
	queue = { read_ahead_kb = 4096, max_sectors_kb = 128, rotational = true } }
X
echo data >"$TMPD/data/f"
img=$TMPD/images/img.ext4
"$TIERSIM" disk make "$img" --size 64MiB --fs ext4 --from "$TMPD/data" || fail "make failed"
# tier read_ahead_kb max_sectors_kb rotational
while read -r tier ra ms rot; do
	"$TIERSIM" disk mount "$img" "$MNT" --tier "$tier" --profile "$TMPD/queue.lua" 2>"$TMPD/err" ||
		fail "$tier: mount failed: $(cat "$TMPD/err")"
	dev=$(sed -n 's/^loop=//p' "$TIERSIM_DISK_STATE"/*.state)
	q=/sys/block/${dev#/dev/}/queue
	got="$(cat "$q/read_ahead_kb") $(cat "$q/max_sectors_kb") $(cat "$q/rotational")"
	[ "$got" = "$ra $ms $rot" ] ||
		fail "$tier: queue read_ahead_kb, max_sectors_kb, rotational are '$got', the tier's '$ra $ms $rot'"
	[ "$(cat "$MNT/f")" = data ] || fail "$tier: cannot read the file back"
	"$TIERSIM" disk umount "$MNT" || fail "$tier: umount failed"
done <<'X'
ra32 32 256 0
ra0 0 512 0
ra4096 4096 128 1
X
check_clean "queue"
exit 0
