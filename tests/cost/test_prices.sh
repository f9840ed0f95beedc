#!/usr/bin/env bash
# `tiersim prices` from the command line: every instance and volume of
# cost/prices.lua listed, every price labelled with its date and source (an
# assumed one with its range); bad input refused in one line naming the
# file, line and field, exit 1, nothing printed on stdout.
set -u
build=${TS_BUILD_ROOT:?run through meson test}
src=${TS_SOURCE_ROOT:?run through meson test}
tiersim=$build/cli/tiersim
work=$(mktemp -d /tmp/tiersim-prices.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$tiersim" prices >"$work/list" 2>"$work/err" || fail "prices exits $?: $(cat "$work/err")"
for n in $(sed -n 's/^ *instance "\([^"]*\)".*/\1/p; s/^ *volume "\([^"]*\)".*/\1/p; s/^gn5("\([^"]*\)".*/\1/p; s/^essd("\([^"]*\)".*/alibaba-essd-\1/p' \
	"$src/cost/prices.lua"); do
	grep -q "^$n " "$work/list" || fail "'tiersim prices' does not list $n"
done
grep -q '^aws-io2 .*aws-io2$' "$work/list" || fail "io2 is not mapped to its tier"
"$tiersim" prices --evidence >"$work/ev" || fail "prices --evidence"
awk 'NR > 1 && $3 != "spec" && $3 != "assumed" { print; bad = 1 }
     NR > 1 && $4 !~ /^[0-9][0-9][0-9][0-9](-[0-9][0-9])?(-[0-9][0-9])?$/ { print; bad = 1 }
     NR > 1 && $3 == "assumed" && $0 !~ /\[/ { print; bad = 1 } END { exit bad }' \
	"$work/ev" || fail "a price without its label or date, or an assumed one without its range"
grep -q '^gn5-c8g1.2xlarge *hourly *assumed *2017 ' "$work/ev" || fail "the study's instance is not priced"
grep -q '^aws-io2 *iops_month *spec .*0.0455 from 32000; 0.032 from 64000' "$work/ev" ||
	fail "io2's IOPS steps are not listed"

# Bad input: one line naming the file, line and field; nothing on stdout.
refused() { # FILE-TEXT EXPECTED
	printf '%b' "$1" >"$work/bad.lua"
	"$tiersim" prices --profile "$work/bad.lua" >"$work/out" 2>"$work/err"
	rc=$?
	[ $rc -eq 1 ] || fail "bad profile exits $rc: $(cat "$work/err")"
	[ ! -s "$work/out" ] || fail "bad profile printed a listing"
	[ "$(wc -l <"$work/err")" -eq 1 ] || fail "expected one line: $(cat "$work/err")"
	grep -qF "$2" "$work/err" || fail "want '$2': $(cat "$work/err")"
}
refused 'volume "v" { provider = "p", region = "r",\n  gib_month = { 0.1, "spec", date = "2026" } }\n' \
	"bad.lua:1: volume 'v': gib_month: missing its source"
refused '\ninstance "i" { provider = "p", region = "r", shape = "d", vcpus = 8, mem_gib = 1,\n  hourly = { 1, "spec", "list" } }\n' \
	"bad.lua:2: instance 'i': hourly: missing its date"
refused 'instance "i" { provider = "p", region = "r", shape = "d", vcpus = 8, mem_gib = "lots",\n  hourly = { 1, "spec", "l", date = "2026" } }\n' \
	"bad.lua:1: instance 'i': mem_gib is a string, not a number"
refused 'volume "v" { provider = "p", region = "r", tiers = { "gp9" },\n  gib_month = { 0.1, "spec", "l", date = "2026" } }\n' \
	"bad.lua:1: volume 'v': tiers: 'gp9' is not a tier profile"
"$tiersim" prices --profile "$work/none.lua" >/dev/null 2>"$work/err" && fail "a missing file loaded"
grep -q "none.lua" "$work/err" || fail "missing file: $(cat "$work/err")"
exit 0
