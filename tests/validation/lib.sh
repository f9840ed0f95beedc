# lib.sh — shared by the validation tests: the build's tiersim, a private
# work directory, a failure count, a case edited by a line of Python, and
# the check that a refused case is named by file, line and field.
set -u
build=${TS_BUILD_ROOT:?run through meson test}
src=${TS_SOURCE_ROOT:?run through meson test}
tiersim=$build/cli/tiersim
work=$(mktemp -d /tmp/tiersim-validate-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# edit_case SRC DST PYTHON: DST is the case SRC (as c) after PYTHON ran on it
# (DST may be SRC).
edit_case() {
	/usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(c, open(sys.argv[2], "w"), indent=2)
PY
}

# expect_refused DIR NAME LINE FIELD: `validate --cases DIR` exits 1 with a
# line "DIR/NAME.json:LINE: field 'FIELD'" (LINE an extended regex) and runs
# no case.
expect_refused() {
	local dir=$1 name=$2 line=$3 field=$4 out rc
	out=$("$tiersim" validate --cases "$dir" 2>&1)
	rc=$?
	[ $rc -eq 1 ] || fail "$name: exit $rc, expected 1"
	echo "$out" | grep -Eq "$dir/$name.json:$line: field '$field'" ||
		fail "$name: no 'file:$line: field '$field'' in: $out"
	if echo "$out" | grep -q "^case "; then
		fail "$name: cases ran despite a refused file"
	fi
}
