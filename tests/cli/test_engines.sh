#!/usr/bin/env bash
# Engine profiles from the command line: `tiersim engines` lists every GPU
# of engine/profiles/gpus.lua; --evidence labels every published figure
# (anchors, multi-GPU and memory checks) and every number of a gpu, link,
# model and framework in the schema tier and host profiles use, an assumed
# one with its range; a figure whose evidence is of the wrong type is
# refused in one line naming the file and line, and so is a bare number in
# the shipped profiles (a user's profile may still write one: unlabelled).
. "$(dirname "$0")/lib.sh"

"$tiersim" engines >"$work/list" 2>"$work/err" || fail "engines exits $?: $(cat "$work/err")"
for g in $(sed -n 's/^gpu "\([^"]*\)".*/\1/p' "$src/engine/profiles/gpus.lua"); do
	grep -q "^$g " "$work/list" || fail "'tiersim engines' does not list $g"
done
"$tiersim" engines --evidence >"$work/ev" || fail "engines --evidence"
# one line per figure, as many as the table counts
grep -q "^anchor  *pytorch-2021 resnet50 H100 train amp b256 .* assumed   x1-x1.08 " "$work/ev" ||
	fail "the derived H100 anchor is not listed as assumed with its range"
awk 'NR > 1 && $0 !~ / (measured|spec|assumed) / { print; bad = 1 }
     NR > 1 && / assumed / && $0 !~ / (x[0-9.]+-x[0-9.]+|[0-9.e+]+-[0-9.e+]+) / { print; bad = 1 }
     END { exit bad }' "$work/ev" || fail "an unlabelled figure, or an assumed one without its range"
counts="$(grep -c '^anchor ' "$work/ev") published throughputs (anchors), $(grep -c '^scaling ' \
	"$work/ev") multi-GPU and $(grep -c '^oom ' "$work/ev") memory checks"
grep -q "^TFLOPS peak, MiB usable; $counts" "$work/list" ||
	fail "the evidence lists $counts; the table says: $(tail -2 "$work/list")"
[ "$(awk 'NR > 1' "$work/ev" | wc -l)" -gt 100 ] || fail "only $(wc -l <"$work/ev") lines"
# the numbers the sim computes with: a datasheet's, a fit's, an assumption's
grep -q '^gpu  *V100 fp32_tflops  *15.7  *spec .* NVIDIA Tesla V100 SXM2 16 GB datasheet (2017)$' \
	"$work/ev" || fail "V100's FP32 peak is not listed as spec with its datasheet"
grep -q '^link  *nvlink2 lat_us  *5  *assumed  *1-20  *high ' "$work/ev" ||
	fail "a link's hop latency is not listed as assumed with its low and high, the high slow"
# --band's slow end: a speed's low, a cost's high, a memory figure kept
grep -q '^framework  *pytorch-2021 allreduce_eff  *1  *assumed  *0.5-1  *low ' "$work/ev" ||
	fail "an allreduce efficiency's slow end is not its low"
grep -q '^framework  *nvcaffe context_mib  *400  *assumed  *250-1000  *kept ' "$work/ev" ||
	fail "the CUDA context is not kept at the band's ends"
grep -q '^anchor  *pytorch-2021 resnet50 H100 train amp b256 .* x1-x1.08  *low ' "$work/ev" ||
	fail "the derived H100 anchor's slow end is not its low"
grep -q '^framework  *tensorflow-2017 allreduce_eff.pcie3  *0.07  *measured ' "$work/ev" ||
	fail "tensorflow-2017's fitted pcie3 efficiency is not listed as measured"
grep -q '^model  *resnet50 b_half  *7  *measured .*perf.md' "$work/ev" ||
	fail "resnet50's fitted b_half is not listed as measured"
for g in $(sed -n 's/^gpu "\([^"]*\)".*/\1/p' "$src/engine/profiles/gpus.lua"); do
	grep -q "^gpu  *$g mem_gib " "$work/ev" || fail "$g's memory is not listed"
done

# A user's profile adds its figures; a wrong type is one line with file:line.
printf 'anchor { framework = "mxnet", model = "vgg16", gpu = "K80", mode = "infer",\n  precision = "fp32", batch = 16, value = 99, evidence = { "measured", "a run here" } }\n' \
	>"$work/good.lua"
"$tiersim" engines --evidence --profile "$work/good.lua" >"$work/ev2" || fail "a good profile"
grep -q "^anchor  *mxnet vgg16 K80 infer fp32 b16 .* measured .* a run here$" "$work/ev2" ||
	fail "the profile's anchor is not listed"
printf '\nscaling { framework = "mxnet", model = "vgg16", gpu = "K80", precision = "fp32",\n  batch = 8, gpus = 8, value = 10, tol = 0.1, evidence = "mxnet_perf" }\n' >"$work/bad.lua"
"$tiersim" engines --profile "$work/bad.lua" >/dev/null 2>"$work/err" && fail "a bad profile loaded"
[ "$(wc -l <"$work/err")" -eq 1 ] || fail "bad profile: expected one line: $(cat "$work/err")"
grep -q "bad.lua:2: scaling: evidence: expected .*, not a string" "$work/err" ||
	fail "bad profile: $(cat "$work/err")"

# A user's profile may write a bare number: listed unlabelled, with its line.
printf 'model "vgg16" { netdef = "vgg16", unit = "images",\n  b_half = 3 }\n' >"$work/bare.lua"
"$tiersim" engines --evidence --profile "$work/bare.lua" >"$work/ev3" || fail "a bare number"
grep -q "^model  *vgg16 b_half  *3  *-  *- .*bare.lua:1$" "$work/ev3" ||
	fail "a bare number is not listed unlabelled: $(grep '^model  *vgg16' "$work/ev3")"
# A wrong type or a missing label: one line naming the file and line.
printf '\n\ngpu "Z0" { mem_gib = { 8, "datasheet" }, fp32_tflops = 30 }\n' >"$work/nolabel.lua"
"$tiersim" engines --profile "$work/nolabel.lua" >/dev/null 2>"$work/err" && fail "no label loaded"
[ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "nolabel.lua:3: gpu 'Z0': mem_gib: missing its label" \
	"$work/err" || fail "a missing label: $(cat "$work/err")"
# The shipped profiles may not: a bare number there is refused.
mkdir -p "$work/data/engine"
cp -r "$src/engine/profiles" "$work/data/engine/"
sed -i 's/mem_gib = { 12, "spec", DS }/mem_gib = 12/' "$work/data/engine/profiles/gpus.lua"
line=$(grep -n '^gpu "K40"' "$work/data/engine/profiles/gpus.lua" | cut -d: -f1)
TIERSIM_DATADIR="$work/data" "$tiersim" engines >/dev/null 2>"$work/err" &&
	fail "a bare number in the shipped profiles loaded"
grep -q "gpus.lua:$line: gpu 'K40': mem_gib: expected { VALUE, " "$work/err" ||
	fail "a shipped bare number: $(cat "$work/err")"
exit 0
