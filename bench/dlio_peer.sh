#!/usr/bin/env bash
# dlio_peer.sh — the real DLIO benchmark 2.0.0 against `tiersim dlio`, real
# and virtual, on the same tiers: for each row (workload, ranks, tier) the
# real DLIO reads a dataset its own generator made through a tierfs mount
# (mem=0, traced), `mpirun -np RANKS tiersim dlio` reads tiersim's dataset of
# the same workload through the same kind of mount (traced), and `tiersim dlio
# --virtual --accelerators RANKS` predicts it. Prints AU and samples/s side by
# side and, from both traces, the requests per sample (opens, reads,
# getattrs, mean read size) and the read latency's median. Each row runs
# --runs times (default 3), its sides in an order rotated from run to run
# (DLIO first in the first run, tiersim in the second, ...), a line each;
# then a line of tiersim's samples/s over DLIO's, real and virtual, taken
# within each run: the median and (min..max) over the runs.
#
# Usage: bench/dlio_peer.sh [--venv DIR] [--tiersim BUILD] [--before BUILD]
#                           [--work DIR] [--rows ROW,ROW...] [--runs N]
#                           [--chrt PRIO] [--host NAME] [--measure-host]
#                           [--measure-repeats N] [--measure-tier T]
#                           [--measure-around] [--probe-repeats N]
#                           [--measured DIR] [--track] [--track-period S]
#                           [--track-cost]
#                           [--virtual-only] [--first-run K]
#                           [--no-trace-figures] [--cpu-split] [--offcpu]
#                           [--wake]
#                           [--no-warm]
#        bench/dlio_peer.sh --reference DIR [--reference DIR...]
#                           [--run-numbers LIST] [--rows ...] [--tiersim BUILD]
#                           [--host NAME]
#   --venv DIR   a virtual environment with dlio_benchmark (env DLIO_VENV); when
#                neither is given, WORK/dlio-venv, installed there from
#                ../shared/peers/dlio/install.sh (beside the repository) if missing
#                (the install needs root, Debian 12 and python3-packaging)
#   --tiersim    the build directory (default build)
#   --before B   also another build's tiersim (an earlier version), real and
#                virtual, in columns of its own beside the same DLIO run
#   --work DIR   datasets, mounts and outputs (default /tmp/tiersim-dlio-peer)
#   --rows       names from the table below (default: all)
#   --runs N     runs of each (default 3)
#   --first-run K  number the runs from K (default 1): the sides' order and
#                the output folders follow the number, so runs split over
#                several calls (--first-run 1, 2, 3 with --runs 1) rotate the
#                sides as one call's runs would and keep each other's outputs
#   --host NAME  a host profile (tiersim hosts) both tiersim sides charge
#                DLIO's own CPU from (`tiersim dlio --host`); `--host none`
#                charges none. Default: this machine's own profile as
#                `tiersim hosts --this` of --tiersim's build names it (a
#                host whose cpu line says "(KVM guest; family F model M" and
#                "N vCPUs", its vendor word (AMD, Intel), F and M
#                /proc/cpuinfo's vendor_id, cpu family and model, N the
#                CPUs the process may use, and which measures DLIO's CPU
#                (dlio_sample_ns); of several, the last in the file (the
#                newest)). None matching: the call says so on its first
#                line and charges none
#   --before-host NAME  the host profile the --before build charges
#                (default: the one of --host or --measure-host)
#   --before-host-file FILE  the file the --before build reads "this-machine"
#                from (its TIERSIM_HOST_FILE; default the same as the build's):
#                with --before BUILD the same build, a profile without some
#                of its lines compares the model with and without them
#   --measure-host  once, before the call's first row, `tiersim hosts
#                measure` (--measure-repeats rounds, default 1, about a minute
#                each; on --measure-tier, default the first row's tier; with
#                --chrt, under it too) writes this machine's DLIO costs to
#                WORK/out/measure-K/this-machine.lua (K: the first run's
#                number), and both tiersim sides of every run of the call
#                charge them (--host this-machine): the CPU DLIO spends per
#                sample moves with the host (1.2-1.6x between two days here)
#                while a profile's charges are fixed, so each call's runs are
#                held against a measurement in the same hold. With --host NAME
#                as well, the measurement is carried from NAME (hosts measure
#                --from NAME): what it does not measure is NAME's:
#                dlio_request_wait_ns over the speed measured against NAME's
#                npz line, dlio_run_request_ns as it is. The call's head names the file and
#                its figures; each run's line is followed by the host each
#                tiersim side charged, as its JSON says (host_costs)
#   --measure-around  --measure-host, and around each run's real sides a
#                probe (`tiersim hosts measure --probe SET`, --probe-repeats
#                rounds, default 1, 10-20 s a round: the row's own set, npz-s
#                for r50, npz-l for u64 and u168, jpeg, hdf5-s, png-s; DLIO's
#                own work per sample, on the row's tier, with --chrt under it
#                too): before and after DLIO's side. The
#                sides run DLIO first in every run (not rotated), so that
#                both tiersim sides, which predict DLIO's run, charge the
#                host as it was while DLIO ran: the hold's measurement with
#                every figure of DLIO's and the chain's CPU (not the vCPUs,
#                the copy, the collection's sample, the workers' spread, the
#                carried daemon per request) times F = the mean of the
#                probes just before and after DLIO's side over the base,
#                the probe of the set just after the measurement (the
#                call's first probe; the measurement reads each set in a
#                process of its own as a probe does, so the level charged
#                and the base F is over are the same reading: until
#                2026-12-06 it read them one after another in one process,
#                and its hdf5 and jpeg figures were 1.2-1.3x a probe's), and its speed over F (the carried wait per request
#                times F), written to OUT/this-machine.lua; each run's line is
#                followed by the probes and F. tiersim's real side's own
#                system calls and daemon run at the speed of its own time
#                (not probed: a probe is 20-30 s of a 4-minute hold); its
#                charges are CPU time, spent as such on any day
#   --measured DIR  --measure-around without the hold's measurement: an
#                earlier call's (its WORK/out/measure-K, this-machine.lua,
#                measure.log and the base probe of the row's set and tier),
#                which the probes then scale to each run's host
#   --track      with --measure-around or --measured: the host's speed
#                tracked through the call by a fixed work at low duty
#                (`VENV/bin/python workloads/dlio_measure.py track`: each
#                --track-period S seconds, default 1, six files of each of
#                npz-s, jpeg, hdf5-s and png-s read from the page cache as
#                DLIO's readers read a sample, the reading thread's CPU for
#                each set; about 30 ms a tick here, 3% of one core), which
#                runs through the measurement, the probes, DLIO's side and
#                tiersim's real side alike; both tiersim sides charge the
#                measurement times F = the tracker's CPU per set in the
#                seconds DLIO's readers read (with --cpu-split: from its
#                samples, bench/dlio_track.py span; else DLIO's whole side)
#                over its CPU per set in the seconds the measurement ran
#                (the base; with --measured, the ticks kept in
#                DIR/track-base.txt), each a mean of the set's ticks
#                without the highest and lowest fifth, the mean over the
#                four sets,
#                instead of the probes' F, which each run's line still
#                prints (the probes still run, the tracker's F in their
#                seconds too, and in tiersim's real side's); a probe's base
#                that --measured DIR lacks is the call's first probe
#   --track-cost  the tracker's own cost on DLIO: each run runs DLIO's side
#                twice, the tracker stopped (SIGSTOP) in one and running in
#                the other (in an order rotated from run to run), and no
#                tiersim side, no measurement, no probe; a line a run and
#                the samples/s with over without, median (min..max)
#   --virtual-only  tiersim in virtual time only (its real column and its
#                trace's figures "-"): a change that moves virtual time alone
#                is held against the real DLIO in half the time
#   --no-trace-figures  the columns read from the traces ("-"): the
#                traces stay in WORK/out/ROW-RUN/ for later, and the hold is
#                spent on the runs alone (the figures take 10-20 s a trace)
#   --cpu-split  while each real side runs, sample every 0.2 s the CPU
#                (schedstat run time) of every thread of it (the launcher, the
#                rank's main thread and its other threads, the DataLoader
#                workers or the loader's threads) and of its tierfs daemon,
#                and the host's idle time (/proc/stat) into OUT/SIDE.cpu.json;
#                a line per side follows the row's: each group's CPU per
#                sample read (us), in the epochs and in all the run, the
#                host's idle and stolen cores while the epochs ran, and in the
#                ticks where the readers held a core or more the host's idle
#                cores and the readers' and daemon's
#   --no-warm    do not read each real side's backing files (its dataset
#                under WORK) into the host's page cache before it runs; each
#                run's line is followed by the share of them cached before each
#                side and after the run, warmed or not (fincore)
#   --offcpu     --cpu-split, and beside each real side the host's scheduler
#                switches and wake-ups with the kernel's call chain of each
#                switch (perf record -e sched:sched_switch,sched:sched_wakeup
#                -a; root or perf_event_paranoid <= 1) into OUT/SIDE.perf.data:
#                bench/dlio_offcpu.py OUT/SIDE.cpu.json OUT/SIDE.perf.data then
#                says where the side's threads slept and what the host's idle
#                cores waited on (after the hold: it takes a minute a side)
#   --wake       --cpu-split, and beside each real side the host's scheduler
#                switches and wake-ups (sched_switch, sched_wakeup, every CPU)
#                in a tracefs instance of its own (/sys/kernel/tracing, 64 MiB
#                a CPU, the mono clock) into OUT/SIDE.sched: bench/dlio_wake.py
#                OUT/SIDE.cpu.json OUT/SIDE.sched then gives each wake-up of
#                the side's readers to its switch onto a CPU, and whether a
#                CPU was idle then (root)
#   --reference DIR  no runs: the real DLIO's runs already kept under each
#                DIR (WORK/out of earlier calls, or any folder of ROW-RUN
#                folders), several per row taken in different holds, combined
#                into one reference per row: the median [min-max] of their AU
#                and samples/s (bench/dlio_peer_ref.py); beside it tiersim
#                virtual of --tiersim (--host as in a run) and its error
#                against the median and against each run, and the rows whose
#                runs lie farther from their median than the goal (3 AU
#                points, 5% samples/s): DLIO on this shared host moves between
#                hours by more than the goal, so one run per hour cannot judge
#                a row. --run-numbers LIST (N,N-M,...) keeps those runs only
#   --chrt PRIO  run both real sides (each tierfs daemon, the real DLIO's
#                mpirun and `mpirun tiersim dlio`) under chrt -f PRIO
#                (SCHED_FIFO, env TS_CHRT as bench/pytorch_replay.sh's), ahead
#                of the host's other work, so that neither waits for a core
#                someone else holds; the policy is inherited by mpirun's ranks
#                and their DataLoader workers, and each row prints how many of
#                the run's threads held it (sampled once a second)
# Rows: NAME WORKLOAD RANKS TIER. The datasets (DLIO overrides, the same for
# tiersim):
#   u64   unet3d_h100, 64 npz files of 8 MiB, batch 7, 4 read threads, 0.323 s
#   u168  the same with 168 files
#   r50   resnet50_h100 as PyTorch: 4,000 npz files of 112 KiB, batch 400,
#         8 read threads, 0.224 s
#   j50   the same as jpeg files (DLIO's ImageReader: Pillow)
#   h50   the same as hdf5 files of one record each (DLIO's HDF5Reader: h5py)
#   p50   the same as png files (DLIO's ImageReader: Pillow)
# all 3 epochs (--epochs N to change).
# No checkpoints, no evaluation. Each row prints `uptime`'s load, DLIO's
# own CPU (user + sys of mpirun and everything it waited for: the ranks and
# their DataLoader workers) as seconds and as cores busy over the run
# (CPU / wall), and, from each trace's cpu records (the kernel's schedstat
# of every thread that made a request), how long those threads waited for
# a CPU while runnable, as a share of the traced span per thread: the host
# is shared, and a reader that waits for a CPU is not reading. Last, per
# sample (an open to its close), the time in requests and the time between
# them (the reader's own work and its waits for a CPU), in ms, the
# requesting threads' own CPU per sample (schedstat run time), in us, and
# what a reading thread waits per charged request (open, read) beyond the
# request's span and its CPU where 1 or 2 threads read (bench/dlio_waits.py:
# the host's wake-ups, dlio_request_wait_ns), in us.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$here/lib.sh"
venv=${DLIO_VENV:-}
build=build
work=/tmp/tiersim-dlio-peer
rows=""
runs=3
first=1
before=""
epochs=3
prio=${TS_CHRT:-}
host=()
hostset=""
measure=""
around=""
measured=""
preps=1
mreps=1
mtier=""
bhost=""
bfile=""
vonly=""
nofig=""
split=""
offcpu=""
wake=""
nowarm=""
track=""
tperiod=1
tcost=""
refs=()
rnums=""
while [ $# -gt 0 ]; do
	case $1 in
	--venv) venv=$2; shift 2 ;;
	--tiersim) build=$2; shift 2 ;;
	--work) work=$2; shift 2 ;;
	--rows) rows=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--first-run)
		[[ $2 =~ ^[1-9][0-9]*$ ]] || { echo "dlio_peer.sh: --first-run '$2': not a run number (1, 2, ...)" >&2; exit 2; }
		first=$2; shift 2 ;;
	--before) before=$(cd "$2" && pwd) || exit 2; shift 2 ;;
	--epochs) epochs=$2; shift 2 ;;
	--chrt) prio=$2; shift 2 ;;
	--host) host=(--host "$2"); hostset=1; shift 2 ;;
	--before-host) bhost=$2; shift 2 ;;
	--before-host-file)
		# an assignment of two substitutions has the last one's status:
		# the file is checked first, its folder made absolute alone
		[ -f "$2" ] || { echo "dlio_peer.sh: --before-host-file: no file '$2'" >&2; exit 2; }
		bfile=$(cd "$(dirname "$2")" && pwd) || exit 2
		bfile=$bfile/$(basename "$2"); shift 2 ;;
	--measure-host) measure=1; shift ;;
	--measure-around) measure=1; around=1; shift ;;
	--measured)
		[ -s "$2/this-machine.lua" ] && [ -s "$2/measure.log" ] ||
			{ echo "dlio_peer.sh: --measured $2: no this-machine.lua and measure.log of --measure-around there" >&2; exit 2; }
		measured=$(cd "$2" && pwd); measure=1; around=1; shift 2 ;;
	--probe-repeats)
		[[ $2 =~ ^[1-9][0-9]*$ ]] || { echo "dlio_peer.sh: --probe-repeats '$2': not a count (1, 2, ...)" >&2; exit 2; }
		preps=$2; shift 2 ;;
	--measure-repeats)
		[[ $2 =~ ^[1-9][0-9]*$ ]] || { echo "dlio_peer.sh: --measure-repeats '$2': not a count (1, 2, ...)" >&2; exit 2; }
		mreps=$2; shift 2 ;;
	--measure-tier) mtier=$2; shift 2 ;;
	--track) track=1; shift ;;
	--track-period)
		[[ $2 =~ ^[0-9]+(\.[0-9]+)?$ ]] && awk -v p="$2" 'BEGIN { exit !(p >= 0.05 && p <= 60) }' ||
			{ echo "dlio_peer.sh: --track-period '$2': not seconds from 0.05 to 60" >&2; exit 2; }
		tperiod=$2; shift 2 ;;
	--track-cost) tcost=1; shift ;;
	--virtual-only) vonly=1; shift ;;
	--no-trace-figures) nofig=1; shift ;;
	--cpu-split) split=1; shift ;;
	--offcpu) split=1; offcpu=1; shift ;;
	--wake) split=1; wake=1; shift ;;
	--no-warm) nowarm=1; shift ;;
	--reference)
		[ -d "$2" ] || { echo "dlio_peer.sh: --reference: no folder '$2'" >&2; exit 2; }
		refs+=("$2"); shift 2 ;;
	--run-numbers)
		[[ $2 =~ ^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$ ]] ||
			{ echo "dlio_peer.sh: --run-numbers '$2': not N or N-M, comma-separated" >&2; exit 2; }
		rnums=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//;$d'; exit 0 ;;
	*) echo "dlio_peer.sh: unknown option '$1' (--help)" >&2; exit 2 ;;
	esac
