#!/usr/bin/env bash
# cli.sh — tierfs's command line: --help, --list-tiers, and every usage
# error answered with exactly one line naming the option or path, exit 1,
# and nothing mounted.
. "$(dirname "$0")/lib.sh"

"$TIERFS" --help | grep -q 'tier=NAME' || fail "--help does not show the usage"
"$TIERFS" --help | grep -q '^  mem ' || fail "--help does not list the model's options"
"$TIERFS" --list-tiers >"$TMPD/tiers" || fail "--list-tiers failed"
for t in nvme-local ssd-cloud ultra-cloud essd-pl0 essd-pl3 aws-gp2 aws-gp3 aws-io2 aws-st1 unlimited; do
	grep -q "^$t " "$TMPD/tiers" || fail "--list-tiers does not list $t"
done
"$TIERFS" --list-tiers --capacity 2TiB >"$TMPD/tiers2" || fail "--list-tiers --capacity failed"
cmp -s "$TMPD/tiers" "$TMPD/tiers2" && fail "--capacity 2TiB changed nothing in the table"

mkdir -p "$TMPD/empty"
expect_error "tier" -o capacity=1GiB "$BACKING" "$MNT"
expect_error "no-such-tier" -o tier=no-such-tier "$BACKING" "$MNT"
expect_error "capacity" -o tier=ssd-cloud,capacity=lots "$BACKING" "$MNT"
expect_error "mem" -o tier=ssd-cloud,mem=-5 "$BACKING" "$MNT"
expect_error "mem" -o tier=ssd-cloud,mem=4KiB "$BACKING" "$MNT"
# The least page-cache model, as --help states it.
expect_error "at least 128 KiB" -o tier=ssd-cloud,mem=127KiB "$BACKING" "$MNT"
expect_error "is not small, all or off" -o tier=ssd-cloud,mem=1GiB,kernel_cache=maybe "$BACKING" "$MNT"
# mem's entry: its line and the indented lines under it, up to the next option.
"$TIERFS" --help | awk '/^  mem /{on=1; print; next} on && /^  [a-z]/{on=0} on' |
	tr -s ' \n' ' ' | grep -q "at least 128 KiB" || fail "--help does not state mem's least value"
expect_error "option 'fault'" -o tier=ssd-cloud,fault=read:EIOX "$BACKING" "$MNT"
expect_error "option 'fault'" -o bare,fault=read:EIO "$BACKING" "$MNT"
expect_error "$TMPD/missing" -o tier=ssd-cloud "$TMPD/missing" "$MNT"
expect_error "not a directory" -o tier=ssd-cloud "$TMPD/tiers" "$MNT"
expect_error "$TMPD/nomnt" -o tier=ssd-cloud "$BACKING" "$TMPD/nomnt"
expect_error "BACKING and MOUNTPOINT" -o tier=ssd-cloud "$BACKING"
expect_error "must not contain" -o tier=ssd-cloud "$MNT" "$MNT"
expect_error "profile" -o tier=ssd-cloud,profile="$TMPD/missing.lua" "$BACKING" "$MNT"
expect_error "capacity" --list-tiers --capacity huge
expect_error "bogus" -o tier=ssd-cloud,bogus "$BACKING" "$MNT"
# Options as documented: a capacity outside the tier's range is refused
# (ssd-cloud's smallest disk is 20 GiB), not raised behind the user's back;
# --list-tiers shows the nearest size instead.
expect_error "capacity 1.00 GiB is outside" -o tier=ssd-cloud,capacity=1GiB "$BACKING" "$MNT"
"$TIERFS" --list-tiers --capacity 1GiB | grep -q '^ssd-cloud ' || fail "--list-tiers --capacity 1GiB dropped ssd-cloud"
"$TIERFS" --help | tr -s ' \n' ' ' | grep -q "outside the tier's range of disk sizes is refused" ||
	fail "--help does not say an out-of-range capacity is refused"
# A bare mount has no model: the model's options are refused, not ignored.
expect_error "option 'tier' needs a tier model" -o bare,tier=nosuch "$BACKING" "$MNT"
expect_error "option 'tier' needs a tier model" -o bare,tier=ssd-cloud "$BACKING" "$MNT"
expect_error "option 'mem' needs a tier model" -o bare,mem=1GiB "$BACKING" "$MNT"
expect_error "option 'trace' needs a tier model" -o bare,trace="$TMPD/t.trace" "$BACKING" "$MNT"
[ -e "$TMPD/t.trace" ] && fail "a refused bare,trace= mount wrote its trace"
expect_error "max_threads" -o tier=ssd-cloud,max_threads=0 "$BACKING" "$MNT"
exit 0
