#!/usr/bin/env bash
# cache.sh — mount{ cache = ... } in block mode, done with the kernel's
# real cache, checked from the rows' device figures (tierfs's counters
# under the loop device), never from timings:
#   - a dataset that fits in the memory cgroup: "warm" (the job run once
#     untimed first) reads next to nothing from the device where "cold"
#     reads the dataset; "written" (the dataset copied in through the
#     mount, no sync) reads next to nothing, and the device's trace of that
#     row holds the copy's writeback (when the kernel's flusher writes it,
#     during the row or at the unmount that ends it, is its timing: not
#     asserted);
#   - a dataset larger than the cgroup: "warm" still reads from the device;
#   - preprocess{} with "warm" in block mode is refused in one line.
# Nothing is left mounted, attached, on disk or in a memory cgroup.
. "$(dirname "$0")/lib.sh"
export TIERSIM_WORKDIR=$TMPD/work
# the rows run in a 128 MiB memory cgroup: ASan's quarantine of freed
# memory (256 MiB by default) would fill it over the rows
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8

cat >"$TMPD/cache.lua" <<'EOF'
-- the three cache states in block mode, one row each
local p = params{ count = 256, mem = "128MiB", trace = "", tier = "ssd-cloud" }
report{ title = "block mode's cache states" }
dataset{ kind = "imagenet-jpeg", count = p.count }
pipeline{ vcpus = 1, qd = 4, prefetch = 2, decode = "none" }
engine{ model = "googlenet", gpu = "P100-PCIe", framework = "nvcaffe", mode = "infer",
        batch = 8 }
for _, c in ipairs{ "cold", "warm", "written" } do
  -- the written row's device requests traced, its writeback among them
  mount{ tier = p.tier, mem = p.mem, fs = "ext4", cache = c,
         trace = c == "written" and p.trace or "" }
  run{ epochs = 1, warmup = 0, label = c }
end
EOF

rows() { # JSON LABEL... -> "label read written" lines
	/usr/bin/python3 - "$@" <<'EOF'
import json, sys
rows = {r["label"]: r for r in json.load(open(sys.argv[1]))["rows"]}
for l in sys.argv[2:]:
    r = rows[l]
    assert not r.get("error"), r
    print(l, int(r["bytes_read"]["value"]), int(r["bytes_written"]["value"]))
EOF
}

# 1. 256 JPEGs (about 27 MB) in a 128 MiB cgroup
run1() { # ARGS...
	"$TIERSIM" run "$TMPD/cache.lua" "$@" --json "$TMPD/r.json" --quiet >"$TMPD/out" 2>&1 &
	pid=$!
	wait $pid || fail "block-mode cache rows ($*): $(tail -3 "$TMPD/out")"
	for f in /sys/fs/cgroup/memory/tiersim/scenario-$pid-* /sys/fs/cgroup/tiersim/scenario-$pid-*; do
		[ -e "$f" ] && fail "memory cgroup $f left behind"
	done
	check_clean "block-mode cache rows ($*)"
	ls "$TIERSIM_WORKDIR"/disk-* >/dev/null 2>&1 && fail "a row's image was left behind"
	return 0
}
run1 trace="$TMPD/written.trace"
ds=$(du -sb "$TIERSIM_WORKDIR"/data/datasets/imagenet-jpeg-256-s1 | cut -f1)
rows "$TMPD/r.json" cold warm written >"$TMPD/fit" || fail "rows: $(cat "$TMPD/r.json")"
cat "$TMPD/fit"
read -r _ cold_r _ < <(grep '^cold ' "$TMPD/fit")
read -r _ warm_r _ < <(grep '^warm ' "$TMPD/fit")
read -r _ wr_r wr_w < <(grep '^written ' "$TMPD/fit")
echo "dataset $ds bytes"
[ "$cold_r" -ge $((ds * 9 / 10)) ] || fail "cold read $cold_r bytes of a $ds-byte dataset"
[ "$warm_r" -le $((cold_r / 20)) ] || fail "warm read $warm_r bytes, cold $cold_r: not warm"
[ "$wr_r" -le $((cold_r / 20)) ] || fail "written read $wr_r bytes, cold $cold_r: not resident"
# the copy reached the device through the mount: its writeback traced
wb=$("$TIERSIM" trace dump "$TMPD/written.trace" | awk '$3 == "write" { n += $6 } END { print n + 0 }')
[ "$wb" -ge $((ds * 9 / 10)) ] || fail "written: the device took $wb bytes of writes (dataset $ds)"
echo "ok: fits: cold read $cold_r, warm $warm_r, written $wr_r (wrote back $wb, $wr_w of it during the row)"

# 2. 1024 JPEGs (about 110 MB) in a 48 MiB cgroup: warm still reads the device
run1 count=1024 mem=48MiB
rows "$TMPD/r.json" cold warm written >"$TMPD/big" || fail "rows: $(cat "$TMPD/r.json")"
cat "$TMPD/big"
read -r _ cold_r _ < <(grep '^cold ' "$TMPD/big")
read -r _ warm_r _ < <(grep '^warm ' "$TMPD/big")
read -r _ wr_r _ < <(grep '^written ' "$TMPD/big")
[ "$warm_r" -ge $((cold_r / 2)) ] || fail "warm read $warm_r bytes, cold $cold_r, dataset > mem"
[ "$wr_r" -ge $((cold_r / 2)) ] || fail "written read $wr_r bytes, cold $cold_r, dataset > mem"
echo "ok: does not fit: cold read $cold_r, warm $warm_r, written $wr_r"

# 3. a job that writes onto its disk cannot start warm
cat >"$TMPD/pre.lua" <<'EOF'
dataset{ kind = "imagenet-jpeg", count = 16 }
mount{ tier = "ssd-cloud", mem = "64MiB", fs = "ext4", cache = "warm" }
preprocess{ resize = 32 }
EOF
out=$("$TIERSIM" run "$TMPD/pre.lua" --quiet 2>&1 >/dev/null) && fail "preprocess with warm ran"
[ "$(printf '%s\n' "$out" | grep -c "preprocess: mount{ fs = 'ext4', cache = 'warm' }")" = 1 ] ||
	fail "preprocess warm: $out"
# the one line first (a script's error then shows where in it: the traceback)
case "$(printf '%s\n' "$out" | head -1)" in
*"preprocess: mount{ fs = 'ext4', cache = 'warm' }"*"use cache = 'cold' or 'written'") ;;
*) fail "preprocess warm: not one line first: $out" ;;
esac
echo "ok: $(printf '%s\n' "$out" | head -1)"
check_clean "refused preprocess"
exit 0
