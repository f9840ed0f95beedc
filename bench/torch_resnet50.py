#!/usr/bin/python3
"""torch_resnet50.py — PyTorch's own ResNet-50 step time on the GPU at hand:
the reference the engine's figures for a GPU are checked against
(validation/cases/accel-torch-rn50-*) and the cuda backend is compared with
(engine/README.md).

A real training step of torchvision's resnet50 (weights random, 1000
classes): forward, cross-entropy against random labels, backward, SGD with
momentum 0.9 and weight decay 1e-4, zero_grad(set_to_none). Inputs are
synthetic and stay on the GPU (no data loading, no host copy). Precisions:

  fp32  torch.backends.{cudnn,cuda.matmul}.allow_tf32 = False (strict FP32)
  tf32  both True (PyTorch's convolution default; matmul opted in)
  bf16  torch.autocast(bfloat16) over forward and loss, FP32 weights and
        optimizer (no loss scaler: bf16 has FP32's range)

NCHW layout (PyTorch's default; the DeepLearningExamples AMP rows that
anchor the engine's amp curves ran NHWC, which --nhwc rows time:
torch.channels_last for the model and the input), cudnn.benchmark on, as
DeepLearningExamples' main.py sets it (--heuristic rows: off, cuDNN's
heuristics pick each convolution's algorithm, as the engine's cuda backend
lets them: engine/README.md compares the two). Each (precision, batch) row gets a
fresh model; every round runs each row in turn (rows interleaved, ROUNDS
rounds): WARMUP untimed steps (the first round's also take cuDNN's
autotuning), then STEPS steps between two CUDA events. A row's images/s per
round is STEPS x batch / elapsed; printed are every round and the median
[min-max] over rounds. An inference row (forward only, eval mode,
torch.no_grad) is timed the same way where asked.

    python3 bench/torch_resnet50.py [--rounds 3] [--steps 12] [--warmup 4]
        [--batches 64,128,256] [--precisions fp32,tf32,bf16]
        [--infer fp32:256,bf16:256] [--nhwc bf16:256] [--heuristic fp32:128]
        [--json OUT.json]
"""
import argparse
import contextlib
import json
import statistics
import sys
import time

import torch
import torch.nn.functional as F
import torchvision


def set_precision(p):
    tf32 = p != "fp32"  # bf16 rows: what autocast leaves in FP32 may use TF32
    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cuda.matmul.allow_tf32 = tf32


class Row:
    def __init__(self, mode, precision, batch, nhwc=False, autotune=True):
        self.mode, self.precision, self.batch, self.nhwc = mode, precision, batch, nhwc
        self.autotune = autotune
        self.ips = []
        self.step_ms = []
        self.mem_gib = 0.0
        self.error = None

    def name(self):
        return (f"{self.mode} {self.precision}{' nhwc' if self.nhwc else ''}"
                f"{'' if self.autotune else ' heur'} b{self.batch}")


def run_row(row, warmup, steps, seed):
    set_precision(row.precision)
    torch.backends.cudnn.benchmark = row.autotune
    torch.manual_seed(seed)
    dev = torch.device("cuda")
    model = torchvision.models.resnet50(weights=None, num_classes=1000).to(dev)
    x = torch.randn(row.batch, 3, 224, 224, device=dev)
    y = torch.randint(0, 1000, (row.batch,), device=dev)
    if row.nhwc:
        model = model.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    if row.precision == "bf16":
        def cast():
            return torch.autocast("cuda", dtype=torch.bfloat16)
    else:
        cast = contextlib.nullcontext
    if row.mode == "train":
        model.train()
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)

        def step():
            with cast():
                loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
    else:
        model.eval()

        def step():
            with torch.no_grad(), cast():
                model(x)

    torch.cuda.reset_peak_memory_stats()
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    t0, t1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0.record()
    for _ in range(steps):
        step()
    t1.record()
    t1.synchronize()
    ms = t0.elapsed_time(t1)
    row.ips.append(steps * row.batch * 1000.0 / ms)
    row.step_ms.append(ms / steps)
    row.mem_gib = max(row.mem_gib, torch.cuda.max_memory_allocated() / 2**30)
    del model, x, y
    torch.cuda.empty_cache()


