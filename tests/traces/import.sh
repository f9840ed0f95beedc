#!/bin/sh
# import.sh — fio iolog v2/v3 and blkparse import, fio iolog v3 export:
# a real fio run's iolog imports with every op; tiersim → iolog → tiersim
# keeps every read/write (path, offset, length); the exported log replays in
# the real fio with the same op counts; v2's `wait` is milliseconds since
# the start, as fio's code has it; malformed input names file, line, field.
. "${TS_SOURCE_ROOT:?}/tests/traces/lib.sh"
rw() { grep -E ' (read|write) ' "$1" | awk '{print $(NF-2), $(NF-1), $NF}'; }

# 1. tiersim -> iolog -> tiersim keeps reads and writes
"$B" trace undump "$S/small.txt" -o "$T/s.trace"
check "export" "$B" trace export "$T/s.trace" -o "$T/s.log" 2>/dev/null
check "import back" "$B" trace import "$T/s.log" -o "$T/s2.trace" 2>/dev/null
"$B" trace dump "$T/s.trace" | awk '$3=="read"||$3=="write"{print $1,$3,$4,$5,$6}' | sort -n > "$T/a"
"$B" trace dump "$T/s2.trace" | awk '$3=="read"||$3=="write"{print $1,$3,$4,$5,$6}' | sort -n > "$T/b"
check "round trip keeps reads/writes" cmp "$T/a" "$T/b"
check "round trip not empty" test "$(wc -l < "$T/a")" = 4
check "path kept" sh -c "'$B' trace dump '$T/s2.trace' | grep -q '^path 1 \"/data/a\"'"

# 2. real fio: its iolog imports; our export replays in fio with the same ops
if command -v fio > /dev/null; then
	mkdir "$T/d"
	fio --name=j --directory="$T/d" --filename=f --size=1m --rw=randrw --bs=4k \
		--io_size=200k --ioengine=psync --write_iolog="$T/fio.log" --output=/dev/null
	check "fio iolog import" "$B" trace import "$T/fio.log" -o "$T/f.trace" 2>/dev/null
	"$B" trace export "$T/f.trace" -o "$T/f.log" --prefix / 2>/dev/null
	rw "$T/fio.log" > "$T/a"
	rw "$T/f.log" > "$T/b"
	check "fio ops kept" cmp "$T/a" "$T/b"
	# fio 3.33 reports "got signal=11" at the end of any iolog replay (its
	# own logs too) after finishing the IO; keep the JSON that follows.
	fio --name=r --read_iolog="$T/f.log" --ioengine=psync --output-format=json 2>&1 |
		sed -n '/^{/,$p' > "$T/r.json"
	reads=$(grep -c ' read ' "$T/fio.log"); writes=$(grep -c ' write ' "$T/fio.log")
	check "fio replays reads" test "$(jq '.jobs[0].read.total_ios' "$T/r.json")" = "$reads"
	check "fio replays writes" test "$(jq '.jobs[0].write.total_ios' "$T/r.json")" = "$writes"
else
	echo "fio not installed: skipping the fio replay part" >&2
fi

# 3. v2 and its wait quirk
cat > "$T/v2.log" <<'X'
fio version 2 iolog
data/f add
data/f open
data/f read 0 4096
data/f wait 5 0
data/f write 4096 4096 trailing-field-ignored-as-fio-does
data/f sync 0 0
data/f close
X
check "v2 import" "$B" trace import "$T/v2.log" -o "$T/v2.trace" 2>/dev/null
"$B" trace dump "$T/v2.trace" > "$T/v2.txt"
check "v2 read at 0" grep -q '^0 0 read 1 0 4096 4096' "$T/v2.txt"
check "v2 write at 5 ms" grep -q '^5000000 5000000 write 1 4096 4096 4096' "$T/v2.txt"
check "v2 sync" grep -q '^5000000 5000000 fsync 1' "$T/v2.txt"
check "v2 path" grep -q '^path 1 "/data/f"' "$T/v2.txt"

# 4. blkparse
check "blkparse import" "$B" trace import "$S/blkparse.txt" -o "$T/b.trace" 2>/dev/null
"$B" trace dump "$T/b.trace" > "$T/b.txt"
check "blkparse read" grep -q '^5000 105000 read 1 1048576 4096 4096 4242' "$T/b.txt"
check "blkparse out of order completion" grep -q '^200000 1200000 write 1 2097152 131072' "$T/b.txt"
check "blkparse flush" grep -q '^1300000 1500000 fsync 1' "$T/b.txt"
check "blkparse discard" grep -q 'fallocate 1 51200000 1048576 0 4242 0 3' "$T/b.txt"
check "blkparse error" grep -q '^3000000 3050000 read 1 397824 4096 -5' "$T/b.txt"
check "blkparse count" test "$(grep -c '^[0-9]' "$T/b.txt")" = 6

# 5. malformed input: file, line, field; exit 1
bad() { # bad FORMAT TEXT NEEDLE
	printf "$2" > "$T/bad"
	"$B" trace import "$T/bad" --format "$1" -o "$T/bad.trace" 2> "$T/err"
	rc=$?
	if [ $rc != 1 ] || ! grep -q "$3" "$T/err"; then
		echo "FAIL: malformed $1 input: rc $rc, message: $(cat "$T/err"), wanted: $3" >&2
		fail=1
	fi
}
bad iolog 'fio version 1 iolog\n' 'bad:1: not a fio iolog'
bad iolog 'fio version 2 iolog\nf add\nf read 0x10 4096\n' 'bad:3: field 3 (offset)'
bad iolog 'fio version 2 iolog\nf read 0 -1\n' 'bad:2: field 4 (length)'
bad iolog 'fio version 2 iolog\nf read 0 4294967296\n' 'bad:2: field 4 (length)'
bad iolog 'fio version 3 iolog\n12 f frob 0 1\n' 'bad:2: field 3 (action)'
bad iolog 'fio version 3 iolog\nx f read 0 1\n' 'bad:2: field 1 (time)'
bad iolog 'fio version 3 iolog\n1 f read 0\n' 'bad:2: action read needs OFFSET'
bad iolog 'fio version 2 iolog\nf open 5\n' 'bad:2: action open takes no OFFSET'
bad blkparse '  8,0 1 1 0.5 1 D R 0 + 8 [x]\n' 'bad:1: field 4 (time)'
bad blkparse '  8,0 1 1 0.000000001 1 D R 0 + x [x]\n' 'bad:1: field 10 (sectors)'
bad blkparse '  8,0 1 1 0.000000001 1 C R 0 + 8 [zz]\n' 'bad:1: field 11 (error)'
bad blkparse 'hello\n' 'no blkparse event lines'
exit "$fail"
