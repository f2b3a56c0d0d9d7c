#!/usr/bin/python3
# make-cases.py: ONNX backend-style test cases for the ops of opsets newer
# than Debian's libonnx-testdata (ONNX 1.12, opset 17) holds: Gelu
# (opset 20, approximate "none" and "tanh") and Mish (opset 18), each in
# float32 and float64, with the outputs torch computes
# (torch.nn.functional.gelu, torch.nn.functional.mish); and torch's own
# ONNX export of torch.nn.GELU at opset 13 (Div, Erf, Add, Mul, Mul),
# which gptop fuses into one Composite.
#
# Needs Debian's python3-torch and python3-onnx; run it with /usr/bin/python3
# from the top of the source tree:
#
#     /usr/bin/python3 tests/onnx/cases/make-cases.py          # write
#     /usr/bin/python3 tests/onnx/cases/make-cases.py --check  # compare
#
# Each case is tests/onnx/cases/NAME/model.onnx with
# test_data_set_0/input_0.pb and output_0.pb (TensorProto files), the
# layout of ONNX's backend test data, run by tests/onnx/cases.sh through
# gptop --conformance.  The inputs come from numpy's RandomState(seed), a
# normal distribution scaled by 3 plus a few fixed values (0, +-1e-3,
# +-8): nothing is downloaded, a rerun writes the same bytes.  The models
# are built with onnx.helper (onnx 1.12 knows opset 17 at most: the
# checker is not run on them).
import argparse
import io
import os
import sys

import numpy as np
import onnx
import onnx.helper as oh
import onnx.numpy_helper
import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def inputs(seed, dtype):
    x = np.random.RandomState(seed).randn(3, 4, 5) * 3
    x.flat[:5] = [0, 1e-3, -1e-3, 8, -8]
    return x.astype(dtype)


def gelu(approx):
    def f(t):
        return torch.nn.functional.gelu(t, approximate=approx)
    return f


# name, op type, opset, attributes, torch function, seed
CASES = [
    ("gelu_default", "Gelu", 20, {}, gelu("none"), 1),
    ("gelu_none", "Gelu", 20, {"approximate": "none"}, gelu("none"), 2),
    ("gelu_tanh", "Gelu", 20, {"approximate": "tanh"}, gelu("tanh"), 3),
    ("mish", "Mish", 18, {}, torch.nn.functional.mish, 4),
]
DTYPES = [("float32", np.float32, onnx.TensorProto.FLOAT),
          ("float64", np.float64, onnx.TensorProto.DOUBLE)]


def files(name, op, opset, attrs, fn, seed, dt, npdt, onnxdt):
    x = inputs(seed, npdt)
    y = fn(torch.from_numpy(x)).numpy()
    assert y.dtype == npdt
    node = oh.make_node(op, ["x"], ["y"], **attrs)
    graph = oh.make_graph(
        [node], "test_" + name,
        [oh.make_tensor_value_info("x", onnxdt, list(x.shape))],
        [oh.make_tensor_value_info("y", onnxdt, list(y.shape))])
    model = oh.make_model(graph, producer_name="make-cases.py",
                          opset_imports=[oh.make_opsetid("", opset)])
    model.ir_version = 8
    return {
        "model.onnx": model.SerializeToString(),
        "test_data_set_0/input_0.pb":
            onnx.numpy_helper.from_array(x, "x").SerializeToString(),
        "test_data_set_0/output_0.pb":
            onnx.numpy_helper.from_array(y, "y").SerializeToString(),
    }


def torch_export():
    """torch.nn.GELU exported by torch (opset 13), float32 [3, 4, 5]."""
    x = inputs(5, np.float32)
    b = io.BytesIO()
    torch.onnx.export(torch.nn.GELU(), torch.from_numpy(x), b,
                      opset_version=13, input_names=["x"],
                      output_names=["y"])
    y = torch.nn.GELU()(torch.from_numpy(x)).numpy()
    return {
        "model.onnx": b.getvalue(),
        "test_data_set_0/input_0.pb":
            onnx.numpy_helper.from_array(x, "x").SerializeToString(),
        "test_data_set_0/output_0.pb":
            onnx.numpy_helper.from_array(y, "y").SerializeToString(),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true",
                    help="compare with the committed files, write nothing")
    args = ap.parse_args()
    todo = [("test_gelu_torch_export_float32", torch_export())]
    for name, op, opset, attrs, fn, seed in CASES:
        for dt, npdt, onnxdt in DTYPES:
            todo.append(("test_%s_%s" % (name, dt),
                         files(name, op, opset, attrs, fn, seed, dt, npdt,
                               onnxdt)))
    bad = 0
    for case, made in todo:
        for rel, data in made.items():
            path = os.path.join(HERE, case, rel)
            if args.check:
                try:
                    with open(path, "rb") as f:
                        same = f.read() == data
                except OSError:
                    same = False
                if not same:
                    print("differs: %s" % path)
                    bad = 1
                continue
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
    return bad


if __name__ == "__main__":
    sys.exit(main())
