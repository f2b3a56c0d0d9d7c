#!/usr/bin/python3
# torch-bench.py: PyTorch eager mode on a benchmark model of export.py, with
# the same weights (export.py's build(): same seeds) and the same input
# (OUTDIR/NAME/test_data_set_0/input_0.npy): the torch peer of
# bench/README.md's ONNX rows.  Debian's python3-torch, /usr/bin/python3.
#
#     torch-bench.py OUTDIR NAME [--threads N] [--time N] [--warmup N]
#                    [--serve] [--save FILE.npy]
#
# --threads: torch.set_num_threads (default $OPENBLAS_NUM_THREADS or the
# cores), one inter-op thread.  Inference under torch.inference_mode() on
# the module in eval mode (for the transformer, torch's fused fast path).
# --save writes the output; --time N prints best and median seconds per
# inference after --warmup (default 3) runs; --serve reads a count per line
# on stdin, runs that many inferences and prints their wall seconds.
import argparse
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("name", choices=export.MODELS)
    ap.add_argument("--threads", type=int,
                    default=int(os.environ.get("OPENBLAS_NUM_THREADS", 0))
                    or os.cpu_count())
    ap.add_argument("--time", type=int, default=0)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--serve", action="store_true")
    ap.add_argument("--save")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.set_num_interop_threads(1)
    model, _, _, _ = export.build(a.name)
    x = torch.from_numpy(np.load(os.path.join(
        a.outdir, a.name, "test_data_set_0", "input_0.npy")))
    with torch.inference_mode():
        if a.save:
            np.save(a.save, model(x).numpy())
            return
        for _ in range(a.warmup):
            model(x)
        if a.time:
            ts = []
            for _ in range(a.time):
                t0 = time.perf_counter()
                model(x)
                ts.append(time.perf_counter() - t0)
            ts.sort()
            print("best %g median %g seconds per inference (%d runs, %d "
                  "threads)" % (ts[0], ts[len(ts) // 2], a.time, a.threads))
            return
        if a.serve:
            print("ready", flush=True)
            for line in sys.stdin:
                n = int(line)
                if n <= 0:
                    break
                t0 = time.perf_counter()
                for _ in range(n):
                    model(x)
                print(time.perf_counter() - t0, flush=True)


if __name__ == "__main__":
    main()
