#!/usr/bin/env bash
# The program's surface: --help and --version, --help on every subcommand,
# exit status 2 for a bad command line; every option the manual page names
# is one some --help lists.
set -u
tiersim=${TS_BUILD_ROOT:?}/cli/tiersim
fail() { echo "FAIL: $*" >&2; exit 1; }

"$tiersim" --version | grep -q '^tiersim ' || fail "--version"
"$tiersim" --help >/dev/null || fail "--help"
for sub in $("$tiersim" --help | awk '/^subcommands:/{on=1; next} on && /^  [a-z]/{print $1}'); do
	"$tiersim" "$sub" --help >/dev/null 2>&1 || fail "$sub --help exits $?"
done
"$tiersim" no-such-command >/dev/null 2>&1
[ $? -eq 2 ] || fail "unknown subcommand should exit 2"
"$tiersim" >/dev/null 2>&1
[ $? -eq 2 ] || fail "no subcommand should exit 2"
"$tiersim" calibrate bogus >/dev/null 2>&1
[ $? -eq 2 ] || fail "calibrate bogus should exit 2"
"$tiersim" run >/dev/null 2>&1
[ $? -eq 2 ] || fail "run without a script should exit 2"
"$tiersim" compare x.lua >/dev/null 2>&1
[ $? -eq 2 ] || fail "compare without --tiers should exit 2"
"$tiersim" run x.lua --plot out.pdf >/dev/null 2>&1
[ $? -eq 2 ] || fail "--plot with a bad extension should exit 2"
"$tiersim" tiers | grep -q ssd-cloud || fail "tiers does not list ssd-cloud"
"$tiersim" tiers --capacity nonsense >/dev/null 2>&1
[ $? -eq 2 ] || fail "tiers --capacity nonsense should exit 2"
# The manual's options: each --name in cli/tiersim.1 is in the --help of the
# program, a subcommand or a subcommand's verb (trace dump, disk make...).
man=${TS_SOURCE_ROOT:?}/cli/tiersim.1
helps=$({
	"$tiersim" --help
	for sub in $("$tiersim" --help | awk '/^subcommands:/{on=1; next} on && /^  [a-z]/{print $1}'); do
		"$tiersim" "$sub" --help
		for verb in $("$tiersim" "$sub" --help 2>&1 | awk '/^  [a-z][a-z-]*  +[a-z]/{print $1}'); do
			"$tiersim" "$sub" "$verb" --help 2>/dev/null
		done
	done
} 2>&1 | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
[ -n "$helps" ] || fail "no option in any --help"
for opt in $(sed 's/\\-/-/g' "$man" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
	printf '%s\n' "$helps" | grep -qx -- "$opt" || fail "tiersim.1 names $opt, which no --help lists"
done
exit 0
