#!/usr/bin/env bash
# Engine profiles from the command line: `tiersim engines` lists every GPU
# of engine/profiles/gpus.lua; --evidence labels every published figure
# (anchors, multi-GPU and memory checks) in the schema tier and host
# profiles use, an assumed one with its range; a figure whose evidence is
# of the wrong type is refused in one line naming the file and line.
. "$(dirname "$0")/lib.sh"

"$tiersim" engines >"$work/list" 2>"$work/err" || fail "engines exits $?: $(cat "$work/err")"
for g in $(sed -n 's/^gpu "\([^"]*\)".*/\1/p' "$src/engine/profiles/gpus.lua"); do
	grep -q "^$g " "$work/list" || fail "'tiersim engines' does not list $g"
done
"$tiersim" engines --evidence >"$work/ev" || fail "engines --evidence"
# one line per figure, as many as the table counts
grep -q "^anchor  pytorch-2021 resnet50 H100 train amp b256 .* assumed   x1-x1.08 " "$work/ev" ||
	fail "the derived H100 anchor is not listed as assumed with its range"
awk 'NR > 1 && $0 !~ / (measured|spec|assumed) / { print; bad = 1 }
     NR > 1 && / assumed / && $0 !~ / x[0-9.]+-x[0-9.]+ / { print; bad = 1 }
     END { exit bad }' "$work/ev" || fail "an unlabelled figure, or an assumed one without its range"
counts="$(grep -c '^anchor ' "$work/ev") published throughputs (anchors), $(grep -c '^scaling ' \
	"$work/ev") multi-GPU and $(grep -c '^oom ' "$work/ev") memory checks"
grep -q "^TFLOPS peak, MiB usable; $counts" "$work/list" ||
	fail "the evidence lists $counts; the table says: $(tail -2 "$work/list")"
[ "$(awk 'NR > 1' "$work/ev" | wc -l)" -gt 100 ] || fail "only $(wc -l <"$work/ev") lines"

# A user's profile adds its figures; a wrong type is one line with file:line.
printf 'anchor { framework = "mxnet", model = "vgg16", gpu = "K80", mode = "infer",\n  precision = "fp32", batch = 16, value = 99, evidence = { "measured", "a run here" } }\n' \
	>"$work/good.lua"
"$tiersim" engines --evidence --profile "$work/good.lua" >"$work/ev2" || fail "a good profile"
grep -q "^anchor  mxnet vgg16 K80 infer fp32 b16 .* measured .* a run here$" "$work/ev2" ||
	fail "the profile's anchor is not listed"
printf '\nscaling { framework = "mxnet", model = "vgg16", gpu = "K80", precision = "fp32",\n  batch = 8, gpus = 8, value = 10, tol = 0.1, evidence = "mxnet_perf" }\n' >"$work/bad.lua"
"$tiersim" engines --profile "$work/bad.lua" >/dev/null 2>"$work/err" && fail "a bad profile loaded"
[ "$(wc -l <"$work/err")" -eq 1 ] || fail "bad profile: expected one line: $(cat "$work/err")"
grep -q "bad.lua:2: scaling: evidence: expected .*, not a string" "$work/err" ||
	fail "bad profile: $(cat "$work/err")"
exit 0
