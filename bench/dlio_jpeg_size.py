#!/usr/bin/env python3
"""dlio_jpeg_size.py — the sizes of the JPEG files DLIO 2.0.0's generator
writes (data_generator/jpeg_generator.py: np.random.randint(255, (d, d),
uint8) saved by Pillow as JPEG, quality 75, greyscale), for the bound the
jpeg dataset kind sizes its files to (pipeline/ds_jpeg.c).

Usage: /usr/bin/python3 bench/dlio_jpeg_size.py [IMAGES_PER_SIDE]
Prints, per side d, the file sizes, and the fit: bytes = head + per_px x
(d rounded up to JPEG's 8-pixel block)^2, head from the smallest sides,
per_px the largest over the rest."""
import io
import sys

import numpy as np
from PIL import Image

n = int(sys.argv[1]) if len(sys.argv) > 1 else 5
np.random.seed(10)  # the generator's seed
rows = []
for d in [8, 16, 64, 100, 128, 256, 338, 512, 724, 1000, 1024, 2048]:
    sizes = []
    for _ in range(n):
        a = np.random.randint(255, size=(d, d), dtype=np.uint8)
        b = io.BytesIO()
        Image.fromarray(a).save(b, format='JPEG', bits=8)
        sizes.append(len(b.getvalue()))
    rows.append((d, ((d + 7) // 8 * 8) ** 2, sizes))
    print(d, min(sizes), max(sizes))
# one block's scan is at least 0.55 B/px: the head is what is left of the smallest
head = max(max(s) - 0.55 * px for d, px, s in rows if d <= 16)
per_px = max((max(s) - head) / px for d, px, s in rows if d > 16)
print("head %.0f B, per_px %.5f B (Pillow %s)" % (head, per_px, Image.__version__))
