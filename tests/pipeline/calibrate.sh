#!/bin/bash
# calibrate.sh — `tiersim calibrate decode`: writes a calibration the loader
# accepts, from a folder or from images it makes itself; says which on
# stdout; bad options exit 2, a missing folder exits 1, both with one line
# naming what is wrong; one measured under valgrind is refused, not written.
set -u
TIERSIM=${TS_BUILD_ROOT:?run through meson test}/cli/tiersim
"$TIERSIM" calibrate decode --help >/dev/null 2>&1 || { echo "SKIP: this tiersim has no calibrate decode"; exit 77; }
"$TIERSIM" dataset --help >/dev/null 2>&1 || { echo "SKIP: this tiersim has no dataset generator"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/ts_calib.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$TIERSIM" dataset make imagenet-jpeg --count 12 --out "$T/set" --quiet >/dev/null ||
	fail "tiersim dataset make"
out=$("$TIERSIM" calibrate decode --dir "$T/set/train" --count 12 --seconds 0 --out "$T/a.json") ||
	fail "calibrate decode --dir"
grep -q "12 distinct from $T/set/train" <<<"$out" || fail "output does not name the folder: $out"
grep -q "images/s/core" <<<"$out" || fail "no images/s/core: $out"
python3 - "$T/a.json" <<'PY' || fail "calibration file"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["version"] == "1", c
assert c["images"] == 12, c
assert c["base_ns"] >= 0 and c["ns_per_mpix"] >= 0 and c["base_ns"] + c["ns_per_mpix"] > 0, c
assert 0 < c["decode_ips"] and 0 < c["full_ips"] <= c["decode_ips"] * 1.5, c
assert c["xform_ns"] > 0, c
PY
out=$(TMPDIR=$T "$TIERSIM" calibrate decode --count 6 --seconds 0 --out "$T/b.json") ||
	fail "calibrate decode without --dir"
grep -q "made as imagenet-jpeg" <<<"$out" || fail "output does not say the images were made: $out"
[ -z "$(ls -d "$T"/tiersim-calibrate-* 2>/dev/null)" ] || fail "the temporary images were left behind"

"$TIERSIM" calibrate decode --bogus 1 2>"$T/err"
[ $? -eq 2 ] || fail "an unknown option must exit 2"
grep -q "unknown option '--bogus'" "$T/err" || fail "message: $(cat "$T/err")"
"$TIERSIM" calibrate decode --dir "$T/none" --out "$T/c.json" 2>"$T/err"
[ $? -eq 1 ] || fail "a missing folder must exit 1"
grep -q "$T/none" "$T/err" || fail "message: $(cat "$T/err")"
[ ! -e "$T/c.json" ] || fail "a failed run wrote a calibration"
# Under valgrind the measurement is many times too slow: it is refused, in
# one line naming the tool, and nothing is written.
# (Not a build with AddressSanitizer: valgrind cannot run one.)
if grep -q __asan_init "$TIERSIM"; then
	echo "note: an AddressSanitizer build; valgrind's refusal is checked by test_loader_modeled's map only"
elif command -v valgrind >/dev/null 2>&1; then
	valgrind -q "$TIERSIM" calibrate decode --dir "$T/set/train" --count 2 --seconds 0 \
		--out "$T/vg.json" >/dev/null 2>"$T/err"
	[ $? -eq 1 ] || fail "a calibration measured under valgrind must exit 1: $(cat "$T/err")"
	grep -q "measured under valgrind" "$T/err" || fail "message: $(cat "$T/err")"
	[ ! -e "$T/vg.json" ] || fail "a calibration measured under valgrind was written"
else
	echo "note: no valgrind here; its refusal is checked by test_loader_modeled's map only"
fi
echo "ok: calibrate decode"
