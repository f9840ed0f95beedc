#!/usr/bin/env bash
# preprocess.sh — preprocess{} in block mode writes its LMDB beside the
# JPEGs on the row's ext4 image. Raw Datums are larger than the JPEGs they
# come from (3 x 512^2 bytes each here), so an image sized for the input
# alone (2x it + 64 MiB) filled up: LMDB's writes came back short and the
# commit failed with "Input/output error". The image now leaves room for
# the output, and the row converts every image; so does a plain folder of
# the same images, whose images are counted as files of its tree.
. "$(dirname "$0")/lib.sh"

command -v mkfs.ext4 >/dev/null || { echo "SKIP: mkfs.ext4 missing"; exit 77; }
export TIERSIM_WORKDIR=$TMPD/work
# convert WHAT DATASET RESIZE: preprocess{} in block mode of DATASET (its
# dataset{} line) resized to RESIZE: every image converted, nothing left
convert() {
	cat >"$TMPD/pre.lua" <<X
$2
mount{ tier = "nvme-local", fs = "ext4", mem = "256MiB" }
preprocess{ resize = $3, txn = 50 }
X
	"$TIERSIM" run "$TMPD/pre.lua" --json "$TMPD/r.json" --quiet >"$TMPD/out" 2>&1 ||
		fail "$1: $(head -1 "$TMPD/out")"
	/usr/bin/python3 - "$TMPD/r.json" <<'P' || fail "$1 row: $(cat "$TMPD/r.json")"
import json, sys
r = json.load(open(sys.argv[1]))["rows"][0]
assert not r.get("error"), r
assert "ext4 on a loop device over tierfs real, block mode" in r["parts"], r["parts"]
assert r["throughput"]["value"] > 0, r
print("converted: %s samples/s" % r["throughput"]["value"])
P
	check_clean "$1"
	ls "$TIERSIM_WORKDIR"/disk-* 2>/dev/null && fail "$1: the row's image was left behind"
}
convert "block-mode preprocess" 'dataset{ kind = "imagenet-jpeg", count = 100 }' 512

# The same images as a plain folder (no dataset.json: the images are the
# files the walk that sizes the image counts), resized to 768: 1.7 MiB a
# Datum, more than the 64 MiB and twice the JPEGs the image has spare
# without room per image.
ds=$(ls -d "$TIERSIM_WORKDIR"/data/datasets/imagenet-jpeg-100-*/train 2>/dev/null | head -1)
[ -n "$ds" ] || fail "the generated dataset is not under $TIERSIM_WORKDIR/data/datasets"
cp -r "$ds" "$TMPD/plain"
convert "block-mode preprocess of a folder" "dataset{ dir = \"$TMPD/plain\", source = \"folder\" }" 768
exit 0
