#!/usr/bin/python3
# tests/data/spatial/make-cases.py: writes tests/data/spatial/spatial.json,
# the expected values of pad, resize, depth_to_space and space_to_depth
# (src/ops/pad.c, resize.c, depth.c) that tests/unit/test-spatial.c checks.
# Inputs are exact float32 numbers; the expected values are computed in
# float64, so the test runs every case in float32 and in float64.
#
# Who computes what (independent of gptop's code):
# - pad: torch.nn.functional.pad (constant with a value and negative pads,
#   reflect, replicate = ONNX edge, circular = wrap) and numpy.pad
#   (reflect and wrap with pads larger than the axis, 1-d and 3-d);
# - resize: torch.nn.functional.interpolate: nearest (ONNX asymmetric +
#   floor), nearest-exact (half_pixel + round_prefer_ceil), bilinear and
#   trilinear with align_corners False (pytorch_half_pixel) and True
#   (align_corners), bicubic (cubic, a = -0.75, pytorch_half_pixel), given
#   by scale_factor (ONNX scales) or size (ONNX sizes);
# - depth_to_space: torch.pixel_shuffle (CRD), and for DCR and
#   space_to_depth numpy's reshape/transpose as the ONNX spec writes them.
#
# Run: /usr/bin/python3 tests/data/spatial/make-cases.py \
#        > tests/data/spatial/spatial.json
import json
import sys

import numpy as np
import torch
import torch.nn.functional as F

torch.manual_seed(21)
cases = []


def rnd(*shape):
    return torch.randn(*shape, dtype=torch.float32).double()


def add(name, op, params, x, out):
    out = torch.as_tensor(np.asarray(out)) if not torch.is_tensor(out) \
        else out
    cases.append({
        "name": name, "op": op, "params": params,
        "inputs": [{"shape": list(x.shape),
                    "data": [float(v) for v in x.flatten()]}],
        "output": {"shape": list(out.shape),
                   "data": [float(v) for v in out.flatten()]},
    })


def onnx_pads(nd, tpad):
    # torch's pad tuple (last axis first: begin, end, ...) -> ONNX pads
    # (begins for every axis, then ends)
    b = [0] * nd
    e = [0] * nd
    for i in range(len(tpad) // 2):
        b[nd - 1 - i] = tpad[2 * i]
        e[nd - 1 - i] = tpad[2 * i + 1]
    return b + e


# pad
x = rnd(2, 3, 4, 5)
for tmode, mode in (("reflect", "reflect"), ("replicate", "edge"),
                    ("circular", "wrap")):
    tp = (2, 1, 3, 0)
    add("pad %s 2-d" % mode, "pad",
        {"pads": onnx_pads(4, tp), "mode": mode}, x, F.pad(x, tp, tmode))
tp = (2, -1, -1, 3)
add("pad constant 1.5, negative pads", "pad",
    {"pads": onnx_pads(4, tp), "value": 1.5}, x,
    F.pad(x, tp, "constant", 1.5))
add("pad constant on every axis", "pad",
    {"pads": [1, 0, 2, 0, 0, 2, 0, 1], "mode": "constant"}, x,
    np.pad(x.numpy(), ((1, 0), (0, 2), (2, 0), (0, 1))))
y = rnd(3)
add("pad reflect 1-d past the axis (numpy)", "pad",
    {"pads": [5, 4], "mode": "reflect"}, y,
    np.pad(y.numpy(), (5, 4), "reflect"))
z = rnd(2, 3, 2)
# wrap: numpy's pads of at most the axis's size (numpy's larger ones are
# not periodic: np.pad([1, 2, 3], (4, 2), "wrap") starts 2, not 3)
add("pad wrap 3-d (numpy)", "pad",
    {"pads": [1, 3, 2, 0, 2, 1], "mode": "wrap"}, z,
    np.pad(z.numpy(), ((1, 0), (3, 2), (2, 1)), "wrap"))
add("pad edge 3-d (numpy)", "pad",
    {"pads": [0, 2, 1, 1, 0, 3], "mode": "edge"}, z,
    np.pad(z.numpy(), ((0, 1), (2, 0), (1, 3)), "edge"))

# resize
x = rnd(2, 3, 5, 4)
add("resize nearest scales 2x3 (torch nearest)", "resize",
    {"mode": "nearest", "coordinate_transformation_mode": "asymmetric",
     "nearest_mode": "floor", "scales": [1, 1, 2, 3]}, x,
    F.interpolate(x, scale_factor=(2, 3), mode="nearest"))
add("resize nearest sizes 3x7 (torch nearest)", "resize",
    {"mode": "nearest", "coordinate_transformation_mode": "asymmetric",
     "nearest_mode": "floor", "sizes": [2, 3, 3, 7]}, x,
    F.interpolate(x, size=(3, 7), mode="nearest"))
add("resize nearest-exact sizes 8x3", "resize",
    {"mode": "nearest", "coordinate_transformation_mode": "half_pixel",
     "nearest_mode": "round_prefer_ceil", "sizes": [2, 3, 8, 3]}, x,
    F.interpolate(x, size=(8, 3), mode="nearest-exact"))
add("resize linear scales 2x2 pytorch_half_pixel", "resize",
    {"mode": "linear",
     "coordinate_transformation_mode": "pytorch_half_pixel",
     "scales": [1, 1, 2, 2]}, x,
    F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False))
