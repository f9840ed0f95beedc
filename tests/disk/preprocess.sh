#!/usr/bin/env bash
# preprocess.sh — preprocess{} in block mode writes its LMDB beside the
# JPEGs on the row's ext4 image. Raw Datums are larger than the JPEGs they
# come from (3 x 512^2 bytes each here), so an image sized for the input
# alone (2x it + 64 MiB) filled up: LMDB's writes came back short and the
# commit failed with "Input/output error". The image now leaves room for
# the output, and the row converts every image.
. "$(dirname "$0")/lib.sh"

command -v mkfs.ext4 >/dev/null || { echo "SKIP: mkfs.ext4 missing"; exit 77; }
export TIERSIM_WORKDIR=$TMPD/work
cat >"$TMPD/pre.lua" <<'X'
dataset{ kind = "imagenet-jpeg", count = 100 }
mount{ tier = "nvme-local", fs = "ext4", mem = "256MiB" }
preprocess{ resize = 512, txn = 50 }
X
"$TIERSIM" run "$TMPD/pre.lua" --json "$TMPD/r.json" --quiet >"$TMPD/out" 2>&1 ||
	fail "block-mode preprocess: $(head -1 "$TMPD/out")"
/usr/bin/python3 - "$TMPD/r.json" <<'P' || fail "block-mode preprocess row: $(cat "$TMPD/r.json")"
import json, sys
r = json.load(open(sys.argv[1]))["rows"][0]
assert not r.get("error"), r
assert "ext4 on a loop device over tierfs real, block mode" in r["parts"], r["parts"]
assert r["throughput"]["value"] > 0, r
print("converted: %s samples/s" % r["throughput"]["value"])
P
check_clean "block-mode preprocess"
ls "$TIERSIM_WORKDIR"/disk-* 2>/dev/null && fail "the row's image was left behind"
exit 0
