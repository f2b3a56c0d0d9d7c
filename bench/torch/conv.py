#!/usr/bin/python3
# bench/torch/conv.py: PyTorch's time per call (best of REPS, ms) for the
# float32 conv shapes of bench/bench-conv.c, with the same thread count
# (THREADS, default: torch's; OpenBLAS's is OPENBLAS_NUM_THREADS).
#   /usr/bin/python3 bench/torch/conv.py [REPS [THREADS]]
import sys
import time

import torch
import torch.nn.functional as F

reps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
if len(sys.argv) > 2:
    torch.set_num_threads(int(sys.argv[2]))
cases = [
    ("resnet18 3x3 64->64 56x56", 1, 64, 56, 56, 64, 3, 1, 1, 1),
    ("resnet18 conv1 7x7/2 3->64 224x224", 1, 3, 224, 224, 64, 7, 2, 3, 1),
    ("resnet18 3x3 256->256 14x14", 1, 256, 14, 14, 256, 3, 1, 1, 1),
    ("1x1 64->256 56x56", 1, 64, 56, 56, 256, 1, 1, 0, 1),
    ("depthwise 3x3 32 112x112", 1, 32, 112, 112, 32, 3, 1, 1, 32),
    ("depthwise 3x3 144 56x56", 1, 144, 56, 56, 144, 3, 1, 1, 144),
    ("depthwise 3x3/2 144 56x56", 1, 144, 56, 56, 144, 3, 2, 1, 144),
]
print("torch %s, %d threads" % (torch.__version__, torch.get_num_threads()))
print("%-36s %9s" % ("case", "torch ms"))
with torch.no_grad():
    for name, n, c, h, w, m, k, s, p, g in cases:
        x = torch.rand(n, c, h, w) - 0.5
        wt = torch.rand(m, c // g, k, k) - 0.5
        best = float("inf")
        for _ in range(reps):
            t0 = time.perf_counter()
            F.conv2d(x, wt, None, s, p, 1, g)
            best = min(best, time.perf_counter() - t0)
        print("%-36s %9.3f" % (name, best * 1e3))
