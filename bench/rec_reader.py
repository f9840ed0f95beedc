# Reads a RecordIO file (MXNet's .rec, `tiersim dataset make imagenet-rec`)
# record by record, as its loader does: an 8-byte header (magic, flag and
# length), then the record padded to 4 bytes. Writes the epoch's time, this
# process's CPU, the records and the bytes as one JSON line to OUT.
# Used by bench/fs_fidelity.sh and bench/page_wake.sh.
# usage: rec_reader.py FILE OUT
import json, resource, struct, sys, time
r0 = resource.getrusage(resource.RUSAGE_SELF)
t0 = time.monotonic()
n = b = 0
with open(sys.argv[1], "rb") as f:
    while True:
        h = f.read(8)
        if len(h) < 8:
            break
        magic, lrec = struct.unpack("<II", h)
        ln = lrec & ((1 << 29) - 1)
        b += len(f.read((ln + 3) & ~3))
        n += 1
r1 = resource.getrusage(resource.RUSAGE_SELF)
cpu = r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime
print(json.dumps({"epoch_s": time.monotonic() - t0, "cpu_s": cpu, "samples": n, "bytes": b}), file=open(sys.argv[2], "w"))
