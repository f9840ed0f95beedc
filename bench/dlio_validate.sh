#!/usr/bin/env bash
# dlio_validate.sh — the MLPerf Storage workload cases of validation/cases
# (those whose config.workload has a "dlio" block) predicted in virtual
# time with `tiersim dlio`: at the published accelerator count (AU,
# samples/s, MiB/s) and with --find-max (the count), each against the
# published figure. A dataset larger than run_files is scaled down to it,
# the page cache with it (mem x run_files / files), so that the share of
# the dataset memory holds stays the run's.
# Usage: bench/dlio_validate.sh [TIERSIM] [CASE-GLOB]   (prints a table; --json per run in $OUT)
set -u
prog=${1:-build/cli/tiersim}
glob=${2:-mlperf-v10-*}
out=${OUT:-$(mktemp -d /tmp/dlio-validate-XXXXXX)}
/usr/bin/python3 - "$prog" "$out" validation/cases/$glob.json <<'PY'
import json, subprocess, sys, os, re
prog, out, files = sys.argv[1], sys.argv[2], sys.argv[3:]
def size(s):
    m = re.match(r'([0-9.]+)\s*([KMGT]?)i?B?$', s)
    return int(float(m.group(1)) * 1024 ** ' KMGT'.index(m.group(2) or ' '))
def run(dl, extra, tag):
    mem = size(dl['mem']) * dl['run_files'] // dl['files']
    ov = [o for o in dl['overrides'] if 'num_files_train' not in o]
    ov.append('++workload.dataset.num_files_train=%d' % dl['run_files'])
    js = os.path.join(out, tag + '.json')
    cmd = [prog, 'dlio', dl['workload']] + ov + ['--tier', dl['tier'], '--profile', dl['profile'],
           '--mem', str(mem), '--virtual', '--quiet', '--json', js] + extra
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return json.load(open(js))
rows = []
print('%-44s %5s %5s %7s %7s %9s %9s %7s %8s %8s %7s' % ('case', 'N', 'N*', 'AU', 'AU*', 'smp/s', 'smp/s*', 'err%',
      'MiB/s', 'MiB/s*', 'err%'))
for f in sorted(files):
    c = json.load(open(f))
    dl = c['config']['workload'].get('dlio')
    if not dl:
        continue
    n = c['config']['workload']['accelerators']
    fig = {x['metric']: x['value'] for x in c['figures']}
    at = run(dl, ['--accelerators', str(n)], c['id'] + '-at')['runs'][0]
    mx = run(dl, ['--find-max'], c['id'] + '-max').get('max_accelerators', 0)
    e1 = 100 * (at['samples_per_s'] - fig['throughput']) / fig['throughput']
    e2 = 100 * (at['mib_per_s'] - fig['read_bandwidth']) / fig['read_bandwidth']
    au = fig.get('au')
    print('%-44s %5d %5d %7s %6.1f%% %9.0f %9.0f %+7.1f %8.0f %8.0f %+7.1f' % (c['id'], n, mx,
          '%.1f%%' % au if au else '-', 100 * at['au'], fig['throughput'], at['samples_per_s'], e1,
          fig['read_bandwidth'], at['mib_per_s'], e2))
    rows.append((n, mx, e1, e2))
    sys.stdout.flush()
if rows:
    ae = sorted(abs(r[2]) for r in rows)
    print('rows %d; accelerator count exact in %d, within 15%% in %d; median |samples/s error| %.1f%%' % (
        len(rows), sum(r[0] == r[1] for r in rows), sum(abs(r[1] - r[0]) <= 0.15 * r[0] for r in rows),
        ae[len(ae) // 2]))
PY
