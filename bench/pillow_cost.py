#!/usr/bin/python3
"""pillow_cost.py — what torchvision's training transform costs one core with
Pillow (python3-pil, Debian's build on libjpeg-turbo): decode, resize the
shorter side to 256 (bilinear), random crop 224, flip, normalize to float
CHW — the work of pipeline/decode.c, done the way a PyTorch ImageFolder
loader does it. Files are read into memory first; thread CPU time.

    /usr/bin/python3 bench/pillow_cost.py DIR [SECONDS]

Prints ns per image and per megapixel, to set against `tiersim calibrate
decode --dir DIR` on the same files (pipeline/hosts.lua, library "pillow").
"""
import io, os, random, sys, time

import numpy as np
from PIL import Image

MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32).reshape(3, 1, 1)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32).reshape(3, 1, 1)


def files(top):
    for root, _, names in sorted(os.walk(top)):
        for n in sorted(names):
            if n.endswith(".JPEG"):
                with open(os.path.join(root, n), "rb") as f:
                    yield f.read()


def transform(data, rng):
    im = Image.open(io.BytesIO(data)).convert("RGB")
    w, h = im.size
    s = 256 / min(w, h)
    im = im.resize((max(224, round(w * s)), max(224, round(h * s))), Image.BILINEAR)
    x = rng.randrange(im.size[0] - 223)
    y = rng.randrange(im.size[1] - 223)
    im = im.crop((x, y, x + 224, y + 224))
    if rng.random() < 0.5:
        im = im.transpose(Image.FLIP_LEFT_RIGHT)
    a = np.asarray(im, dtype=np.float32).transpose(2, 0, 1) / 255.0
    return (a - MEAN) / STD, w * h


def main():
    top = sys.argv[1]
    budget = float(sys.argv[2]) if len(sys.argv) > 2 else 3.0
    blobs = list(files(top))
    if not blobs:
        sys.exit(f"pillow_cost: no .JPEG files under {top}")
    rng = random.Random(1)
    n, pix = 0, 0
    t0 = time.thread_time_ns()
    while True:
        for b in blobs:
            _, p = transform(b, rng)
            n += 1
            pix += p
        spent = time.thread_time_ns() - t0
        if spent >= budget * 1e9:
            break
    import PIL
    print(f"pillow {PIL.__version__}: {n} images ({len(blobs)} distinct), "
          f"{spent / n:.0f} ns/image, {spent / (pix / 1e6):.0f} ns/Mpixel, "
          f"{1e9 * n / spent:.0f} images/s/core")


if __name__ == "__main__":
    main()
