#!/bin/sh
# replay_ebs.sh — an instance's EBS limits travel in the trace header
# (version 5, model bit 0x80) and a virtual replay runs under them, exactly:
# 1,000 reads back to back on an aws-* tier of no latency and no caps
# (offsets 8 KiB apart, so no two merge into one I/O). Under a 1,000-IOPS
# instance limit the first 11 pass at 0 (the limiter's 10 ms tolerance)
# and read k at (k - 10) ms: the last, k = 999, at 989 ms. --instance
# replaces the recording's limits; a tier that is not aws-* ignores them.
. "${TS_SOURCE_ROOT:?}/tests/traces/lib.sh"

cat > "$T/flat.lua" <<'X'
tier "aws-flat" { desc = "test", source = "test" }
tier "flat" { desc = "test", source = "test" }
X
reads() { # reads HEADER: the header line, then 1,000 reads of 4 KiB
	echo "$1"
	echo 'path 1 "/f"'
	awk 'BEGIN { for (k = 0; k < 1000; k++)
		printf "%d %d read 1 %d 4096 4096 1 16777216 0 0\n", k * 1000, k * 1000 + 1000, k * 8192 }'
}
reads 'header version=5 model=128 ebs_iops=1000 ebs_max_iops=0 ebs_bps=0 ebs_max_bps=0 ebs_burst_s=0' \
	> "$T/e.txt"
check "undump v5 with EBS limits" "$B" trace undump "$T/e.txt" -o "$T/e.trace"
"$B" trace dump "$T/e.trace" > "$T/e2.txt"
check "dump keeps the EBS limits" grep -q ' model=128 ebs_iops=1000 ebs_max_iops=0 ebs_bps=0 ebs_max_bps=0 ebs_burst_s=0$' "$T/e2.txt"
"$B" trace undump "$T/e2.txt" -o "$T/e2.trace"
check "text round trip, byte for byte" cmp -s "$T/e.trace" "$T/e2.trace"

"$B" replay "$T/e.trace" --virtual --tier aws-flat --tier flat --profile "$T/flat.lua" \
	--json > "$T/e.json" 2> "$T/e.err"
check "recorded limits: 1,000 IOPS" test "$(j "$T/e.json" '.results[1].total_ns')" = 989000000
check "not an aws-* tier: no limits" test "$(j "$T/e.json" '.results[2].total_ns')" = 0
"$B" replay "$T/e.trace" --virtual --tier aws-flat --profile "$T/flat.lua" > "$T/e.out"
check "the table says whose limits" grep -q "EBS limits (the recording's) on the aws-\* tiers: 1000 IOPS" "$T/e.out"

# --instance t3.medium: 11,800 IOPS and 260.57 MB/s from a full bucket;
# read k admitted at k / 11,800 s - 10 ms, the last at 74,661,016.9 ns,
# and done when its 4,096 bytes have moved at 260.57 MB/s (15,719.4 ns
# more): 74,676,736.3, rounded up
"$B" replay "$T/e.trace" --virtual --tier aws-flat --profile "$T/flat.lua" --instance t3.medium \
	--json > "$T/i.json"
check "--instance overrides" test "$(j "$T/i.json" '.results[1].total_ns')" = 74676737
"$B" replay "$T/e.trace" --virtual --tier aws-flat --profile "$T/flat.lua" --instance nosuch \
	> /dev/null 2> "$T/bad.err"
check "--instance: unknown name is a usage error" test $? = 2
check "--instance: names the option" grep -q -- "--instance" "$T/bad.err"
# prices.lua lets an instance leave ebs out; --instance then has no limits
# to run under and says so, rather than dropping the trace's own
mkdir -p "$T/data/cost"
{ cat "$TS_SOURCE_ROOT/cost/prices.lua"; cat <<'X'
instance "noebs.test" {
	provider = "aws", region = "us-east-1", shape = "test", vcpus = 2, mem_gib = 4,
	hourly = { 1, "spec", "test", date = "2026-01" },
}
X
} > "$T/data/cost/prices.lua"
rc=0
TIERSIM_DATADIR="$T/data" "$B" replay "$T/e.trace" --virtual --tier aws-flat --profile "$T/flat.lua" \
	--instance noebs.test > /dev/null 2> "$T/noebs.err" || rc=$?
check "--instance without EBS limits: exit 2 (got $rc)" test "$rc" = 2
check "--instance without EBS limits: one line" test "$(wc -l < "$T/noebs.err")" = 1
check "--instance without EBS limits: says so" \
	grep -qF -- "--instance noebs.test: no EBS limits in its price entry" "$T/noebs.err"

# the same reads without limits (bit clear), and a version 4 header that
# claims them: refused, naming the field
reads 'header version=5' > "$T/n.txt"
"$B" trace undump "$T/n.txt" -o "$T/n.trace"
"$B" replay "$T/n.trace" --virtual --tier aws-flat --profile "$T/flat.lua" --json > "$T/n.json"
check "no limits recorded: none applied" test "$(j "$T/n.json" '.results[1].total_ns')" = 0
reads 'header version=4 model=128 ebs_iops=1000' > "$T/v4.txt"
check "v4 header with EBS limits refused" sh -c '! "$1" trace undump "$2" -o "$3" 2> "$4"' \
	- "$B" "$T/v4.txt" "$T/v4.trace" "$T/v4.err"
check "v4 refusal names the bit" grep -q "0x80" "$T/v4.err"
reads 'header version=5 ebs_iops=1000' > "$T/nobit.txt"
check "EBS field without its bit refused" sh -c '! "$1" trace undump "$2" -o "$3" 2> /dev/null' \
	- "$B" "$T/nobit.txt" "$T/nobit.trace"
# shellcheck disable=SC2154 # fail: set by lib.sh (check())
exit "$fail"
