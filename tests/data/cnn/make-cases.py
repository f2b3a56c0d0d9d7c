#!/usr/bin/python3
# tests/data/cnn/make-cases.py: writes tests/data/cnn/FAMILY.json, the
# expected values of the CNN ops (src/ops/conv.c, pool.c, norm.c) that
# tests/unit/test-cnn.c checks, computed by PyTorch (Debian python3-torch
# 1.13, /usr/bin/python3) in float64 from inputs that are exact float32
# numbers, so the test runs every case in float32 and in float64 on the
# same inputs.
#
# What torch cannot express directly (asymmetric pads, auto_pad, ONNX
# AveragePool's count_include_pad with asymmetric pads, ConvTranspose's
# pads and output_padding) is computed from torch ops on an explicitly
# padded (F.pad) or cropped tensor, following the ONNX operator spec's
# formulas for the pads; see pads_same() below.
#
# Run, for each family (conv, pool, norm):
#   /usr/bin/python3 tests/data/cnn/make-cases.py conv > tests/data/cnn/conv.json
import json
import math
import sys

import torch
import torch.nn.functional as F

torch.manual_seed(21)
cases = []
family = sys.argv[1] if len(sys.argv) > 1 else ""
if family not in ("conv", "pool", "norm"):
    sys.exit("usage: make-cases.py conv|pool|norm")
FAMILY = {"conv": "conv", "conv_transpose": "conv", "max_pool": "pool",
          "average_pool": "pool", "global_average_pool": "pool",
          "global_max_pool": "pool", "batch_norm": "norm",
          "layer_norm": "norm", "instance_norm": "norm"}


def rnd(*shape):
    # exact float32 values, kept small so float32 sums stay accurate
    return torch.randn(*shape, dtype=torch.float32).double()


def pos(*shape):
    return (torch.rand(*shape, dtype=torch.float32) + 0.5).double()


def add(name, op, params, inputs, out):
    # every family draws its random numbers, so each file stays the same
    # whichever families are written
    if FAMILY[op] != family:
        return
    cases.append({
        "name": name, "op": op, "params": params,
        "inputs": [{"shape": list(t.shape),
                    "data": [float(v) for v in t.flatten()]}
                   for t in inputs],
        "output": {"shape": list(out.shape),
                   "data": [float(v) for v in out.flatten()]},
    })


