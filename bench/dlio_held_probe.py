#!/usr/bin/env python3
# dlio_held_probe.py — one DataLoader worker's reader of DLIO 2.0.0 with
# reader.read_type given in the workload, reading samples of one file:
#
#   dlio_held_probe.py READ_TYPE FILE RECORD...
#
# LoadConfig stores the workload's read_type string as it is, and
# read_index() keeps the file open unless read_type *is*
# ReadType.ON_DEMAND, so with either value given the reader opens FILE once.
# After the i-th sample it stats MARKi beside FILE, which cuts a tierfs
# trace into samples (bench/dlio_held_chains.sh). Run with DLIO's venv.
import os, sys, numpy as np
from dlio_benchmark.common.enumerations import DatasetType
from dlio_benchmark.utils.config import ConfigArguments, LoadConfig
from dlio_benchmark.utils.utility import DLIOMPI
from dlio_benchmark.reader.hdf5_reader import HDF5Reader
from dlio_benchmark.reader.npz_reader import NPZReader
from dlio_benchmark.reader.image_reader import ImageReader
DLIOMPI.get_instance().set_parent_values(0, 1)
a = ConfigArguments.get_instance()
LoadConfig(a, {"reader": {"read_type": sys.argv[1]}})
p = sys.argv[2]; recs = [int(x) for x in sys.argv[3:]]
a.file_list_train = [p]; a.global_index_map = {i: (p, r) for i, r in enumerate(recs)}
a.resized_image = np.zeros((1, 1), np.uint8)
cls = {"hdf5": HDF5Reader, "npz": NPZReader}.get(p.rsplit(".", 1)[1], ImageReader)
r = cls(DatasetType.TRAIN, 0, 0)
for i in range(len(recs)):
    r.read_index(i, 1)
    os.stat(os.path.dirname(p) + "/MARK%d" % i)
