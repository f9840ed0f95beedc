#!/usr/bin/env bash
# Cost in a scenario's report, in virtual time where figures are exact: an
# instance (--instance, or instance "NAME" in the script) sets the vCPUs,
# memory, GPUs and host of its profile and sizes a run on its local disk as
# one of its disks; each row carries dollars per hour (instance + volume of
# its tier at its capacity), per epoch, per 1,000 steps and the idle
# accelerator's share, with the band, in JSON and CSV; an unknown instance
# is a usage error naming it.
set -u
build=${TS_BUILD_ROOT:?run through meson test}
src=${TS_SOURCE_ROOT:?run through meson test}
tiersim=$build/cli/tiersim
work=$(mktemp -d /tmp/tiersim-cost.XXXXXX)
trap 'rm -rf "$work"' EXIT
export TIERSIM_WORKDIR=$work XDG_CACHE_HOME=$work/cache
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v python3 >/dev/null || { echo "no python3 to read the JSON"; exit 77; }

"$tiersim" compare "$src/scripts/tier_training.lua" --virtual --band --quiet \
	--tiers nvme-local,ultra-cloud --instance gn5-c4g1.xlarge count=20000 iterations=60 \
	--json "$work/c.json" --csv "$work/c.csv" >"$work/table" 2>"$work/err" ||
	fail "compare --instance: $(cat "$work/err")"
"$tiersim" prices >"$work/prices" || fail "prices"
python3 - "$work/c.json" <<'PY' || fail "costs"
import json, sys
rows = {r["tier"]: r for r in json.load(open(sys.argv[1]))["rows"]}
inst = 1 * 1.8 + 4 * 0.05                 # gn5-c4g1.xlarge's nominal hourly price
ultra = 0.35 / 6.75 * 500 / 730           # 500 GiB of 2017 ultra disk, per hour
for tier, vol, cap in (("nvme-local", 0.0, "440.00 GiB"), ("ultra-cloud", ultra, "500.00 GiB")):
    r = rows[tier]
    c = r["config"]
    assert c["pipeline.vcpus"] == "4" and c["engine.gpus"] == "1", c
    assert c["mount.mem"] == "30.00 GiB" and c["mount.capacity"] == cap, c
    hour = r["cost_per_hour"]["value"]
    assert abs(hour - (inst + vol)) < 1e-9, (tier, hour, inst + vol)
    sps = r["throughput"]["value"]
    ep = r["cost_per_epoch"]["value"]
    assert abs(ep - hour * 20000 / sps / 3600) < 1e-9 * ep, (tier, ep)
    ks = r["cost_per_1000_steps"]["value"]
    assert abs(ks - hour * 1000 * 64 / sps / 3600) < 1e-9 * ks, (tier, ks)
    idle = r["idle_cost_per_hour"]["value"]
    au = r["accelerator_utilization"]["value"]
    assert abs(idle - (1 - au / 100) * inst) < 1e-9, (tier, idle, au)
    b = r["cost_band"]
    assert b["instance"] == "gn5-c4g1.xlarge", b
    lo, hi = b["cost_per_epoch"]["low"], b["cost_per_epoch"]["high"]
    assert lo < ep < hi, (tier, lo, ep, hi)
    slow = r["band"]["throughput"]["low"]
    assert abs(hi - (2.8 + 4 * 0.07 + vol * (0.35 / 6.47) / (0.35 / 6.75)) * 20000 / slow / 3600) < 1e-9 * hi, (tier, hi)
# The slower disk costs more per epoch on the same instance.
assert rows["ultra-cloud"]["cost_per_epoch"]["value"] > rows["nvme-local"]["cost_per_epoch"]["value"]
PY
head -1 "$work/c.csv" | grep -q 'cost_per_epoch (USD),.*cost_per_epoch_low (USD),cost_per_epoch_high (USD)' ||
	fail "CSV: no cost columns: $(head -1 "$work/c.csv")"
grep -q '\$/epoch' "$work/table" && grep -q 'band \$/epoch' "$work/table" || fail "table: $(cat "$work/table")"

# The script's own instance "NAME": its shape, overridden by what follows.
cat >"$work/own.lua" <<'LUA'
instance "gn5-c8g1.4xlarge"
dataset{ kind = "imagenet-lmdb", count = 5000 }
mount{ tier = "ssd-cloud" }
pipeline{ source = "lmdb", shuffle = false, vcpus = 6 }
engine{ model = "googlenet", framework = "nvcaffe", mode = "train", batch = 32 }
run{ iterations = 20 }
LUA
"$tiersim" run "$work/own.lua" --virtual --quiet --json "$work/o.json" >/dev/null 2>"$work/err" ||
	fail "instance in a script: $(cat "$work/err")"
python3 - "$work/o.json" <<'PY' || fail "script instance"
import json, sys
r = json.load(open(sys.argv[1]))["rows"][0]
c = r["config"]
assert c["pipeline.vcpus"] == "6" and c["engine.gpus"] == "2" and c["engine.gpu"] == "P100-PCIe", c
assert c["mount.mem"] == "120.00 GiB", c
assert r["cost_band"]["instance"] == "gn5-c8g1.4xlarge", r["cost_band"]
PY
# No instance: nothing priced.
"$tiersim" run "$src/tests/cli/small.lua" --virtual --quiet --json "$work/n.json" >/dev/null 2>"$work/err" ||
	fail "no instance: $(cat "$work/err")"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["rows"][0]; assert r["cost_per_hour"]["value"] is None and "cost_band" not in r, r' "$work/n.json" ||
	fail "a run without an instance is priced"

# Bad input: an unknown instance, before anything runs.
"$tiersim" run "$src/scripts/main.lua" --virtual --instance p9.huge >"$work/out" 2>"$work/err"
rc=$?
[ $rc -eq 2 ] || fail "unknown --instance exits $rc"
[ "$(wc -l <"$work/err")" -eq 1 ] || fail "expected one line: $(cat "$work/err")"
grep -q "option --instance (instance.name): instance 'p9.huge' has no price profile (known: .*gn5-c8g1.2xlarge" \
	"$work/err" || fail "unknown instance: $(cat "$work/err")"
printf 'instance "p9.huge"\n' >"$work/bad.lua"
"$tiersim" run "$work/bad.lua" --virtual >/dev/null 2>"$work/err" && fail "an unknown instance in a script ran"
grep -q "bad.lua:1: instance: instance 'p9.huge' has no price profile" "$work/err" ||
	fail "unknown instance in a script: $(cat "$work/err")"
exit 0