def spread(v):
    return f"{statistics.median(v):9.1f} [{min(v):.1f}-{max(v):.1f}]"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--warmup", type=int, default=4)
    ap.add_argument("--batches", default="64,128,256")
    ap.add_argument("--precisions", default="fp32,tf32,bf16")
    ap.add_argument("--infer", default="fp32:256,bf16:256",
                    help="PRECISION:BATCH,... inference rows ('' for none)")
    ap.add_argument("--nhwc", default="bf16:256",
                    help="PRECISION:BATCH,... training rows in NHWC ('' for none)")
    ap.add_argument("--heuristic", default="",
                    help="PRECISION:BATCH,... training rows with cudnn.benchmark off ('' for none)")
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    if not torch.cuda.is_available():
        print("skip: torch sees no CUDA GPU")
        return 77
    for p in a.precisions.split(","):
        if p not in ("fp32", "tf32", "bf16"):
            print(f"torch_resnet50.py: --precisions: '{p}' is not fp32, tf32 or bf16",
                  file=sys.stderr)
            return 2
    prop = torch.cuda.get_device_properties(0)
    print(f"GPU: {prop.name}, compute {prop.major}.{prop.minor}, "
          f"{prop.multi_processor_count} SMs, {prop.total_memory / 2**30:.1f} GiB")
    print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, "
          f"cuDNN {torch.backends.cudnn.version()}, torchvision {torchvision.__version__}")
    print(f"rounds {a.rounds}, warm-up {a.warmup} steps, timed {a.steps} steps per row "
          f"and round, NCHW, cudnn.benchmark on (but 'heur' rows)")
    rows = [Row("train", p, int(b)) for p in a.precisions.split(",")
            for b in a.batches.split(",")]
    for spec in filter(None, a.nhwc.split(",")):
        p, b = spec.split(":")
        rows.append(Row("train", p, int(b), nhwc=True))
    for spec in filter(None, a.heuristic.split(",")):
        p, b = spec.split(":")
        rows.append(Row("train", p, int(b), autotune=False))
    for spec in filter(None, a.infer.split(",")):
        p, b = spec.split(":")
        rows.append(Row("infer", p, int(b)))
    start = time.time()
    for r in range(a.rounds):
        for row in rows:
            if row.error:
                continue
            try:
                run_row(row, a.warmup, a.steps, 1000 * r + row.batch)
                print(f"round {r + 1} {row.name():23s} {row.ips[-1]:9.1f} images/s  "
                      f"step {row.step_ms[-1]:8.2f} ms", flush=True)
            except torch.cuda.OutOfMemoryError as e:
                row.error = f"out of memory: {str(e).splitlines()[0]}"
                print(f"round {r + 1} {row.name():23s} {row.error}", flush=True)
                torch.cuda.empty_cache()
    print(f"\n{'row':25s} {'images/s median [min-max]':>30s} {'step ms':>9s} {'peak GiB':>9s}")
    out = []
    for row in rows:
        if row.error:
            print(f"{row.name():25s} {row.error}")
            continue
        print(f"{row.name():25s} {spread(row.ips):>30s} {statistics.median(row.step_ms):9.2f} "
              f"{row.mem_gib:9.2f}")
        out.append({"mode": row.mode, "precision": row.precision, "batch": row.batch,
                    "layout": "nhwc" if row.nhwc else "nchw", "autotune": row.autotune,
                    "images_s": row.ips, "step_ms": row.step_ms, "peak_gib": row.mem_gib})
    print(f"wall {time.time() - start:.0f} s")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"gpu": prop.name, "torch": torch.__version__,
                       "cudnn": torch.backends.cudnn.version(), "rounds": a.rounds,
                       "steps": a.steps, "warmup": a.warmup, "rows": out}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
