#!/usr/bin/env bash
# test_cli.sh — `tiersim dataset` from the command line: a small dataset of
# each kind made and read back with info; every bad argument gives exactly
# one line on stderr naming what is wrong, and exit status 2 (usage) or 1
# (runtime). Arguments: the tiersim program (and any words to put before
# "dataset").
set -u
prog=("$@")
tmp=$(mktemp -d /tmp/ts_dscli_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# expect STATUS PATTERN ARGS...: exit status, one stderr line matching PATTERN
expect() {
	local want=$1 pat=$2
	shift 2
	"${prog[@]}" dataset "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$? lines
	lines=$(wc -l <"$tmp/err")
	if [ "$rc" -ne "$want" ]; then
		fail "dataset $*: exit $rc, expected $want"
	elif [ "$want" -ne 0 ] && [ "$lines" -ne 1 ]; then
		fail "dataset $*: $lines lines on stderr, expected 1:"; cat "$tmp/err" >&2
	elif [ -n "$pat" ] && ! grep -q -- "$pat" "$tmp/err"; then
		fail "dataset $*: stderr lacks '$pat':"; cat "$tmp/err" >&2
	fi
}

expect 0 "" --help
grep -q "imagenet-lmdb" "$tmp/out" || fail "--help lists no kinds"
expect 2 "needs a KIND" make --out "$tmp/x"
expect 2 "unknown kind 'imagenet-png'" make imagenet-png --out "$tmp/x"
expect 2 "needs --out" make imagenet-jpeg --count 3
expect 2 "count" make imagenet-jpeg --count abc --out "$tmp/x"
expect 2 "unknown option '--cuont'" make imagenet-jpeg --cuont 3 --out "$tmp/x"
expect 2 "count" make imagenet-jpeg --count --out "$tmp/x"
expect 2 "--val is for imagenet-jpeg" make imagenet-rec --count 3 --val 2 --out "$tmp/x"
expect 2 "unknown action 'build'" build imagenet-jpeg
expect 2 "neither a kind" info /nonexistent/dir
[ -e "$tmp/x" ] && fail "a refused make left $tmp/x behind"

# a small dataset of each kind, read back
expect 0 "" make imagenet-jpeg --count 6 --classes 2 --out "$tmp/jpeg" --quiet --seed 3
grep -q "6 images" "$tmp/out" || fail "make imagenet-jpeg: no summary line"
[ "$(find "$tmp/jpeg/train" -name '*.JPEG' | wc -l)" -eq 6 ] || fail "not 6 JPEG files"
expect 0 "" info "$tmp/jpeg"
grep -q "on disk" "$tmp/out" || fail "info DIR does not say it read the disk"
# the text form: a made dataset lists as its description does
"${prog[@]}" dataset list "$tmp/jpeg" >"$tmp/l1" 2>&1 || fail "list DIR failed"
"${prog[@]}" dataset list imagenet-jpeg --count 6 --classes 2 --seed 3 >"$tmp/l2" 2>&1 ||
	fail "list KIND failed"
cmp -s "$tmp/l1" "$tmp/l2" || fail "list DIR and list KIND differ"
[ "$(grep -c JPEG "$tmp/l1")" -eq 6 ] || fail "list: not 6 lines"
expect 0 "" make ptb-text --count 3000 --out "$tmp/ptb" --quiet
expect 0 "" info "$tmp/ptb"
grep -q "3000 words" "$tmp/out" || fail "info ptb: no word count"
expect 0 "" make imagenet-rec --count 3 --out "$tmp/rec" --quiet
expect 0 "" make imagenet-lmdb --count 3 --encoded --out "$tmp/lmdb" --quiet
expect 0 "" info "$tmp/lmdb"
expect 0 "" info imagenet-jpeg --count 2000
grep -q "2000 train" "$tmp/out" || fail "info KIND: no count"
expect 0 "" verify "$tmp/lmdb"
expect 0 "" verify "$tmp/ptb"
: >"$tmp/ptb/ptb.valid.txt"
expect 1 "ptb.valid.txt: 0 bytes" verify "$tmp/ptb"

# runtime failures: exit 1, one line naming the directory
expect 1 "$tmp/jpeg is not empty" make imagenet-jpeg --count 3 --out "$tmp/jpeg" --quiet
echo '{"format": "tiersim-dataset", "version": 1, "kind": "imagenet-jpeg", "count": 6, "seed": 3, "val": 0, "classes": 2, "total_bytes": 5}' >"$tmp/jpeg/dataset.json"
expect 1 "dataset.json: total_bytes 5 differs" info "$tmp/jpeg"
echo '{ broken' >"$tmp/jpeg/dataset.json"
# an npz dataset of an older tiersim (its manifest without "layout": the
# files before numpy's zip64 field) is refused, not read with this one's offsets
expect 0 "" make npz --count 2 --out "$tmp/npz" --quiet
expect 0 "" info "$tmp/npz"
grep -v '"layout"' "$tmp/npz/dataset.json" >"$tmp/old.json" && mv "$tmp/old.json" "$tmp/npz/dataset.json"
expect 1 "dataset.json: a npz dataset of an older tiersim (its \"layout\" is not 2: numpy's zip64 extra field in each member); regenerate the dataset" info "$tmp/npz"
expect 1 "dataset.json:1" info "$tmp/jpeg"

# Ctrl-C: exit 130, one line saying the directory is incomplete, no manifest
"${prog[@]}" dataset make imagenet-jpeg --count 5000 --out "$tmp/int" --quiet 2>"$tmp/err" &
pid=$!
# the handler is in place once the output directory exists
for _ in $(seq 100); do [ -d "$tmp/int/train" ] && break; sleep 0.1; done
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ] || fail "interrupted make: exit $rc, expected 130"
grep -q "interrupted after" "$tmp/err" || { fail "interrupted make: no message"; cat "$tmp/err" >&2; }
[ -e "$tmp/int/dataset.json" ] && fail "interrupted make wrote dataset.json"

[ "$fails" -eq 0 ] && echo "all passed"
exit $((fails > 0))