add("resize linear sizes 3x7 pytorch_half_pixel (down and up)", "resize",
    {"mode": "linear",
     "coordinate_transformation_mode": "pytorch_half_pixel",
     "sizes": [2, 3, 3, 7]}, x,
    F.interpolate(x, size=(3, 7), mode="bilinear", align_corners=False))
add("resize linear sizes 9x2 align_corners", "resize",
    {"mode": "linear", "coordinate_transformation_mode": "align_corners",
     "sizes": [2, 3, 9, 2]}, x,
    F.interpolate(x, size=(9, 2), mode="bilinear", align_corners=True))
add("resize cubic sizes 7x9 pytorch_half_pixel", "resize",
    {"mode": "cubic",
     "coordinate_transformation_mode": "pytorch_half_pixel",
     "sizes": [2, 3, 7, 9]}, x,
    F.interpolate(x, size=(7, 9), mode="bicubic", align_corners=False))
add("resize cubic sizes 3x6 align_corners", "resize",
    {"mode": "cubic", "coordinate_transformation_mode": "align_corners",
     "sizes": [2, 3, 3, 6]}, x,
    F.interpolate(x, size=(3, 6), mode="bicubic", align_corners=True))
v = rnd(1, 2, 3, 4, 2)
add("resize linear 3-d sizes 5x2x3 (trilinear)", "resize",
    {"mode": "linear",
     "coordinate_transformation_mode": "pytorch_half_pixel",
     "sizes": [1, 2, 5, 2, 3]}, v,
    F.interpolate(v, size=(5, 2, 3), mode="trilinear", align_corners=False))
w = rnd(2, 3, 7)
add("resize linear 1-d sizes 17",
    "resize", {"mode": "linear",
               "coordinate_transformation_mode": "pytorch_half_pixel",
               "sizes": [2, 3, 17]}, w,
    F.interpolate(w, size=17, mode="linear", align_corners=False))

# depth_to_space, space_to_depth
x = rnd(2, 8, 3, 2)
add("depth_to_space CRD (pixel_shuffle)", "depth_to_space",
    {"blocksize": 2, "mode": "CRD"}, x, torch.pixel_shuffle(x, 2))
b = 2
n, c, h, ww = x.shape
t = x.numpy().reshape(n, b, b, c // 4, h, ww).transpose(0, 3, 4, 1, 5, 2)
add("depth_to_space DCR (ONNX's reshape and transpose)", "depth_to_space",
    {"blocksize": 2}, x, t.reshape(n, c // 4, h * b, ww * b))
x = rnd(2, 3, 6, 9)
b = 3
n, c, h, ww = x.shape
t = x.numpy().reshape(n, c, h // b, b, ww // b, b).transpose(0, 3, 5, 1, 2, 4)
add("space_to_depth 3 (ONNX's reshape and transpose)", "space_to_depth",
    {"blocksize": 3}, x, t.reshape(n, c * b * b, h // b, ww // b))

json.dump({"made_by": "tests/data/spatial/make-cases.py, torch " +
           torch.__version__ + ", numpy " + np.__version__,
           "cases": cases}, sys.stdout, separators=(",", ":"))
print()
