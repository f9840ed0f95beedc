#!/usr/bin/env bash
# dlio_virtual_rows.sh — every bench/dlio_peer.sh row in virtual time alone
# (deterministic: no DLIO, no mount), for comparing builds or host profiles
# row by row: the rows, their datasets and overrides are read from
# bench/dlio_peer.sh itself, each run as its tiersim virtual side runs it.
#
#   bench/dlio_virtual_rows.sh BUILD [HOST] [ROWS]
#
# BUILD: a build directory; HOST: the host profile charged (--host; none
# for none, default epyc-zen3-kvm-2vcpu), TIERSIM_HOST_FILE honoured;
# ROWS: comma-separated names (default all). Prints "row AU samples/s".
set -u
[ $# -ge 1 ] || { echo "usage: bench/dlio_virtual_rows.sh BUILD [HOST] [ROWS]" >&2; exit 2; }
t=$(cd "$1" && pwd)/cli/tiersim
[ -x "$t" ] || { echo "dlio_virtual_rows.sh: $t is not built" >&2; exit 2; }
hostname=${2:-epyc-zen3-kvm-2vcpu}
host=(--host "$hostname")
[ "$hostname" = none ] && host=()
sel=${3:-}
peer=$(dirname "$0")/dlio_peer.sh
epochs=3
eval "$(sed -n '/^common=/p; /^declare -A wl=/,/)$/p; /^declare -A over=(/,/^)$/p' "$peer")"
eval "$(sed -n '/^table="/,/"$/p' "$peer")"
j=$(mktemp)
trap 'rm -f "$j"' EXIT
echo "$table" | while read -r name ds n tier; do
	[ -z "$sel" ] || [[ ",$sel," == *",$name,"* ]] || continue
	# shellcheck disable=SC2086
	"$t" dlio "${wl[$ds]}" $common ${over[$ds]} --tier "$tier" "${host[@]}" --accelerators "$n" \
		--virtual --quiet --json "$j" </dev/null >/dev/null 2>&1 &&
		/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[2]))["runs"][-1]; print("%-11s %6.2f %8.2f" % (sys.argv[1], 100*r["au"], r["samples_per_s"]))' "$name" "$j" ||
		echo "$name failed"
done
