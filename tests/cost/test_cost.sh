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
# advise in money: on a grid of instances, the point within the tolerance
# with the fewest dollars per epoch is named beside the resource order's,
# with its runner-up; --deadline picks the cheapest that finishes in time.
"$tiersim" advise "$src/scripts/main.lua" --instances gn5-c8g1.2xlarge,gn5-c4g1.xlarge \
	--tiers ultra-cloud,ssd-cloud,nvme-local --repeats 0 --quiet --deadline 5min \
	count=200000 val=20000 iterations=60 --json "$work/a.json" >"$work/advice" 2>"$work/err" ||
	fail "advise --instances: $(cat "$work/err")"
python3 - "$work/a.json" "$work/advice" <<'PY' || fail "advise in money"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
text = open(sys.argv[2]).read()
for wl in ("inference", "training"):
    rs = [r for r in rows if r["config"]["advise.workload"] == wl]
    assert len(rs) == 6, (wl, len(rs))
    best = max(r["throughput"]["value"] for r in rs)
    tol = float(rs[0]["config"]["advise.tolerance"].rstrip("%"))
    ok = [r for r in rs if r["throughput"]["value"] >= best * (1 - tol / 100)]
    per = lambda r: r["cost_per_hour"]["value"] / r["throughput"]["value"]
    cheapest = min(ok, key=per)
    marked = [r for r in rs if r["config"].get("advise.money") == "least per epoch within the tolerance"]
    assert marked == [cheapest], (wl, [m["label"] for m in marked], cheapest["label"])
    second = sorted(ok, key=per)[1]
    assert [r for r in rs if r["config"].get("advise.money") == "runner-up"] == [second], wl
    # 5 minutes: the cheapest of the points whose epoch takes at most that long.
    fit = [r for r in rs if r["cost_per_epoch"]["value"] / r["cost_per_hour"]["value"] <= 5 / 60]
    line = [l for l in text.splitlines() if l.startswith("  cheapest for 1 epoch(s) in")]
    if fit:
        f = min(fit, key=per)
        inst = f["cost_band"]["instance"]
        assert any(inst in l and f["tier"] in l for l in line), (wl, line, inst, f["tier"])
# The smaller instance with the local disk comes first in money; the
# resource order names its own choice with what it costs.
assert "in money: gn5-c4g1.xlarge (4 vCPU, 30 GiB), nvme-local costs least" in text, text
assert "least $" in text
PY
"$tiersim" advise "$src/scripts/main.lua" --instances gn5-c4g1.xlarge --tiers ultra-cloud \
	--repeats 0 --quiet --deadline 1s count=200000 val=20000 iterations=20 >"$work/advice" \
	2>"$work/err" || fail "advise --deadline 1s: $(cat "$work/err")"
grep -q "1 epoch(s) in 0.000278 h: no grid point does it" "$work/advice" ||
	fail "an unmeetable deadline: $(cat "$work/advice")"
"$tiersim" advise "$src/scripts/main.lua" --instances gn5-c4g1.xlarge --vcpus 2 \
	>/dev/null 2>"$work/err" && fail "--instances with --vcpus ran"
grep -q "instead of --vcpus" "$work/err" || fail "--instances --vcpus: $(cat "$work/err")"

# DLIO with prices: the cheapest volume that keeps N accelerators at the
# workload's AU threshold, the instance's price added, its local disk one
# of its disks; the answer is the cheapest of the volumes that pass.
"$tiersim" dlio resnet50_h100 --virtual --accelerators 4 --instance p4d.24xlarge \
	--cheapest aws-gp3,aws-io2,aws-gp3-16k ++workload.dataset.num_files_train=32 \
	>"$work/dlio" 2>"$work/err" || fail "dlio --cheapest: $(cat "$work/err")"
python3 - "$work/dlio" <<'PY' || fail "dlio --cheapest: $(cat "$work/dlio")"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
rows = {}
for l in lines:
    m = re.match(r"(\S+) +4 accelerators +AU +([\d.]+)% (>=|< ) 90% .*\$([\d.]+)/h", l)
    if m:
        rows[m.group(1)] = (float(m.group(2)), m.group(3) == ">=", float(m.group(4)), l)
assert set(rows) == {"aws-gp3", "aws-io2", "aws-gp3-16k"}, rows
for t, (au, ok, h, l) in rows.items():
    assert ok == (au >= 90), l
passing = [t for t, r in rows.items() if r[1]]
want = min(passing, key=lambda t: rows[t][2])
assert "<- cheapest that keeps it" in rows[want][3], (want, rows)
assert any(l.startswith("resnet50_h100: 4 accelerators keep AU >= 90% most cheaply on " + want) for l in lines)
# io2 provisions 64,000 IOPS at 500 GiB and costs more per hour than gp3 at 16,000.
assert rows["aws-io2"][2] > rows["aws-gp3-16k"][2] > rows["aws-gp3"][2]
PY
"$tiersim" dlio resnet50_h100 --virtual --cheapest aws-gp9 >/dev/null 2>"$work/err"
[ $? -eq 2 ] || fail "dlio --cheapest with an unknown tier"
grep -q "unknown tier 'aws-gp9'" "$work/err" || fail "unknown tier: $(cat "$work/err")"
"$tiersim" dlio resnet50_h100 --virtual --cheapest aws-gp3 --tier aws-gp3 >/dev/null 2>"$work/err"
[ $? -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ] || fail "--cheapest with --tier: $(cat "$work/err")"

# The worked example runs, every row priced.
"$tiersim" compare "$src/scripts/cost_resnet50.lua" --virtual --quiet --tiers nvme-local,aws-gp3 \
	count=20000 iterations=10 --json "$work/r.json" >/dev/null 2>"$work/err" ||
	fail "cost_resnet50.lua: $(cat "$work/err")"
python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert len(rows) == 2 and all(r["cost_per_epoch"]["value"] > 0 for r in rows), rows
assert all(r["config"]["engine.gpus"] == "8" for r in rows)' "$work/r.json" || fail "cost_resnet50 rows"
exit 0
