#!/usr/bin/python3
# tests/data/matmul/make-cases.py: writes tests/data/matmul/matmul.json,
# the expected values of the matmul op (src/ops/matmul.c) that
# tests/unit/test-matmul.c checks, computed by numpy's matmul (Debian
# python3-numpy, /usr/bin/python3) in float64 from inputs that are exact
# float32 numbers (small integers times 1/8), so the test runs every case
# in float32 and in float64 on the same inputs.  A case with a bias adds
# it (numpy broadcasting) and one with alpha multiplies the product by it.
#
# Run:
#   /usr/bin/python3 tests/data/matmul/make-cases.py > tests/data/matmul/matmul.json
import json

import numpy as np

rs = np.random.RandomState(21)
cases = []


def rnd(*shape):
    return rs.randint(-16, 17, size=shape).astype(np.float64) / 8


def add(name, x, y, bias=None, alpha=None):
    out = np.matmul(x, y)
    params = {}
    inputs = [x, y]
    if alpha is not None:
        out = alpha * out
        params["alpha"] = alpha
    if bias is not None:
        out = out + bias
        inputs.append(bias)
    assert out.shape == np.broadcast_shapes(out.shape, *(
        [bias.shape] if bias is not None else []))
    cases.append({
        "name": name, "op": "matmul", "params": params,
        "inputs": [{"shape": list(t.shape),
                    "data": [float(v) for v in t.flatten()]}
                   for t in inputs],
        "output": {"shape": list(out.shape),
                   "data": [float(v) for v in np.ravel(out)]},
    })


add("2d x 2d", rnd(3, 4), rnd(4, 5))
add("3d x 3d", rnd(2, 3, 4), rnd(2, 4, 5))
add("4d x 4d (onnx test_matmul_4d's shapes)", rnd(1, 2, 3, 4), rnd(1, 2, 4, 3))
add("3d x 2d (the batch folds into rows)", rnd(3, 5, 4), rnd(4, 6))
add("2d x 3d (x broadcast over y's batch)", rnd(5, 4), rnd(3, 4, 6))
add("batch broadcast (2,1) against (3)", rnd(2, 1, 3, 4), rnd(3, 4, 2))
add("batch broadcast 1 against 3, 4-d", rnd(1, 3, 2, 4), rnd(2, 1, 4, 5))
add("1d x 3d", rnd(4), rnd(2, 4, 3))
add("3d x 1d", rnd(2, 3, 4), rnd(4))
add("1d x 2d", rnd(4), rnd(4, 3))
add("2d x 1d", rnd(3, 4), rnd(4))
add("1d x 1d", rnd(5), rnd(5))
add("inner dimension 1", rnd(2, 3, 1), rnd(2, 1, 4))
add("single row and column", rnd(4, 1, 6), rnd(4, 6, 1))
add("bias (N) on 3d x 2d", rnd(2, 3, 4), rnd(4, 5), bias=rnd(5))
add("bias (B,1,N) on 3d x 3d", rnd(2, 3, 4), rnd(2, 4, 5),
    bias=rnd(2, 1, 5))
add("bias of the result's shape", rnd(3, 4), rnd(4, 5), bias=rnd(3, 5))
add("alpha", rnd(2, 3, 4), rnd(2, 4, 3), alpha=0.125)
add("alpha and bias", rnd(4, 2, 8), rnd(8, 3), bias=rnd(3), alpha=-1.5)

print(json.dumps({"made_by": "tests/data/matmul/make-cases.py, numpy %s"
                  % np.__version__, "cases": cases},
                 separators=(",", ":")))