def pads_same(ins, k, s, d, upper):
    # ONNX: out = ceil(in / s); total = max(0, (out-1)*s + (k-1)*d + 1 - in);
    # SAME_UPPER puts the odd pixel at the end, SAME_LOWER at the start
    b, e = [], []
    for i, kk, ss, dd in zip(ins, k, s, d):
        o = -(-i // ss)
        tot = max(0, (o - 1) * ss + (kk - 1) * dd + 1 - i)
        small = tot // 2
        b.append(small if upper else tot - small)
        e.append(tot - small if upper else small)
    return b + e


def fpad(x, pads, value=0.0):
    # ONNX pads [b1, b2, ..., e1, e2, ...] -> F.pad's last-axis-first pairs
    n = len(pads) // 2
    p = []
    for i in reversed(range(n)):
        p += [pads[i], pads[i + n]]
    return F.pad(x, p, value=value)


CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


def conv(name, x, w, b=None, pads=None, strides=None, dil=None, group=1,
         auto_pad=None, extra=None):
    nsp = x.dim() - 2
    k = list(w.shape[2:])
    s = strides or [1] * nsp
    d = dil or [1] * nsp
    params = {}
    if strides:
        params["strides"] = strides
    if dil:
        params["dilations"] = dil
    if group != 1:
        params["group"] = group
    if auto_pad:
        params["auto_pad"] = auto_pad
        if auto_pad == "VALID":
            p = [0] * (2 * nsp)
        else:
            p = pads_same(list(x.shape[2:]), k, s, d,
                          auto_pad == "SAME_UPPER")
    else:
        p = pads or [0] * (2 * nsp)
        if pads:
            params["pads"] = pads
    if extra:
        params.update(extra)
    y = CONV[nsp](fpad(x, p), w, b, stride=s, dilation=d, groups=group)
    add(name, "conv", params, [x, w] + ([b] if b is not None else []), y)


# conv 2-D
x = rnd(2, 3, 6, 7)
w = rnd(4, 3, 3, 3)
b = rnd(4)
conv("conv2d 3x3 bias", x, w, b)
conv("conv2d kernel_shape given", x, w, b, extra={"kernel_shape": [3, 3]})
conv("conv2d pads 1", x, w, pads=[1, 1, 1, 1])
conv("conv2d strides 2 pads 1", x, w, b, pads=[1, 1, 1, 1], strides=[2, 2])
conv("conv2d dilations 2", x, w, b, dil=[2, 2], pads=[1, 2, 1, 2])
conv("conv2d asymmetric pads", x, w, b, pads=[0, 1, 2, 0])
conv("conv2d SAME_UPPER stride 2", x, w, b, strides=[2, 2],
     auto_pad="SAME_UPPER")
conv("conv2d SAME_LOWER stride 2", x, w, b, strides=[2, 2],
     auto_pad="SAME_LOWER")
conv("conv2d SAME_UPPER dilation 2", x, w, None, dil=[2, 2],
     auto_pad="SAME_UPPER")
conv("conv2d VALID stride 2", x, w, b, strides=[2, 2], auto_pad="VALID")
conv("conv2d 2x3 kernel strides 1,2", x, rnd(5, 3, 2, 3), rnd(5),
     strides=[1, 2], pads=[1, 0, 0, 1])
conv("conv2d 1x1", x, rnd(5, 3, 1, 1), rnd(5))
conv("conv2d 1x1 stride 2", x, rnd(5, 3, 1, 1), rnd(5), strides=[2, 2])
x4 = rnd(2, 4, 5, 6)
conv("conv2d group 2", x4, rnd(6, 2, 3, 3), rnd(6), pads=[1, 1, 1, 1],
     group=2)
conv("conv2d depthwise", x4, rnd(4, 1, 3, 3), rnd(4), pads=[1, 1, 1, 1],
     group=4)
conv("conv2d depthwise no bias stride 2 dilation 2", x4, rnd(4, 1, 3, 3),
     None, pads=[2, 1, 0, 2], strides=[2, 2], dil=[2, 2], group=4)
conv("conv2d depthwise multiplier 2", x4, rnd(8, 1, 3, 3), rnd(8),
     pads=[1, 1, 1, 1], group=4)
conv("conv2d depthwise 5x5 SAME_UPPER stride 2", x4, rnd(4, 1, 5, 5),
     rnd(4), strides=[2, 2], auto_pad="SAME_UPPER", group=4)
conv("conv2d kernel as large as the padded input", rnd(1, 2, 3, 3),
     rnd(2, 2, 5, 5), None, pads=[1, 1, 1, 1])
# conv 1-D and 3-D
x1 = rnd(2, 3, 10)
conv("conv1d", x1, rnd(5, 3, 3), rnd(5))
conv("conv1d stride 2 dilation 2 pads 1,2", x1, rnd(5, 3, 3), rnd(5),
     pads=[1, 2], strides=[2], dil=[2])
conv("conv1d depthwise SAME_LOWER", x1, rnd(3, 1, 4), rnd(3),
     auto_pad="SAME_LOWER", group=3)
x3 = rnd(1, 2, 4, 5, 5)
conv("conv3d", x3, rnd(3, 2, 2, 3, 3), rnd(3), pads=[1, 0, 1, 0, 1, 1],
     strides=[1, 2, 2])
conv("conv3d depthwise", x3, rnd(2, 1, 3, 3, 3), rnd(2),
     pads=[1, 1, 1, 1, 1, 1], group=2)


# ConvTranspose 2-D: the full transposed convolution (no pads), zero rows
# added at the end for output_padding, then cropped by the pads
def convt(name, x, w, b=None, strides=(1, 1), dil=(1, 1), pads=None,
          opad=(0, 0), group=1, output_shape=None, auto_pad=None):
    params = {}
    k = list(w.shape[2:])
    ins = list(x.shape[2:])
    if strides != (1, 1):
        params["strides"] = list(strides)
    if dil != (1, 1):
        params["dilations"] = list(dil)
    if group != 1:
        params["group"] = group
    if opad != (0, 0):
        params["output_padding"] = list(opad)
    full = F.conv_transpose2d(x, w, None, stride=strides, dilation=dil,
                              groups=group)
    full = F.pad(full, [0, opad[1], 0, opad[0]])
    fs = [strides[i] * (ins[i] - 1) + opad[i] + (k[i] - 1) * dil[i] + 1
          for i in range(2)]
    if output_shape is not None or auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        if output_shape is not None:
            params["output_shape"] = output_shape
            osh = output_shape
        else:
            osh = [ins[i] * strides[i] for i in range(2)]
        if auto_pad:
            params["auto_pad"] = auto_pad
        # ONNX ConvTranspose: total = full - output_shape; SAME_UPPER puts
        # the larger half at the end, anything else at the start
        p = [0] * 4
        for i in range(2):
            tot = fs[i] - osh[i]
            if auto_pad == "SAME_UPPER":
                p[i], p[i + 2] = tot // 2, tot - tot // 2
            else:
                p[i], p[i + 2] = tot - tot // 2, tot // 2
    else:
        p = pads or [0, 0, 0, 0]
        if pads:
            params["pads"] = pads
    y = full[:, :, p[0]:fs[0] - p[2], p[1]:fs[1] - p[3]]
    if b is not None:
        y = y + b.view(1, -1, 1, 1)
    add(name, "conv_transpose", params,
        [x, w] + ([b] if b is not None else []), y)


xt = rnd(2, 4, 3, 4)
convt("conv_transpose2d", xt, rnd(4, 3, 3, 3), rnd(3))
convt("conv_transpose2d stride 2 pads 1 output_padding 1", xt,
      rnd(4, 3, 3, 3), rnd(3), strides=(2, 2), pads=[1, 1, 1, 1],
      opad=(1, 1))
convt("conv_transpose2d stride 2,3 dilation 2 asymmetric pads", xt,
      rnd(4, 2, 3, 2), None, strides=(2, 3), dil=(2, 2), pads=[0, 1, 2, 1])
convt("conv_transpose2d group 2", xt, rnd(4, 3, 2, 2), rnd(6),
      strides=(2, 2), group=2)
convt("conv_transpose2d output_shape", xt, rnd(4, 3, 3, 3), rnd(3),
      strides=(2, 2), output_shape=[6, 8])
convt("conv_transpose2d SAME_UPPER stride 2", xt, rnd(4, 3, 3, 3), None,
      strides=(2, 2), auto_pad="SAME_UPPER")
convt("conv_transpose2d SAME_LOWER stride 2", xt, rnd(4, 3, 4, 3), None,
      strides=(2, 2), auto_pad="SAME_LOWER")


# pools
def window_pads(ins, k, s, d, pads, auto_pad):
    n = len(ins)
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        return pads_same(ins, k, s, d, auto_pad == "SAME_UPPER")
    if auto_pad == "VALID":
        return [0] * (2 * n)
    return pads or [0] * (2 * n)


def pool_out(ins, k, s, d, p, ceil):
    # ONNX's formula; with ceil_mode a window must start inside the input
    # or its begin pad (PyTorch's rule)
    out = []
    for i in range(len(ins)):
        span = ins[i] + p[i] + p[i + len(ins)] - (k[i] - 1) * d[i] - 1
        o = (-(-span // s[i]) if ceil else span // s[i]) + 1
        if ceil and (o - 1) * s[i] >= ins[i] + p[i]:
            o -= 1
        out.append(o)
    return out


def pool_params(k, strides, dil, pads, auto_pad, ceil, extra=None):
    params = {"kernel_shape": k}
    if strides:
        params["strides"] = strides
    if dil:
        params["dilations"] = dil
    if pads and not auto_pad:
        params["pads"] = pads
    if auto_pad:
        params["auto_pad"] = auto_pad
    if ceil:
        params["ceil_mode"] = 1
    if extra:
        params.update(extra)
    return params


def maxpool(name, x, k, strides=None, dil=None, pads=None, auto_pad=None,
            ceil=False):
    n = x.dim() - 2
    s = strides or [1] * n
    d = dil or [1] * n
    p = window_pads(list(x.shape[2:]), k, s, d, pads, auto_pad)
    out = pool_out(list(x.shape[2:]), k, s, d, p, ceil)
    # pad with -inf, at the end as far as the last window reaches
    ends = [max(p[i + n], (out[i] - 1) * s[i] + (k[i] - 1) * d[i] + 1 -
                x.shape[2 + i] - p[i]) for i in range(n)]
    xp = fpad(x, p[:n] + ends, value=-math.inf)
    y = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}[n](
        xp, k, s, 0, d)
    y = y[(slice(None), slice(None)) + tuple(slice(0, o) for o in out)]
    add(name, "max_pool", pool_params(k, strides, dil, pads, auto_pad, ceil),
        [x], y)


def avgpool(name, x, k, strides=None, dil=None, pads=None, auto_pad=None,
            ceil=False, include=False):
    # sum of the window over the zero-padded input, divided by the count
    # of taps inside the input (count_include_pad=0) or inside input and
    # pads (1); taps of a ceil_mode window beyond the end pad never count
    n = x.dim() - 2
    s = strides or [1] * n
    d = dil or [1] * n
    p = window_pads(list(x.shape[2:]), k, s, d, pads, auto_pad)
    out = pool_out(list(x.shape[2:]), k, s, d, p, ceil)
    ends = [max(p[i + n], (out[i] - 1) * s[i] + (k[i] - 1) * d[i] + 1 -
                x.shape[2 + i] - p[i]) for i in range(n)]
    one = torch.ones((1, 1) + tuple(x.shape[2:]), dtype=torch.float64)
    inside = fpad(one, p[:n] + ends)
    padded = fpad(one, p[:n] + [0] * n, value=1.0)
    padded = fpad(padded, [0] * n + [p[i + n] for i in range(n)], value=1.0)
    padded = fpad(padded, [0] * n + [ends[i] - p[i + n] for i in range(n)])
    xp = fpad(x, p[:n] + ends)
    cv = CONV[n]
    ker = torch.ones((1, 1) + tuple(k), dtype=torch.float64)
    c = xp.shape[1]
    sums = cv(xp, ker.expand((c, 1) + tuple(k)).contiguous(), None,
              stride=s, dilation=d, groups=c)
    cnt = cv(padded if include else inside, ker, None, stride=s, dilation=d)
    sl = (slice(None), slice(None)) + tuple(slice(0, o) for o in out)
    y = sums[sl] / cnt[sl]
    extra = {"count_include_pad": 1} if include else None
    add(name, "average_pool",
        pool_params(k, strides, dil, pads, auto_pad, ceil, extra), [x], y)


xp2 = rnd(2, 3, 7, 8)
maxpool("max_pool 2x2", xp2, [2, 2], strides=[2, 2])
maxpool("max_pool 3x3 stride 2 pads 1", xp2, [3, 3], strides=[2, 2],
        pads=[1, 1, 1, 1])
maxpool("max_pool ceil_mode", xp2, [3, 3], strides=[2, 2], ceil=True)
maxpool("max_pool ceil_mode pads 1", xp2, [2, 2], strides=[2, 2],
        pads=[1, 1, 1, 1], ceil=True)
maxpool("max_pool dilations 2", xp2, [2, 3], strides=[1, 2], dil=[2, 2])
maxpool("max_pool asymmetric pads", xp2, [3, 2], pads=[0, 1, 2, 0])
maxpool("max_pool SAME_UPPER stride 2", xp2, [3, 3], strides=[2, 2],
        auto_pad="SAME_UPPER")
maxpool("max_pool SAME_LOWER stride 2", xp2, [2, 2], strides=[2, 2],
        auto_pad="SAME_LOWER")
maxpool("max_pool 1d", rnd(2, 3, 11), [3], strides=[2], pads=[1, 1],
        ceil=True)
maxpool("max_pool 3d", rnd(1, 2, 4, 5, 6), [2, 2, 3], strides=[2, 2, 2],
        pads=[0, 1, 1, 1, 0, 1])
avgpool("average_pool 2x2", xp2, [2, 2], strides=[2, 2])
avgpool("average_pool 3x3 pads 1 exclude pad", xp2, [3, 3], strides=[2, 2],
        pads=[1, 1, 1, 1])
avgpool("average_pool 3x3 pads 1 count_include_pad", xp2, [3, 3],
        strides=[2, 2], pads=[1, 1, 1, 1], include=True)
avgpool("average_pool ceil_mode exclude pad", xp2, [3, 3], strides=[2, 2],
        pads=[1, 1, 1, 1], ceil=True)
avgpool("average_pool ceil_mode count_include_pad", xp2, [3, 3],
        strides=[2, 2], pads=[1, 1, 1, 1], ceil=True, include=True)
avgpool("average_pool asymmetric pads count_include_pad", xp2, [2, 3],
        pads=[1, 0, 0, 2], include=True)
avgpool("average_pool SAME_UPPER stride 2", xp2, [3, 3], strides=[2, 2],
        auto_pad="SAME_UPPER")
avgpool("average_pool dilations 2", xp2, [2, 2], dil=[2, 2],
        pads=[1, 1, 1, 1])
avgpool("average_pool 1d count_include_pad", rnd(2, 3, 9), [3],
        strides=[2], pads=[1, 1], include=True)
avgpool("average_pool 3d", rnd(1, 2, 4, 5, 6), [2, 2, 3], strides=[2, 2, 2],
        pads=[0, 1, 1, 1, 0, 1])
# torch's own ceil_mode / count_include_pad semantics, as a cross-check of
# the rule above on the symmetric case
y = F.avg_pool2d(xp2, 3, 2, 1, ceil_mode=True, count_include_pad=True)
add("average_pool torch avg_pool2d ceil_mode count_include_pad",
    "average_pool", {"kernel_shape": [3, 3], "strides": [2, 2],
                     "pads": [1, 1, 1, 1], "ceil_mode": 1,
                     "count_include_pad": 1}, [xp2], y)
y = F.max_pool2d(xp2, 3, 2, 1, ceil_mode=True)
add("max_pool torch max_pool2d ceil_mode", "max_pool",
    {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1],
     "ceil_mode": 1}, [xp2], y)

xg = rnd(2, 3, 4, 5)
add("global_average_pool", "global_average_pool", {}, [xg],
    xg.mean(dim=(2, 3), keepdim=True))
add("global_max_pool", "global_max_pool", {}, [xg],
    xg.amax(dim=(2, 3), keepdim=True))
xg1 = rnd(2, 3, 7)
add("global_average_pool 1d", "global_average_pool", {}, [xg1],
    xg1.mean(dim=2, keepdim=True))
add("global_max_pool 1d", "global_max_pool", {}, [xg1],
    xg1.amax(dim=2, keepdim=True))

# normalizations
xb = rnd(2, 3, 4, 5)
sc, bi, mu, var = rnd(3), rnd(3), rnd(3), pos(3)
add("batch_norm", "batch_norm", {}, [xb, sc, bi, mu, var],
    F.batch_norm(xb, mu, var, sc, bi, False, 0.0, 1e-5))
add("batch_norm epsilon 1e-2", "batch_norm", {"epsilon": 1e-2},
    [xb, sc, bi, mu, var], F.batch_norm(xb, mu, var, sc, bi, False, 0.0,
                                        1e-2))
xb2 = rnd(4, 3)
add("batch_norm (N, C)", "batch_norm", {}, [xb2, sc, bi, mu, var],
    F.batch_norm(xb2, mu, var, sc, bi, False, 0.0, 1e-5))
xl = rnd(2, 3, 4)
s4, b4 = rnd(4), rnd(4)
add("layer_norm axis -1", "layer_norm", {}, [xl, s4, b4],
    F.layer_norm(xl, [4], s4, b4, 1e-5))
s34, b34 = rnd(3, 4), rnd(3, 4)
add("layer_norm axis 1 no bias epsilon 1e-3", "layer_norm",
    {"axis": 1, "epsilon": 1e-3}, [xl, s34],
    F.layer_norm(xl, [3, 4], s34, None, 1e-3))
s234 = rnd(2, 3, 4)
add("layer_norm axis 0", "layer_norm", {"axis": 0}, [xl, s234],
    F.layer_norm(xl, [2, 3, 4], s234, None, 1e-5))
xi = rnd(2, 3, 4, 5)
si, bi2 = rnd(3), rnd(3)
add("instance_norm", "instance_norm", {}, [xi, si, bi2],
    F.instance_norm(xi, weight=si, bias=bi2, eps=1e-5))
xi1 = rnd(2, 3, 6)
add("instance_norm 1d epsilon 1e-2", "instance_norm", {"epsilon": 1e-2},
    [xi1, si, bi2], F.instance_norm(xi1, weight=si, bias=bi2, eps=1e-2))

json.dump({"made_by": "tests/data/cnn/make-cases.py, torch " +
           torch.__version__, "cases": cases}, sys.stdout, indent=None,
          separators=(",", ":"))
sys.stdout.write("\n")