done
if [ -n "$track" ] && [ -z "$around" ]; then
	echo "dlio_peer.sh: --track: needs --measure-around or --measured (the measurement it scales)" >&2; exit 2
fi
[ -z "$track" ] || [ -z "$measured" ] || [ -s "$measured/track-base.txt" ] ||
	{ echo "dlio_peer.sh: --track --measured $measured: no track-base.txt there (a measurement made with --track)" >&2; exit 2; }
if [ -n "$tcost" ] && [ -n "$measure$track$before" ]; then
	echo "dlio_peer.sh: --track-cost runs DLIO alone: no --measure-host, --measure-around, --measured, --track or --before" >&2; exit 2
fi
# No --host: this machine's own profile, where one matches (--host above):
# the tool's own answer (`tiersim hosts --this`, pipeline/host.c's loader)
if [ -z "$hostset" ] && [ -z "$measure" ]; then
	if auto=$("$build/cli/tiersim" hosts --this 2>"${TMPDIR:-/tmp}/dlio_peer.this.$$"); then
		host=(--host "$auto")
		echo "dlio_peer.sh: --host $auto (this machine's own profile, tiersim hosts --this; --host none for none)" >&2
	else
		echo "dlio_peer.sh: $(cat "${TMPDIR:-/tmp}/dlio_peer.this.$$"): tiersim's sides charge no host CPU (name one with --host)" >&2
	fi
	rm -f "${TMPDIR:-/tmp}/dlio_peer.this.$$"
