#!/usr/bin/env bash
# tier_labels.sh — every place that tells a user whether a tier is checked
# by an independent measurement says what the corpus says (`tiersim tiers`,
# from validation/cases): a scenario report's "tier check" column on a row
# of every built-in tier, README.md's "of these ... are checked" (exactly
# the checked built-in tiers) and validation/README.md's "Every other
# built-in tier (...)" (exactly the unvalidated ones). A case added or
# dropped without its README line fails here. README=FILE and VREADME=FILE
# read other copies (to show the test fails on a list that is wrong).
# shellcheck source=SCRIPTDIR/lib.sh
. "${TS_SOURCE_ROOT:?run through meson test}/tests/validation/lib.sh"

readme=${README:-$src/README.md}
vreadme=${VREADME:-$src/validation/README.md}

out=$("$tiersim" tiers 2>&1) || fail "tiersim tiers: $out"
# The section after "validation:": one line per tier, its checks or
# "unvalidated".
section=$(echo "$out" | sed -n '/^validation:/,$p' | sed 1d)
[ -n "$section" ] || fail "tiersim tiers printed no validation section: $out"
checked=$(echo "$section" | awk 'NF >= 2 && $2 != "unvalidated" { print $1 }' | sort)
# "unlimited" models no product (no caps, no latency: tierfs alone), so no
# measurement can check it and the READMEs do not list it.
unvalidated=$(echo "$section" | awk 'NF >= 2 && $2 == "unvalidated" && $1 != "unlimited" { print $1 }' | sort)

# list FILE START END: the tier names between the first START and the END
# after it (the text joined into one line; commas, "and" and markup dropped).
list() {
	/usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import re, sys
text = " ".join(open(sys.argv[1]).read().split())
start = text.find(sys.argv[2])
end = text.find(sys.argv[3], start + len(sys.argv[2])) if start >= 0 else -1
if start < 0 or end < 0:
    sys.exit("no '%s ... %s' in %s" % (sys.argv[2], sys.argv[3], sys.argv[1]))
words = re.split(r"[,\s*]+", text[start + len(sys.argv[2]):end])
print("\n".join(sorted(w for w in words if w and w != "and")))
PY
}

# A report row of each built-in tier (virtual time, the suite's small
# scenario) carries the same label.
tiers=$(echo "$section" | awk 'NF >= 2 { print $1 }' | paste -sd, -)
"$tiersim" compare "$src/tests/cli/small.lua" --tiers "$tiers" --virtual pipeline.decode=none \
	--json "$work/rows.json" --quiet >/dev/null 2>"$work/err" ||
	fail "compare --virtual exited $?: $(cat "$work/err")"
rows=$(/usr/bin/python3 -c '
import json, sys
for x in json.load(open(sys.argv[1]))["rows"]:
    print(x["tier"], x.get("tier_check"))' "$work/rows.json" | sort)
want=$(echo "$section" | awk 'NF >= 2 { print $1, ($2 == "unvalidated" ? "unvalidated" : "checked") }' | sort)
[ "$rows" = "$want" ] || fail "report rows' tier check: $(echo $rows); tiersim tiers: $(echo $want)"

r=$(list "$readme" "of these" "are checked") || fail "$readme: no list of checked tiers"
[ "$r" = "$checked" ] ||
	fail "$readme lists as checked: $(echo $r); the corpus checks: $(echo $checked)"
v=$(list "$vreadme" "Every other built-in tier (" ")") || fail "$vreadme: no list of unvalidated tiers"
[ "$v" = "$unvalidated" ] ||
	fail "$vreadme lists as unvalidated: $(echo $v); tiersim tiers labels: $(echo $unvalidated)"

[ "$fails" -eq 0 ] || exit 1
echo "README tier lists: checked $(echo $checked), unvalidated $(echo $unvalidated)"
