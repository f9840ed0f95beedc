#!/usr/bin/python3
"""pytorch_loader.py — one epoch of a real PyTorch DataLoader over a JPEG tree,
the training step emulated by a sleep (the accelerator's time). Run by
bench/pytorch_replay.sh through `tiersim record`, on a tierfs mount.

  --root DIR       the mounted dataset (`{}` under tiersim record)
  --list FILE      relative paths of the images, one a line (listed on the
                   backing directory, so that the trace holds the loader's
                   reads only)
  --mode bytes     a sample is the file's bytes (decode left to the
                   accelerator, as with DALI)
  --mode decode    Pillow decode + RandomResizedCrop(224) + ToTensor
  --workers N --prefetch N --batch N --step SECONDS
  --out FILE       where the result goes (default: stdout)

Writes one JSON line: the epoch's wall time (first batch asked for to the
last step done), batches and samples.
"""
import argparse
import json
import os
import time
import warnings

import torch
from torch.utils.data import DataLoader, Dataset


class Files(Dataset):
    def __init__(self, root, names, mode):
        self.paths = [os.path.join(root, n) for n in names]
        self.mode = mode
        self.tf = None
        if mode == "decode":
            from torchvision import transforms

            self.tf = transforms.Compose(
                [transforms.RandomResizedCrop(224), transforms.ToTensor()]
            )

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        with open(self.paths[i], "rb") as f:
            data = f.read()
        if self.mode == "bytes":
            return torch.tensor(len(data))
        import io

        from PIL import Image

        img = Image.open(io.BytesIO(data)).convert("RGB")
        return self.tf(img)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--list", required=True)
    ap.add_argument("--mode", choices=["bytes", "decode"], default="bytes")
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--prefetch", type=int, default=2)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--step", type=float, default=0.04)
    ap.add_argument("--out", default="-")
    a = ap.parse_args()
    torch.set_num_threads(1)
    # more workers than CPUs is what the benchmark varies
    warnings.filterwarnings("ignore", message="This DataLoader will create")
    with open(a.list) as f:
        names = [line.strip() for line in f if line.strip()]
    g = torch.Generator()
    g.manual_seed(1)
    dl = DataLoader(
        Files(a.root, names, a.mode),
        batch_size=a.batch,
        shuffle=True,
        generator=g,
        num_workers=a.workers,
        prefetch_factor=a.prefetch,
    )
    t0 = time.monotonic()
    n = b = 0
    for batch in dl:
        b += 1
        n += len(batch)
        time.sleep(a.step)  # the training step
    t1 = time.monotonic()
    line = json.dumps({"epoch_s": t1 - t0, "batches": b, "samples": n})
    if a.out == "-":
        print(line)
    else:
        with open(a.out, "w") as f:
            f.write(line + "\n")


if __name__ == "__main__":
    main()
