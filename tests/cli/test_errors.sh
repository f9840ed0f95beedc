#!/usr/bin/env bash
# Bad input gets one line that names the file and line (or the option) and
# a non-zero exit: unknown tier, unknown key, Lua syntax error, unknown
# parameter, bad value. A bad name=value on the command line exits 2, a
# bad script 1. Nothing is left mounted.
. "$(dirname "$0")/lib.sh"

# expect STATUS PATTERN -- command...: the exit status and the first line.
expect() {
	local want=$1 pat=$2
	shift 3
	local out rc
	out=$("$@" 2>&1 >/dev/null)
	rc=$?
	[ "$rc" -eq "$want" ] || fail "'$*' exited $rc, expected $want: $out"
	printf '%s\n' "$out" | head -1 | grep -q -- "$pat" ||
		fail "'$*': first line does not match '$pat': $(printf '%s\n' "$out" | head -1)"
}

bad=$work/bad.lua
printf 'dataset{ kind = "imagenet-jpeg", count = 8 }\nmount{ teir = "ssd-cloud" }\nrun{}\n' >"$bad"
expect 1 "bad.lua:2: mount: unknown key 'teir'" -- "$tiersim" run "$bad" --quiet

printf 'dataset{ kind = "imagenet-jpeg", count = 8 }\nmount{ tier = "nosuch" }\nrun{}\n' >"$bad"
expect 1 "bad.lua:2: mount: unknown tier 'nosuch'" -- "$tiersim" run "$bad" --quiet

# ...but a tier from mount{ profile = FILE } is known to the run.
cat >"$work/tiers.lua" <<'EOF'
tier "mine" {
	capacity = { min = "1GiB", max = "1024GiB", default = "10GiB" },
	iops = 1000,
	mibps = 100,
	latency = { read = { fixed = "1ms" }, write = { fixed = "1ms" } },
}
EOF
printf 'dataset{ kind = "imagenet-jpeg", count = 8 }\nmount{ profile = "%s", tier = "mine" }\nengine{ batch = 8 }\nrun{ iterations = 1 }\n' \
	"$work/tiers.lua" >"$bad"
out=$("$tiersim" run "$bad" --virtual --quiet 2>&1) || fail "mount{profile=...} tier: $out"
printf '%s\n' "$out" | grep -q '^mine ' || fail "no row for the profile's tier: $out"

printf 'local x = 1\nrun{ iterations = \n' >"$bad"
expect 1 "bad.lua:3:" -- "$tiersim" run "$bad" --quiet

printf 'engine{ batch = "many" }\n' >"$bad"
expect 1 "bad.lua:1: engine: option 'batch'" -- "$tiersim" run "$bad" --quiet

printf 'sweep{ pipeline = { vcpus = { 1 } }, run = { iterashuns = 2 } }\n' >"$bad"
expect 1 "bad.lua:1: run: unknown key 'iterashuns'" -- "$tiersim" run "$bad" --quiet

expect 2 "no-such-tier" -- "$tiersim" compare "$here/small.lua" --tiers nvme-local,no-such-tier --quiet
expect 2 "unknown section 'bogus'" -- "$tiersim" run "$here/small.lua" bogus.key=1 --quiet
expect 2 "option 'batch'" -- "$tiersim" run "$here/small.lua" engine.batch=abc --quiet
expect 2 "unknown parameter 'nosuch'" -- "$tiersim" run "$here/small.lua" nosuch=1 --quiet
expect 2 "count=many: expected a number" -- "$tiersim" run "$here/small.lua" count=many --quiet
expect 1 "small.lua:.*no-such-tier" -- "$tiersim" run "$here/small.lua" tier=no-such-tier --quiet
printf 'run{}\n' >"$bad"
expect 2 "declares no parameters" -- "$tiersim" run "$bad" count=8 --quiet
expect 1 "cannot open" -- "$tiersim" run "$work/missing.lua" --quiet

check_clean "after bad input"
exit 0