fi
[ "${host[1]:-}" = none ] && host=()
# --measure-host: --host NAME is the profile the measurement is carried from
from=""
if [ -n "$measure" ]; then
	[ ${#host[@]} -eq 2 ] && from=${host[1]}
	host=(--host this-machine)
fi
build=$(cd "$build" 2>/dev/null && pwd) || { echo "dlio_peer.sh: --tiersim: no build directory" >&2; exit 2; }
tiersim=$build/cli/tiersim
tierfs=$build/fs/tierfs
for b in "$tiersim" "$tierfs"; do
	[ -x "$b" ] || { echo "dlio_peer.sh: $b is missing: build first (ninja -C $build)" >&2; exit 2; }
done
mkdir -p "$work"
if [ ${#refs[@]} -eq 0 ] && [ -z "$venv" ]; then
	venv=$work/dlio-venv
	if [ ! -x "$venv/bin/dlio_benchmark" ]; then
		inst=$root/../shared/peers/dlio/install.sh
		[ -x "$inst" ] || { echo "dlio_peer.sh: no --venv and no $inst to install DLIO from" >&2; exit 2; }
		echo "dlio_peer.sh: installing DLIO into $venv" >&2
		apt-get install -y -qq python3-packaging >/dev/null || exit 2
		"$inst" "$venv" >&2 || exit 2
	fi
fi
[ ${#refs[@]} -gt 0 ] || [ -x "$venv/bin/dlio_benchmark" ] || { echo "dlio_peer.sh: $venv/bin/dlio_benchmark is missing" >&2; exit 2; }
if [ -n "$offcpu" ]; then
	perf record -q -e sched:sched_switch -a -o /dev/null true >/dev/null 2>&1 ||
		{ echo "dlio_peer.sh: --offcpu: perf cannot record the scheduler's tracepoints here (perf_event_paranoid, or not root)" >&2; exit 2; }
fi
if [ -n "$wake" ]; then
	[ -d /sys/kernel/tracing/instances ] && [ -w /sys/kernel/tracing/instances ] ||
		{ echo "dlio_peer.sh: --wake: no writable tracefs at /sys/kernel/tracing (root)" >&2; exit 2; }
fi
# an interrupted run's tracefs instance (--wake) is taken down on exit
wake_gone() { bench_tracefs_stop "/sys/kernel/tracing/instances/dlio_peer.$$"; }
[ -z "$wake" ] || trap wake_gone EXIT
rt=() rtp=()
if [ -n "$prio" ]; then
	[[ $prio =~ ^[0-9]+$ ]] && [ "$prio" -ge 1 ] && [ "$prio" -le 98 ] && chrt -f "$prio" true ||
		{ echo "dlio_peer.sh: --chrt $prio: not a SCHED_FIFO priority this user may set" >&2; exit 2; }
	rt=(chrt -f "$prio")
	# The sampler's ps above them: a SCHED_FIFO rank reaping its DataLoader
	# workers waits in the kernel (d_invalidate of their /proc entries) on
	# a reader of /proc such as ps, and spins there, holding a core, for as
	# long as that reader cannot run; at a lower priority it never could.
	rtp=(chrt -f $((prio < 99 ? prio + 1 : 99)))
fi

# Each dataset's overrides, given to DLIO and to tiersim alike. u64 and
# u168 name record_length_resize (2 MiB: a 1448 x 1448 resized_image a
# sample) as DLIO reads it: Hydra takes DLIO's own packaged
# workload/unet3d_h100.yaml before the --config-dir copy of
# workloads/dlio/unet3d_h100.yaml, and the packaged one sets
# record_length_resize: 2097152 (each run's dlio/.hydra/config.yaml shows
# it), where the copy's record_length_bytes_resize is no key 2.0.0 reads:
# without it tiersim collated 8 MiB samples where DLIO's workers collate
# 2 MiB ones.
common="++workload.workflow.checkpoint=False ++workload.workflow.evaluation=False ++workload.dataset.num_files_eval=0 ++workload.train.epochs=$epochs"
declare -A wl=([u64]=unet3d_h100 [u168]=unet3d_h100 [r50]=resnet50_h100 [j50]=resnet50_h100
	[h50]=resnet50_h100 [p50]=resnet50_h100)
declare -A over=(
	[u64]="++workload.dataset.num_files_train=64 ++workload.dataset.record_length=8388608 ++workload.dataset.record_length_resize=2097152 ++workload.dataset.record_length_stdev=0 ++workload.train.computation_time=0.323"
	[u168]="++workload.dataset.num_files_train=168 ++workload.dataset.record_length=8388608 ++workload.dataset.record_length_resize=2097152 ++workload.dataset.record_length_stdev=0 ++workload.train.computation_time=0.323"
	[r50]="++workload.framework=pytorch ++workload.reader.data_loader=pytorch ++workload.dataset.format=npz ++workload.dataset.num_files_train=4000 ++workload.dataset.num_samples_per_file=1 ++workload.dataset.record_length=114660 ++workload.dataset.record_length_stdev=0 ++workload.train.computation_time=0.224 ++workload.reader.batch_size=400 ++workload.reader.read_threads=8"
	[j50]="++workload.framework=pytorch ++workload.reader.data_loader=pytorch ++workload.dataset.format=jpeg ++workload.dataset.num_files_train=4000 ++workload.dataset.num_samples_per_file=1 ++workload.dataset.record_length=114660 ++workload.dataset.record_length_stdev=0 ++workload.train.computation_time=0.224 ++workload.reader.batch_size=400 ++workload.reader.read_threads=8"
	[h50]="++workload.framework=pytorch ++workload.reader.data_loader=pytorch ++workload.dataset.format=hdf5 ++workload.dataset.num_files_train=4000 ++workload.dataset.num_samples_per_file=1 ++workload.dataset.record_length=114660 ++workload.dataset.record_length_stdev=0 ++workload.train.computation_time=0.224 ++workload.reader.batch_size=400 ++workload.reader.read_threads=8"
	[p50]="++workload.framework=pytorch ++workload.reader.data_loader=pytorch ++workload.dataset.format=png ++workload.dataset.num_files_train=4000 ++workload.dataset.num_samples_per_file=1 ++workload.dataset.record_length=114660 ++workload.dataset.record_length_stdev=0 ++workload.train.computation_time=0.224 ++workload.reader.batch_size=400 ++workload.reader.read_threads=8"
)
# What DLIO's generator alone is given: its hdf5 generator draws
# generation_buffer_size bytes of records (2 GiB by default) for every file,
# so, as a user of DLIO 2.0.0 would, one record's worth (the files are the same)
declare -A genover=([h50]="++workload.dataset.generation_buffer_size=114660")
# NAME DATASET RANKS TIER
table="u64-1-gp3 u64 1 aws-gp3
u64-2-ssd u64 2 ssd-cloud
u64-2-gp3 u64 2 aws-gp3
u168-2-ssd u168 2 ssd-cloud
r50-1-ssd r50 1 ssd-cloud
r50-2-ssd r50 2 ssd-cloud
r50-2-gp3 r50 2 aws-gp3
u64-1-nvme u64 1 nvme-local
r50-1-essd r50 1 essd-pl1
j50-1-ssd j50 1 ssd-cloud
h50-1-ssd h50 1 ssd-cloud
p50-1-ssd p50 1 ssd-cloud
u64-2-essd u64 2 essd-pl0
h50-1-essd h50 1 essd-pl1
u168-4-ssd u168 4 ssd-cloud
r50-2-essd r50 2 essd-pl1"

mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none -q)

# (mpirun forwards stdin to rank 0: every run below reads /dev/null, not the table)
cfg=$work/config/workload
mkdir -p "$cfg"
for w in unet3d_h100 resnet50_h100; do cp "$root/workloads/dlio/$w.yaml" "$cfg/"; done

# DLIO's dataset, made once by its own generator.
gen() {
	local d=$1 data=$work/data/$1
	[ -f "$data/.done" ] && return 0
	rm -rf "$data" "$work/gen-$d"
	mkdir -p "$data"
	# shellcheck disable=SC2086
	"${mpi[@]}" -np 1 "$venv/bin/dlio_benchmark" --config-dir "$work/config" workload="${wl[$d]}" \
		$common ${over[$d]} ${genover[$d]:-} ++workload.workflow.generate_data=True ++workload.workflow.train=False \
		++workload.dataset.data_folder="$data" hydra.run.dir="$work/gen-$d" \
		++workload.output.folder="$work/gen-$d" </dev/null >"$work/gen-$d.log" 2>&1 &&
		touch "$data/.done" || { echo "dlio_peer.sh: DLIO's generator failed: $work/gen-$d.log" >&2; return 1; }
}

# The per-sample pattern of a trace: opens, reads, getattrs per opened file,
# mean read KiB, read latency p50 (ms).
pattern() {
	"$tiersim" trace dump "$1" | /usr/bin/python3 -c '
import sys, statistics
opens = reads = gets = 0; rb = 0; lat = []
for line in sys.stdin:
    w = line.split()
    if not w or not w[0].isdigit(): continue
    op = w[2]
    if op == "open": opens += 1
    elif op == "getattr": gets += 1
    elif op == "read": reads += 1; rb += int(w[5]); lat.append(int(w[1]) - int(w[0]))
o = max(opens, 1)
print("%5.1f %5.1f %6.1f %6.2f" % (reads / o, gets / o, rb / max(reads, 1) / 1024,
      statistics.median(lat) / 1e6 if lat else 0))'
}

# The requesting threads' wait for a CPU (schedstat run-queue time between
# their first and last request: trace stats), as a share of the trace's
# span per thread.
runq() {
	"$tiersim" trace stats "$1" --json | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin); th = [t for t in j["threads"] if t["runq_ns"] or t["cpu_ns"]]
print("%.0f%%" % (100 * sum(t["runq_ns"] for t in th) / max(len(th), 1) / max(j["span_ns"], 1)))'
}

# The reading threads' own CPU per sample: the growth of each one's
# schedstat run time (trace stats) over the files it opened, summed over
# the threads that opened files, in us.
reader_cpu() {
	"$tiersim" trace stats "$1" --json | /usr/bin/python3 -c '
import json, sys
r = [t for t in json.load(sys.stdin)["threads"] if t["opens"]]
print("%.0f" % (sum(t["cpu_ns"] for t in r) / max(sum(t["opens"] for t in r), 1) / 1e3))'
}

# What a reading thread waits per charged request (open, read) that is
# neither the request's span nor its CPU, where 1 or 2 threads read
# (bench/dlio_waits.py; the host's wake-ups), in us.
waits() {
	"$tiersim" trace dump "$1" | /usr/bin/python3 "$here/dlio_waits.py" --json | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin).get("1-2")
print("%.0f" % j["wait_us_per_request"] if j else "-")'
}

# Per sample, from its open to its close: ms in requests / ms between them.
sample_ms() {
	"$tiersim" trace dump "$1" | /usr/bin/python3 -c '
import sys
recs, cur, span, io, n = [], {}, 0, 0, 0
for line in sys.stdin:
    w = line.split()
    if w and w[0].isdigit() and w[2] in ("open", "read", "getattr", "flush", "close"):
        recs.append((int(w[0]), int(w[1]), w[2], w[3]))
for s, c, op, f in sorted(recs):
    if op == "open":
        cur[f] = [s, 0]
    if f in cur:
        cur[f][1] += c - s
        if op == "close":
            span += c - cur[f][0]; io += cur[f][1]; n += 1; del cur[f]
n = max(n, 1)
print("%.1f/%.1f" % (io / n / 1e6, (span - io) / n / 1e6))'
}

# A side's dataset, the backing files its tierfs daemon reads (DLIO's from
# its generator; tiersim's where `tiersim dlio` made it, both builds alike):
# the files of DATASET's format and count under WORK.
ds_dir() { # DATASET SIDE
	if [ "$2" = dlio ] || [ "$2" = dlio0 ]; then
		echo "$work/data/$1"
		return
	fi
	local f n
	f=$(grep -o 'dataset.format=[a-z0-9]*' <<<"${over[$1]}" | cut -d= -f2)
	n=$(grep -o 'num_files_train=[0-9]*' <<<"${over[$1]}" | cut -d= -f2)
	compgen -G "$work/ts/dlio/*-${f:-npz}-${n}x*" || true
}
# The share of DIR's files' bytes in the host's page cache (fincore), "-"
# without fincore or files. On this VM the page cache drops a dataset's
# pages within minutes of its last read, with memory free (2026-12-05: 84%
# of the j50 files cached two minutes after a run, 16% five minutes later):
# a daemon whose backing file is not cached waits on the VM's disk inside a
# request, as no tier profile says, and a side whose dataset was made or
# read last is favoured. So before each real side its backing files are
# read once (warm), unless --no-warm.
cached() { # DIR...
	[ $# -gt 0 ] && command -v fincore >/dev/null || { echo -; return; }
	find "$@" -type f -print0 | xargs -0 -r fincore -b -n -o RES,SIZE 2>/dev/null |
		awk '{ r += $1; s += $2 } END { if (s) printf "%.0f%%", 100 * (r > s ? s : r) / s; else print "-" }'
}
warm() { # DIR...
	[ $# -gt 0 ] && find "$@" -type f -print0 | xargs -0 -r cat >/dev/null 2>&1
	return 0
}

# tierfs writes its trace's end after the unmount returns: wait for it.
trace_end() {
	for _ in $(seq 100); do
		"$tiersim" trace dump "$1" 2>/dev/null | tail -1 | grep -q '^end ' && return 0
		sleep 0.2
	done
}

summary() { # DIR -> "AU samples/s" of DLIO's summary.json
	/usr/bin/python3 -c '
import json, sys
m = json.load(open(sys.argv[1] + "/summary.json"))["metric"]
print("%.1f %.1f" % (m["train_au_mean_percentage"], m["train_throughput_mean_samples_per_second"]))' "$1"
}

tsjson() { # JSON text -> "AU samples/s"
	/usr/bin/python3 -c '
import json, sys
s = sys.stdin.read(); j = json.loads(s[s.index("{"):])["runs"][0]
print("%.1f %.1f" % (100 * j["au"], j["samples_per_s"]))'
}

# --reference: no runs; the kept DLIO runs combined per row beside tiersim
# virtual now (deterministic: no hold needed)
if [ ${#refs[@]} -gt 0 ]; then
	sel=$rows
	if [ -z "$sel" ]; then
		# every row of the table with a kept run
		sel=$(echo "$table" | while read -r rname _; do
			for r in "${refs[@]}"; do
				compgen -G "$r/$rname-[0-9]*/dlio/summary.json" >/dev/null ||
					compgen -G "$r/*/$rname-[0-9]*/dlio/summary.json" >/dev/null && { echo "$rname"; break; }
			done
		done | paste -sd, -)
	fi
	vfile=$(mktemp)
	trap 'rm -f "$vfile" "$vfile.json"' EXIT
	echo "$table" | while read -r rname rds rn rtier; do
		[[ ",$sel," == *",$rname,"* ]] || continue
		# shellcheck disable=SC2086
		v=$("$tiersim" dlio "${wl[$rds]}" $common ${over[$rds]} --tier "$rtier" "${host[@]}" --accelerators "$rn" \
			--virtual --quiet --json "$vfile.json" </dev/null >/dev/null 2>&1 && tsjson <"$vfile.json") || v="- -"
		echo "$rname $v"
	done >"$vfile"
	echo "tiersim virtual: $tiersim, host ${host[1]:-none}"
	/usr/bin/python3 "$here/dlio_peer_ref.py" --rows "$sel" ${rnums:+--run-numbers "$rnums"} \
		--side "virtual=$vfile" "${refs[@]}"
	exit
fi

# Runs CMD (under chrt with --chrt) and, once a second while it runs, lists
# the scheduling class and name of every thread of it and its descendants
# into FILE. Once DONE exists (a run's results written), every thread seen
# is put back to SCHED_OTHER (each second, so threads seen later too), and
# CMD has 30 s to exit; then its children
# are sent SIGTERM and FILE.late says so. A 2-rank real DLIO under
# SCHED_FIFO spun in the kernel at exit twice (wait4 -> release_task ->
# d_invalidate on its DataLoader workers' /proc entries, which a task of
# normal priority held and could not release): 508 s the first time, with
# this sampler below its priority, 2 minutes the second, with it above;
# SIGTERM and SIGKILL did not end it, SCHED_OTHER did at once.
rtrun() { # FILE DONE CMD...
	local f=$1 done=$2 pid rc late=0 pp=""
	shift 2
	if [ -n "$offcpu" ]; then
		# perf takes seconds to start: recording (its ack) before the run
		local ctl=${f%.rt}.perf.ctl
		rm -f "$ctl" "$ctl.ack"
		mkfifo "$ctl" "$ctl.ack"
		perf record -q -D -1 --control "fifo:$ctl,$ctl.ack" -k mono -e sched:sched_switch \
			-e sched:sched_wakeup -a --call-graph fp --kernel-callchains -m 8M \
			-o "${f%.rt}.perf.data" >/dev/null 2>"${f%.rt}.perf.log" &
		pp=$!
		timeout 60 bash -c 'echo enable >"$1" && head -c 3 "$1.ack" >/dev/null' _ "$ctl" ||
			echo "dlio_peer.sh: perf did not start recording: ${f%.rt}.perf.log" >&2
	fi
	local ti=""
	if [ -n "$wake" ]; then
		ti=/sys/kernel/tracing/instances/dlio_peer.$$
		bench_tracefs_start "$ti" 65536 mono || { echo "dlio_peer.sh: --wake: cannot make $ti" >&2; ti=""; }
	fi
	if [ -n "$ti" ]; then
		bench_tracefs_event "$ti" sched/sched_switch
		bench_tracefs_event "$ti" sched/sched_wakeup
		bench_tracefs_on "$ti"
	fi
	"${rt[@]}" "$@" &
	pid=$!
	local sp=""
	if [ -n "$split" ]; then
		cpu_sample "${f%.rt}.cpu.json" "$pid" "${cpumnt:-}" &
		sp=$!
	fi
	: >"$f"
	rm -f "$f.late"
	while kill -0 "$pid" 2>/dev/null; do
		"${rtp[@]}" ps -e -L -o pid=,ppid=,lwp=,cls=,comm= | awk -v root="$pid" '
			{ par[$1] = $2; cls[$3] = $4; pof[$3] = $1; cm[$3] = $5 }
			END { for (t in cls) { p = pof[t]
				while (p != "" && p != root && p > 1) p = par[p]
				if (p == root) print t, cls[t], cm[t] } }' >>"$f"
		if [ -e "$done" ] && [ -n "$prio" ] && [ "$late" -ge 0 ]; then
			# results written: the rest (exit, reaping) at normal priority
			awk '{ print $1 }' "$f" | sort -u | while read -r t; do
				chrt -o -p 0 "$t" 2>/dev/null
			done
		fi
		if [ -e "$done" ] && [ $((late += 1)) -gt 30 ]; then
			echo "still running 30 s after $done: children of $pid sent SIGTERM" >"$f.late"
			"${rtp[@]}" pkill -TERM -P "$pid"
			late=-1000
		fi
		sleep 1
	done
	wait "$pid"
	rc=$?
	[ -z "$sp" ] || wait "$sp"
	[ -z "$pp" ] || { kill -INT "$pp"; wait "$pp"; rm -f "${f%.rt}.perf.ctl" "${f%.rt}.perf.ctl.ack"; }
	if [ -n "$ti" ]; then
		bench_tracefs_off "$ti" "${f%.rt}.sched" "${f%.rt}.sched.overrun"
		bench_tracefs_stop "$ti"
	fi
	return $rc
}

# --cpu-split: the CPU of every thread of a real side's run (ROOT, the
# process rtrun starts, and its descendants) and of the tierfs daemon that
# serves MOUNT (DLIO's; tiersim's own daemon is its child), each thread's
# schedstat run time every 0.2 s, and the host's idle time from /proc/stat,
# into OUT as JSON: the groups' CPU at each tick (launcher: time, mpirun;
# main: the ranks' main threads; thread:COMM their other threads by
# name; workers: the ranks' child processes, DLIO's DataLoader workers;
# daemon: tierfs), each thread's last figure and the workers' count.
cpu_sample() { # OUT ROOT MOUNT
	/usr/bin/python3 - "$@" <<'PY'
import json, os, sys, time
out, root, mnt = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def rd(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None

def tasks(p):  # a process's threads; none once it has gone
    try:
        return os.listdir('/proc/%d/task' % p)
    except OSError:
        return []

def daemon_of(m):  # the tierfs process whose command line names the mount
    for p in os.listdir('/proc'):
        if p.isdigit():
            c = rd('/proc/%s/cmdline' % p) or ''
            a = c.split('\0')
            if a and os.path.basename(a[0]) == 'tierfs' and m in a:
                return int(p)
    return 0

daemon = daemon_of(mnt) if mnt else 0
info, last, ticks = {}, {}, []  # pid -> (parent, comm, cmd); (pid, tid) -> [ns, comm]
waits, first = {}, {}  # (pid, tid) -> [run-queue wait ns, times on a core]; its first [run, wait, times]
while True:
    alive = os.path.exists('/proc/%d' % root)
    todo, procs = ([(root, 0)] if alive else []), []
    while todo:
        p, par = todo.pop()
        procs.append((p, par))
        for t in tasks(p):
            todo += [(int(k), p) for k in (rd('/proc/%d/task/%s/children' % (p, t)) or '').split()]
    if daemon:
        procs.append((daemon, -1))
    for p, par in procs:
        comm = (rd('/proc/%d/comm' % p) or '?').strip()
        if p not in info or info[p][1] != comm:  # new, or exec'd since (mpirun's fork of a rank)
            info[p] = (par, comm, os.path.basename((rd('/proc/%d/cmdline' % p) or '').split('\0')[0]))
        for t in tasks(p):
            ss = rd('/proc/%d/task/%s/schedstat' % (p, t))
            if ss:
                f = ss.split()
                k = (p, int(t))
                last[k] = [int(f[0]), (rd('/proc/%d/task/%s/comm' % (p, t)) or '?').strip()]
                waits[k] = [int(f[1]), int(f[2])]
                first.setdefault(k, [int(f[0]), int(f[1]), int(f[2])])
    cpu = (rd('/proc/stat') or 'cpu 0 0 0 0 0 0 0 0 0').split('\n')[0].split()
    ticks.append([time.time(), int(cpu[4]) + int(cpu[5]), {'%d/%d' % k: v[0] for k, v in last.items()},
                  time.monotonic(), int(cpu[8]), {'%d/%d' % k: v[0] for k, v in waits.items()}])
    if not alive:
        break
    time.sleep(0.2)

# the ranks: each process from the root down that runs DLIO or tiersim and
# descends from none that does (mpirun's -np N start N of them)
def runs_dlio(p, i):
    return i[0] >= 0 and ('dlio_benchmark' in (rd('/proc/%d/cmdline' % p) or i[2]) or
                          i[1] in ('tiersim', 'dlio_benchmark') or 'python' in i[2])
def anc(p, a):
    while p > 0:
        if p == a:
            return True
        p = info.get(p, (0,))[0]
    return False
dl = {p for p, i in info.items() if runs_dlio(p, i)}
ranks = {p for p in dl if not any(q != p and anc(p, q) for q in dl)}
def group(p, t, comm):
    if p == daemon or info[p][1] == 'tierfs':
        return 'daemon'
    if p in ranks:
        return 'main' if t == p else 'thread:' + comm
    if any(anc(p, r) for r in ranks):
        return 'workers'
    return 'launcher'
keys = {k: group(*map(int, k.split('/')), last[tuple(map(int, k.split('/')))][1]) for k in ticks[-1][2]}
names = sorted(set(keys.values()))
series = [[t, idle, {g: sum(v for k, v in th.items() if keys.get(k) == g) for g in names}, mono, steal,
           {g: sum(v for k, v in wt.items() if keys.get(k) == g) for g in names}]
          for t, idle, th, mono, steal, wt in ticks]
# each thread as first and last seen: run ns, run-queue wait ns, times on a core
sched = {'%d/%d' % k: [keys.get('%d/%d' % k, '?'), last[k][1]] + first[k] + [last[k][0]] + waits[k]
         for k in last if '%d/%d' % k in keys}
json.dump({'groups': names, 'hz': os.sysconf('SC_CLK_TCK'),
           'workers': sum(1 for p in info if keys and group(p, p, '') == 'workers'),
           'threads': {k: [keys[k], last[tuple(map(int, k.split('/')))][1], v]
                       for k, v in ticks[-1][2].items()},
           'sched': sched, 'series': series}, open(out, 'w'))
PY
}

# OUT.cpu.json SAMPLES -> a line: each group's CPU per sample read, us, in
# the reading span (from the first to the last tick in which both the
# daemon and the readers ran: the DataLoader workers, or without any the
# rank's other threads; DLIO's start, which lists the data folder, and
# tiersim's making of its dataset left out) and over the whole run, the
# span in s, and the host's idle cores over it
cpu_split() {
	/usr/bin/python3 - "$@" "$here" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[3])
from dlio_wake import reading_ticks
j, n = json.load(open(sys.argv[1])), float(sys.argv[2])
s = j['series']
a, b, rg = reading_ticks(j)
d = lambda g, x, y: (s[y][2].get(g, 0) - s[x][2].get(g, 0)) / n / 1e3
t = s[b][0] - s[a][0]
idle = (s[b][1] - s[a][1]) / j['hz'] / max(t, 1e-9)
tot = sum(d(g, a, b) for g in j['groups'])
# the ticks in which the readers held a core or more: the host's idle and
# stolen cores then, and the readers' and the daemon's
tt = ti = tb = 0.0
for i in range(a + 1, b + 1):
    dt = s[i][0] - s[i - 1][0]
    if dt > 0 and (s[i][2].get(rg, 0) - s[i - 1][2].get(rg, 0)) / 1e9 >= dt:
        tt += dt
        ti += (s[i][1] - s[i - 1][1]) / j['hz']
        tb += sum(s[i][2].get(g, 0) - s[i - 1][2].get(g, 0) for g in (rg, 'daemon')) / 1e9
steal = (s[b][4] - s[a][4]) / j['hz'] / max(t, 1e-9) if len(s[0]) > 4 else float('nan')
print('%s (%d workers): ' % (sys.argv[1].rsplit('/', 1)[-1], j['workers']) +
      ', '.join('%s %.0f (%.0f)' % (g, d(g, a, b), d(g, 0, len(s) - 1)) for g in j['groups']) +
      '; all %.0f us/sample in the reading %.1f s, %.2f cores idle, %.2f stolen' % (tot, t, idle, steal) +
      '; readers at 1 core or more %.1f s: %.2f cores idle, readers and daemon %.2f' %
      (tt, ti / max(tt, 1e-9), tb / max(tt, 1e-9)))
PY
}

# --cpu-split: a line per SIDE of the run in OUT (cpu_split) for DATASET d
split_lines() { # SIDE...
	[ -n "$split" ] || return 0
	local ns c
	ns=$(($(echo "${over[$d]}" | grep -o 'num_files_train=[0-9]*' | cut -d= -f2) * epochs))
	for c in "$@"; do
		[ -s "$out/$c.cpu.json" ] && echo "    cpu us/sample, reading span (whole run): $(cpu_split "$out/$c.cpu.json" "$ns")"
	done
	return 0
}

# FILE -> "FIFO threads/threads seen" (a thread's class as last seen)
rtshare() {
	awk '{ c[$1] = $2 } END { for (t in c) { n++; if (c[t] == "FF") f++ }
		printf "%d/%d", f, n }' "$1" 2>/dev/null || echo -
}

# tiersim of BUILD on a row: "AU samples/s" real (traced into TRACE) and virtual
ts_row() { # BUILD TRACE LOG d n tier [HOST [HOST_FILE]]
	local t=$1/cli/tiersim b c
	local host=("${host[@]}")
	[ -n "${7:-}" ] && host=(--host "$7")
	[ -n "${8:-}" ] && local TIERSIM_HOST_FILE=$8 && export TIERSIM_HOST_FILE
	# shellcheck disable=SC2086
	rm -f "$3.json"
	# shellcheck disable=SC2086
	[ -n "$vonly" ] && b="- -" ||
	b=$(TIERSIM_WORKDIR=$work/ts rtrun "$3.rt" "$3.json" "${mpi[@]}" -np "$5" "$t" dlio "${wl[$4]}" \
		$common ${over[$4]} --tier "$6" "${host[@]}" --trace "$2" --quiet --json "$3.json" \
		</dev/null >/dev/null 2>"$3.log" && tsjson <"$3.json") || b="- -"
	# shellcheck disable=SC2086
	rm -f "$3-v.json"
	c=$("$t" dlio "${wl[$4]}" $common ${over[$4]} --tier "$6" "${host[@]}" --accelerators "$5" \
		--virtual --quiet --json "$3-v.json" </dev/null >/dev/null 2>"$3-v.log" && tsjson <"$3-v.json") || c="- -"
	echo "$b $c"
}

# A tiersim run's JSON -> the host profile it charged, as it says
# (host_costs): the name, DLIO's work per sample, the step, the waits and
# the daemon's per request, and this-machine's file
hostused() {
	[ -s "$1" ] || { echo "- (no JSON)"; return; }
	/usr/bin/python3 -c '
import json, sys
s = open(sys.argv[1]).read(); j = json.loads(s[s.index("{"):])
h, c = j.get("host") or "none", j.get("host_costs")
if not c:
    print(h); sys.exit()
print("%s: %.0f us + %.0f us/MiB a sample%s, step %.2f ms, requests %.1f us + daemon %.1f us, wait %.1f us, DLIO run +%.1f us, collate %.1f ms a batch%s" % (
    h, c["sample_us"], c["sample_us_per_mib"],
    " + %.0f us/Mpixel" % c["jpeg_us_per_mpix"] if c["jpeg_us_per_mpix"] else "",
    c["step_us"] / 1e3, c["request_us"], c["daemon_us"], c["wait_us"], c["run_request_us"],
    c.get("collate_ms", 0),
    " (%s)" % c["file"] if c["file"] else ""))' "$1" 2>/dev/null || echo "- (unreadable JSON)"
}

# --measure-around: the set a row's probe reads (dlio_measure.py's)
declare -A pset=([u64]=npz-l [u168]=npz-l [r50]=npz-s [j50]=jpeg [h50]=hdf5-s [p50]=png-s)

# SET TIER OUT -> DLIO's own work per sample of SET now, us (a probe)
probe() {
	TIERSIM_WORKDIR=$work "${rt[@]}" "$tiersim" hosts measure --venv "$venv" --probe "$1" \
		--repeats "$preps" --tier "$2" --quiet >"$3" 2>&1 &&
		sed -n 's/^probe [^:]*: DLIO own \([0-9.]*\) us .*/\1/p' "$3" | grep .
}

# LOG SET -> the hold's measurement's own figure for SET: its rounds'
# DLIO workers less tiersim's chain (us a sample), their median
round_own() {
	/usr/bin/python3 - "$@" <<'PY'
import re, statistics, sys
v = [float(m.group(1)) - float(m.group(2)) for line in open(sys.argv[1])
     for m in [re.search(r'round \d+: per sample.*?\b%s (-?[0-9.]+)/(-?[0-9.]+)' % re.escape(sys.argv[2]), line)] if m]
if not v:
    sys.exit(1)
print('%.1f' % statistics.median(v))
PY
}

# BASE OUT F WHY -> OUT: BASE (a profile hosts measure wrote) with each
# figure of DLIO's and the chain's CPU times F, its speed over F
scale_profile() {
	/usr/bin/python3 - "$@" <<'PY'
import re, sys
base, out, f, why = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
keep = {'vcpus', 'copy_tail_first', 'dlio_worker_gc_samples', 'dlio_worker_spread', 'dlio_run_request_ns'}
num = r'(-?[0-9.]+(?:[eE][-+]?[0-9]+)?)'
pat = re.compile(r'^(\s*)([\w"\[\]/]+) = \{ ' + num + r', "measured", "(.*)", low = ' + num + r', high = ' + num + r' \},$')
lines = []
for line in open(base).read().split('\n'):
    m = pat.match(line)
    if m and m.group(2) not in keep:
        k = f if m.group(2) != 'speed' else 1 / f
        fmt = '%.4f' if m.group(2) == 'speed' else '%.0f'
        line = '%s%s = { %s, "measured", "%s (x %.4f) of %s", low = %s, high = %s },' % (
            m.group(1), m.group(2), fmt % (float(m.group(3)) * k), why, k,
            m.group(4),
            fmt % (float(m.group(5)) * k), fmt % (float(m.group(6)) * k))
    lines.append(line)
open(out, 'w').write('\n'.join(lines))
PY
}

# --track, --track-cost: the tracker (workloads/dlio_measure.py track) runs
# from here to the call's end, its ticks into TRK; the seconds a phase ran
# are read from the wall clock (date, time.time_ns() in the tracker's lines)
tpid=""
if [ -n "$track$tcost" ]; then
	trk=$work/out/track-$first.txt
	mkdir -p "$work/out" "$work/track-files"
	rm -f "$trk"
	"$venv/bin/python" "$root/workloads/dlio_measure.py" track "$work/track-files" "$trk" "$tperiod" \
		</dev/null >"$trk.log" 2>&1 &
	tpid=$!
	trap '[ -z "$tpid" ] || { kill -CONT "$tpid"; kill -TERM "$tpid"; wait "$tpid"; } 2>/dev/null; wake_gone' EXIT
	# its first tick: the sets written and read once before it
	for _ in $(seq 120); do [ -s "$trk" ] && break; sleep 0.5; done
	[ -s "$trk" ] || { echo "dlio_peer.sh: --track: the tracker did not start: $(tail -1 "$trk.log")" >&2; exit 1; }
fi
now() { date +%s%N; }

# the tracker's F and duty over a window (bench/dlio_track.py)
track_f() { /usr/bin/python3 "$here/dlio_track.py" f "$@"; }
track_cores() { /usr/bin/python3 "$here/dlio_track.py" cores "$@"; }

# --measure-host: this machine measured once, in this hold, before the rows
if [ -n "$measure" ]; then
	if [ -z "$mtier" ]; then
		mtier=$(echo "$table" | while read -r name d n tier; do
			if [ -z "$rows" ] || [[ ",$rows," == *",$name,"* ]]; then echo "$tier"; break; fi
		done)
	fi
	mout=$work/out/measure-$first
fi
if [ -n "$measured" ]; then
	mout=$measured
	export TIERSIM_HOST_FILE=$mout/this-machine.lua
	echo "host: DLIO its own CPU; tiersim real and virtual charge this-machine as measured in $mout" \
		"($(sed -n 's/^-- this-machine: .*(\(.*\)).*/\1/p' "$mout/this-machine.lua")), scaled to each run by its probes:"
	sed -n '2,$s/^ */    /p' "$mout/measure.txt"
elif [ -n "$measure" ]; then
	rm -rf "$mout"; mkdir -p "$mout"
	export TIERSIM_HOST_FILE=$mout/this-machine.lua
	mstart=$(date -u +%H:%M:%SZ)
	# with --measure-around its rounds' lines (the probes' base) into the log
	mq=(--quiet)
	[ -z "$around" ] || mq=()
	m0=$(now)
	TIERSIM_WORKDIR=$work "${rt[@]}" "$tiersim" hosts measure --venv "$venv" --repeats "$mreps" \
		--tier "${mtier:-nvme-local}" ${from:+--from "$from"} ${mq[@]+"${mq[@]}"} --out "$TIERSIM_HOST_FILE" \
		>"$mout/measure.txt" 2>"$mout/measure.log" ||
		{ echo "dlio_peer.sh: tiersim hosts measure failed: $(tail -1 "$mout/measure.log")" >&2; exit 1; }
	if [ -n "$track" ]; then
		# the base: the tracker's ticks while the measurement ran
		awk -v a="$m0" -v b="$(now)" '$1 == "tick" && $2 >= a && $2 <= b' "$trk" >"$mout/track-base.txt"
		[ -s "$mout/track-base.txt" ] || { echo "dlio_peer.sh: --track: no tracker tick while the measurement ran" >&2; exit 1; }
	fi
	echo "host: DLIO its own CPU; tiersim real and virtual charge this-machine, measured $mstart-$(date -u +%H:%M:%SZ)" \
		"in this hold ($mreps round(s) on ${mtier:-nvme-local}${from:+, carried from $from}), load $(cut -d' ' -f1-3 /proc/loadavg):"
	sed -n '2,$s/^ */    /p' "$mout/measure.txt"
else
	echo "host: DLIO its own CPU; tiersim real and virtual charge ${host[1]:-no host profile (none given)}"
fi
hb=""
[ -n "$before" ] && hb="   before: real virt   "
printf '%-11s %-10s | %-13s | %-27s |%s %-24s | %-24s | %s\n' row tier "DLIO AU smp/s" \
	"tiersim: real     virtual" "${hb:+$hb|}" "DLIO rd/f get/f KiB p50ms" "ts rd/f get/f KiB p50ms" \
	"DLIO cpu, cores busy | CPU wait DLIO ts | sample ms DLIO ts | reader us CPU/sample DLIO ts | wait us/req DLIO ts | load${prio:+ | FIFO threads DLIO ts}"
echo "$table" | while read -r name d n tier; do
	if [ -n "$rows" ] && ! [[ ",$rows," == *",$name,"* ]]; then continue; fi
	gen "$d" || continue
	sides="dlio ts"
	[ -n "$before" ] && sides+=" before"
	# --track-cost: DLIO alone, the tracker stopped (dlio0) and running
	[ -n "$tcost" ] && sides="dlio0 dlio"
	# samples/s run by run: DLIO's, tiersim's real and virtual, and before's
	sd="" st="" sv="" sbt="" sbv="" s0=""
	for run in $(seq "$first" $((first + runs - 1))); do
		out=$work/out/$name-$run
		rm -rf "$out"; mkdir -p "$out/dlio" "$out/m"
		# the sides in turn, rotated from run to run
		cache=""
		order=$(bench_order $((run - 1)) $sides)
		if [ -n "$around" ]; then
			# DLIO first: the tiersim sides charge the host as DLIO had it
			order=$sides
			ps=${pset[$d]}
			mown=$(round_own "$mout/measure.log" "$ps") || mown=-
			pk=0
			pw0=$(now)
			pv=$(probe "$ps" "$tier" "$out/probe-$pk.txt") ||
				{ echo "dlio_peer.sh: $name: probe failed: $(tail -1 "$out/probe-$pk.txt")" >&2; exit 1; }
			# the base: the probe of the set just after the measurement
			# (this call's first run's first probe), as a probe reads it
			bf=$mout/probe-base-$ps-$tier.txt
			pw1=$(now)
			bnote=""
			if [ ! -s "$bf" ]; then
				[ -z "$measured" ] || [ -n "$track" ] ||
					{ echo "dlio_peer.sh: $name: --measured $mout has no probe of $ps on $tier after it" >&2; exit 1; }
				cp "$out/probe-$pk.txt" "$bf"
				[ -z "$measured" ] || bnote=" (--measured had none: this run's first probe)"
			fi
			base=$(sed -n 's/^probe [^:]*: DLIO own \([0-9.]*\) us .*/\1/p' "$bf")
			probes="before DLIO $pv"
			pprev=$pv
		fi
		for side in $order; do
			if [ "$side" = dlio ] || [ -z "$vonly" ]; then
				# shellcheck disable=SC2046
				cache+=" $side $(cached $(ds_dir "$d" "$side"))"
				# shellcheck disable=SC2046
				[ -n "$nowarm" ] || warm $(ds_dir "$d" "$side")
			fi
			case $side in
			dlio | dlio0)
				mkdir -p "$out/$side"
				"${rt[@]}" "$tierfs" -o "tier=$tier,mem=0,trace=$out/$side.trace" "$work/data/$d" "$out/m" >/dev/null 2>&1 ||
					{ echo "dlio_peer.sh: $name: tierfs failed" >&2; continue 2; }
				# --track-cost: the tracker stopped while dlio0 runs
				[ "$side" = dlio ] || kill -STOP "$tpid"
				dw0=$(now)
				# shellcheck disable=SC2086
				cpumnt=$out/m rtrun "$out/$side.rt" "$out/$side/summary.json" /usr/bin/time -f "%U %S %e" -o "$out/$side.time" \
					"${mpi[@]}" -np "$n" "$venv/bin/dlio_benchmark" --config-dir "$work/config" workload="${wl[$d]}" \
					$common ${over[$d]} ++workload.dataset.data_folder="$out/m" hydra.run.dir="$out/$side" \
					++workload.output.folder="$out/$side" </dev/null >"$out/$side.log" 2>&1
				dw1=$(now)
				[ "$side" = dlio ] || kill -CONT "$tpid"
				# the tracker's window of the side it ran in
				[ "$side" = dlio ] && dr0=$dw0 dr1=$dw1
				# the daemon back to SCHED_OTHER before it unmounts (as rtrun does)
				[ -n "$prio" ] && ps -e -L -o lwp=,args= | awk -v m="$out/m" 'index($0, m) { print $1 }' |
					while read -r t; do chrt -o -p 0 "$t" 2>/dev/null; done
				fusermount3 -u "$out/m" || { fusermount3 -uz "$out/m"; echo "dlio_peer.sh: $name: unmount of $out/m failed" >&2; exit 1; }
				trace_end "$out/$side.trace"
				if [ "$side" = dlio0 ]; then
					a0=$(summary "$out/dlio0" 2>/dev/null) || a0="- -"
					continue
				fi
				a=$(summary "$out/dlio" 2>/dev/null) || a="- -"
				# (the last line: time(1) puts a non-zero exit status above it)
				cpu=$(tail -1 "$out/dlio.time" 2>/dev/null |
					awk '{ printf "%.0f s %.2f", $1 + $2, ($1 + $2) / ($3 > 0 ? $3 : 1) }')
				[ -z "$tcost" ] || continue
				;;
			ts)
				tw0=$(now)
				nowr=$(ts_row "$build" "$out/ts.trace" "$out/ts" "$d" "$n" "$tier")
				tw1=$(now)
				;;
			before) was=$(ts_row "$before" "$out/ts-before.trace" "$out/ts-before" "$d" "$n" "$tier" "$bhost" "$bfile") ;;
			esac
			if [ -n "$around" ] && [ "$side" = dlio ]; then
				pk=$((pk + 1))
				pa0=$(now)
				pv=$(probe "$ps" "$tier" "$out/probe-$pk.txt") ||
					{ echo "dlio_peer.sh: $name: probe failed: $(tail -1 "$out/probe-$pk.txt")" >&2; exit 1; }
				pa1=$(now)
				probes+=", after $side $pv"
				if [ "$side" = dlio ]; then
					fac=$(awk -v a="$pprev" -v b="$pv" -v c="$base" 'BEGIN { printf "%.4f", (a + b) / 2 / c }')
					why="the probes of $ps (DLIO's own work a sample) just before and after DLIO's run, $pprev and $pv us, their mean over the probe just after the hold's measurement, $base us"
					pfac=$fac
					if [ -n "$track" ]; then
						tb=$mout/track-base.txt
						# the seconds DLIO's readers read (--cpu-split), else its side's
						tspan="DLIO's side"
						if [ -s "$out/dlio.cpu.json" ] && read -r rw0 rw1 < <(/usr/bin/python3 "$here/dlio_track.py" span "$out/dlio.cpu.json"); then
							tspan="DLIO's reading, $(((rw1 - rw0) / 1000000000)) of its side's $(((dw1 - dw0) / 1000000000)) s"
						else
							rw0=$dw0 rw1=$dw1
						fi
						read -r fac fset tn <<<"$(track_f "$tb" "$trk" "$rw0" "$rw1" "$ps")" && [ -n "$fac" ] ||
							{ echo "dlio_peer.sh: $name: no tracker tick while DLIO ran ($trk)" >&2; exit 1; }
						why="the tracker's CPU per file while DLIO's readers read (its $tn ticks) over its CPU while the measurement ran, the mean of npz-s, jpeg, hdf5-s, png-s ($ps alone $fset)"
						tline="tracker F (its CPU per set over the measurement's): $tspan $fac ($ps $fset, $tn ticks, $(track_cores "$trk" "$rw0" "$rw1") cores), DLIO's whole side $(track_f "$tb" "$trk" "$dw0" "$dw1" | cut -d' ' -f1)"
						tpb=$(track_f "$tb" "$trk" "$pw0" "$pw1" | cut -d' ' -f1)
						tpa=$(track_f "$tb" "$trk" "$pa0" "$pa1" | cut -d' ' -f1)
						# the probes' F carried by the tracker from their seconds to DLIO's
						tline+=", probe before ${tpb:--}, after ${tpa:--}; the probes' F carried to DLIO's reading by it $(awk -v p="$pfac" -v f="$fac" -v a="$tpb" -v b="$tpa" 'BEGIN { if (a + b > 0) printf "%.4f", p * f / ((a + b) / 2); else print "-" }') (not charged)"
					fi
					scale_profile "$mout/this-machine.lua" "$out/this-machine.lua" "$fac" \
						"bench/dlio_peer.sh --measure-around${track:+ --track}: $why" ||
						{ echo "dlio_peer.sh: $name: the scaled profile failed" >&2; exit 1; }
					export TIERSIM_HOST_FILE=$out/this-machine.lua
				fi
				pprev=$pv
			fi
		done
		load=$(uptime | sed 's/.*average: //')
		if [ -n "$tcost" ]; then
			read -r aa as <<<"$a"; read -r za zs <<<"$a0"
			printf '%-11s %-10s | DLIO, tracker stopped: %5s %7s | tracker running: %5s %7s (its CPU %s cores) | order %s | load %s\n' \
				"$name" "$tier" "$za" "$zs" "$aa" "$as" "$(track_cores "$trk" "$dr0" "$dr1")" "$(echo $order)" "$load"
			sd+="$as " s0+="$zs "
			split_lines dlio0 dlio
			continue
		fi
		# shellcheck disable=SC2046
		cache+="; after: DLIO $(cached $(ds_dir "$d" dlio)), ts $(cached $(ds_dir "$d" ts))"
		[ -n "$vonly" ] || trace_end "$out/ts.trace"
		pa=- pb=- qa=- qb=- sa=- sb=- ca_=- cb_=- wa=- wb=-
		if [ -z "$nofig" ]; then
			pa=$(pattern "$out/dlio.trace" 2>/dev/null) || pa="-"
			pb=$(pattern "$out/ts.trace" 2>/dev/null) || pb="-"
			qa=$(runq "$out/dlio.trace" 2>/dev/null) || qa="-"
			qb=$(runq "$out/ts.trace" 2>/dev/null) || qb="-"
			sa=$(sample_ms "$out/dlio.trace" 2>/dev/null) || sa="-"
			sb=$(sample_ms "$out/ts.trace" 2>/dev/null) || sb="-"
			ca_=$(reader_cpu "$out/dlio.trace" 2>/dev/null) || ca_="-"
			cb_=$(reader_cpu "$out/ts.trace" 2>/dev/null) || cb_="-"
			wa=$(waits "$out/dlio.trace" 2>/dev/null) || wa="-"
			wb=$(waits "$out/ts.trace" 2>/dev/null) || wb="-"
		fi
		fifo=""
		[ -n "$prio" ] && fifo=" | FIFO $(rtshare "$out/dlio.rt") $(rtshare "$out/ts.rt")"
		[ -e "$out/dlio.rt.late" ] && fifo="$fifo | DLIO $(cat "$out/dlio.rt.late")"
		read -r aa as <<<"$a"; read -r ba bs ca cs <<<"$nowr"
		wcol=""
		sd+="$as " st+="$bs " sv+="$cs "
		if [ -n "$before" ]; then
			read -r xa xs ya ys <<<"$was"
			wcol=$(printf ' %5s %7s %5s %7s |' "$xa" "$xs" "$ya" "$ys")
			sbt+="$xs " sbv+="$ys "
		fi
		printf '%-11s %-10s | %5s %7s | %5s %7s %5s %7s |%s %-24s | %-24s | %s | %4s %4s | %s %s | %s %s | %s %s | %s%s\n' \
			"$name" "$tier" "$aa" "$as" "$ba" "$bs" "$ca" "$cs" "$wcol" "$pa" "$pb" "${cpu:--}" "$qa" \
			"$qb" "$sa" "$sb" "$ca_" "$cb_" "$wa" "$wb" "$load" "$fifo"
		echo "    backing files cached before each side${nowarm:+ (not warmed)}:$cache"
		if [ -n "$track" ]; then
			echo "    probes ($ps, DLIO's own work, us a sample, $preps round(s) each): $probes; base $base$bnote, the measurement's own rounds $mown; the probes' F = $pfac (mean around DLIO over the base; not charged)"
			echo "    $tline, tiersim's real and virtual sides $(track_f "$tb" "$trk" "$tw0" "$tw1" | cut -d' ' -f1); charged F = $fac"
		elif [ -n "$around" ]; then
			echo "    probes ($ps, DLIO's own work, us a sample, $preps round(s) each): $probes; base (the probe after the hold's measurement) $base, the measurement's own rounds $mown; charged F = $fac (mean around DLIO over the base)"
		fi
		[ -n "$vonly" ] || echo "    host charged, tiersim real: $(hostused "$out/ts.json")"
		echo "    host charged, tiersim virtual: $(hostused "$out/ts-v.json")"
		split_lines dlio ts
	done
	# each run's ratio, over the runs that ran (a failed side is "-")
	k=$(echo "$sd" | wc -w)
	[ "$k" -gt 0 ] || continue
	if [ -n "$tcost" ]; then
		printf '%-11s %-10s | DLIO samples/s, tracker running / stopped within each run, median (min..max) of %s: %s\n' \
			"$name" "$tier" "$k" "$(bench_ratio -f %.3f "$sd" "$s0")"
		continue
	fi
	bl=""
	[ -n "$before" ] && bl="; before: real $(bench_ratio -f %.2f "$sbt" "$sd"), virtual $(bench_ratio -f %.2f "$sbv" "$sd")"
	printf '%-11s %-10s | tiersim / DLIO samples/s within each run, median (min..max) of %s: real %s, virtual %s%s\n' \
		"$name" "$tier" "$k" "$(bench_ratio -f %.2f "$st" "$sd")" "$(bench_ratio -f %.2f "$sv" "$sd")" "$bl"
done
