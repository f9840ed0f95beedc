#!/usr/bin/env python3
# dlio_sample_cost.py — what DLIO's TensorFlow reader copies per sample,
# timed on one core: the record's bytes into a string tensor, the "image"
# bytes feature out of parse_example, decode_raw into a uint8 tensor (three
# copies of the sample), in this thread's CPU time. Gives
# dlio_sample_ns_per_mib of pipeline/hosts.lua.
# Usage: taskset -c 1 /usr/bin/python3 bench/dlio_sample_cost.py [BYTES] [REPEATS]
import os
import sys
import time

import numpy as np

n = int(sys.argv[1]) if len(sys.argv) > 1 else 2828486  # cosmoflow's record_length
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
src = os.urandom(n)
for _ in range(reps):
    t0 = time.thread_time_ns()
    k = 0
    while time.thread_time_ns() - t0 < 1e9:
        b = bytes(bytearray(src))                      # two copies: tensor, feature
        a = np.frombuffer(b, dtype=np.uint8).copy()    # decode_raw
        k += 1
    ns = (time.thread_time_ns() - t0) / k
    print("%d bytes: %.0f ns per sample, %.0f ns per MiB" % (n, ns, ns / (n / 1048576)))
