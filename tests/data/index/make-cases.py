#!/usr/bin/python3
# tests/data/index/make-cases.py: writes tests/data/index/cases.json, the
# expected values of the index ops (src/ops/index.c) that
# tests/unit/test-index.c checks, computed by numpy 1.24 and PyTorch 1.13
# (Debian's, /usr/bin/python3), not by gptop:
#   gather_elements   numpy.take_along_axis
#   scatter_elements  torch.Tensor.scatter / scatter_reduce (sum, prod,
#                     amax, amin, include_self=True)
#   gather_nd         numpy advanced indexing x[tuple(coordinates)], per
#                     batch for batch_dims
#   scatter_nd        numpy advanced assignment and the ufuncs' .at
#                     (add, multiply, maximum, minimum)
#   top_k             numpy.argsort(kind="stable") of x (smallest) or of -x
#                     (largest), so ties keep the lower index first
#   cumsum            numpy.cumsum (exclusive: minus x; reverse: on the
#                     flipped axis)
#   one_hot           torch.nn.functional.one_hot, moved to the axis
# The data are small integers (exact in every dtype the test runs: float32,
# float64, int32, int64); the indices include negative ones, and duplicates
# where the reduction makes them meaningful.  Run:
#   /usr/bin/python3 tests/data/index/make-cases.py > tests/data/index/cases.json
import json
import warnings

import numpy as np
import torch

warnings.simplefilter("ignore")  # scatter_reduce is "beta" in torch 1.13
rng = np.random.default_rng(21)
cases = []


def t(a):
    a = np.asarray(a)
    return {"shape": list(a.shape), "data": [float(v) for v in a.flatten()]}


def add(name, op, params, inputs, outputs, kinds):
    # kinds: per input, "data" (runs in each data dtype) or "index"
    # (int32 and int64)
    cases.append({"name": name, "op": op, "params": params,
                  "kinds": kinds, "inputs": [t(x) for x in inputs],
                  "outputs": [t(y) for y in outputs]})


def data(*shape):
    return rng.integers(-9, 10, size=shape).astype(np.float64)


def norm(i, dim):
    return np.where(i < 0, i + dim, i)


# gather_elements
for shape, axis, ishape in [((3, 4), 0, (2, 4)), ((3, 4), 1, (3, 2)),
                            ((2, 3, 4), -1, (2, 3, 5)),
                            ((2, 3, 4), 1, (1, 2, 3)), ((5,), 0, (7,))]:
    x = data(*shape)
    dim = shape[axis]
    i = rng.integers(-dim, dim, size=ishape)
    # ONNX reads x's leading part outside the axis when the indices are
    # smaller there (take_along_axis would broadcast): slice x to them
    ax = axis % len(shape)
    xs = x[tuple(slice(None) if d == ax else slice(0, ishape[d])
                 for d in range(len(shape)))]
    add(f"gather_elements axis {axis} {shape}", "gather_elements",
        {"axis": axis}, [x, i], [np.take_along_axis(xs, norm(i, dim), axis)],
        ["data", "index"])

# scatter_elements: "none" without duplicates; the reductions with them
torch_red = {"add": "sum", "mul": "prod", "max": "amax", "min": "amin"}
for shape, axis, ishape in [((3, 4), 0, (2, 4)), ((3, 4), 1, (3, 3)),
                            ((2, 3, 4), -1, (2, 2, 4)),
                            ((2, 3, 4), 1, (2, 3, 2))]:
    dim = shape[axis]
    ax = axis % len(shape)
    for red in ["none", "add", "mul", "max", "min"]:
        x = data(*shape)
        if red == "none":
            # a permutation of the axis per line: no duplicates
            i = np.argsort(rng.random(ishape[:ax] + (dim,) + ishape[ax + 1:]),
                           axis=ax)
            i = np.take(i, range(ishape[ax]), axis=ax)
        else:
            i = rng.integers(0, dim, size=ishape)
        i = i - dim * (rng.random(i.shape) < 0.3)  # some negative
        u = data(*ishape)
        xt, it, ut = (torch.tensor(x), torch.tensor(norm(i, dim)),
                      torch.tensor(u))
        if red == "none":
            o = xt.scatter(ax, it, ut)
        else:
            o = xt.scatter_reduce(ax, it, ut, torch_red[red],
                                  include_self=True)
        add(f"scatter_elements axis {axis} {red} {shape}",
            "scatter_elements", {"axis": axis, "reduction": red},
            [x, i, u], [o.numpy()], ["data", "index", "data"])

# gather_nd
for shape, ishape, b in [((2, 2), (2, 2), 0), ((2, 2), (2, 1), 0),
                         ((2, 2, 2), (2, 2), 0), ((2, 2, 2), (2, 1, 2), 0),
                         ((3, 4, 5), (2, 3, 1), 0),
                         ((2, 3, 4), (2, 1), 1), ((2, 3, 4), (2, 3, 2), 1),
                         ((2, 2, 3, 4), (2, 2, 1, 1), 2)]:
    x = data(*shape)
    m = ishape[-1]
    i = np.stack([rng.integers(-shape[b + j], shape[b + j],
                               size=ishape[:-1]) for j in range(m)], axis=-1)
    ni = np.stack([norm(i[..., j], shape[b + j]) for j in range(m)], axis=-1)
    if b == 0:
        o = x[tuple(ni[..., j] for j in range(m))]
    else:
        nb = int(np.prod(shape[:b]))
        xb = x.reshape((nb,) + shape[b:])
        ib = ni.reshape((nb,) + ishape[b:])
        o = np.stack([xb[k][tuple(ib[k][..., j] for j in range(m))]
                      for k in range(nb)])
        o = o.reshape(ishape[:-1] + shape[b + m:])
    add(f"gather_nd {shape} {ishape} batch_dims {b}", "gather_nd",
        {"batch_dims": b}, [x, i], [o], ["data", "index"])

# scatter_nd
ufunc = {"add": np.add, "mul": np.multiply, "max": np.maximum,
         "min": np.minimum}
for shape, ishape in [((4, 4, 4), (2, 1)), ((8,), (4, 1)),
                      ((3, 4), (2, 2)), ((2, 3, 4), (2, 2, 2))]:
    m = ishape[-1]
    for red in ["none", "add", "mul", "max", "min"]:
        x = data(*shape)
        if red == "none":
            # distinct tuples
            flat = rng.permutation(int(np.prod(shape[:m])))[
                :int(np.prod(ishape[:-1]))]
            ni = np.stack(np.unravel_index(flat, shape[:m]), axis=-1)
            ni = ni.reshape(ishape)
        else:
            ni = np.stack([rng.integers(0, shape[j], size=ishape[:-1])
                           for j in range(m)], axis=-1)
        i = ni - np.array(shape[:m]) * (rng.random(ni.shape) < 0.3)
        u = data(*(ishape[:-1] + shape[m:]))
        o = x.copy()
        idx = tuple(ni[..., j] for j in range(m))
        if red == "none":
            o[idx] = u
        else:
            ufunc[red].at(o, idx, u)
        add(f"scatter_nd {shape} {ishape} {red}", "scatter_nd",
            {"reduction": red}, [x, i, u], [o], ["data", "index", "data"])

# top_k: ties on purpose (few distinct values)
for shape, axis, k in [((3, 4), 1, 3), ((3, 4), -1, 4), ((5, 3), 0, 2),
                       ((2, 7, 3), 1, 5), ((9,), 0, 0), ((16,), 0, 16),
                       ((33,), 0, 7)]:
    for largest in [True, False]:
        x = rng.integers(-3, 4, size=shape).astype(np.float64)
        order = np.argsort(-x if largest else x, axis=axis, kind="stable")
        ix = np.take(order, range(k), axis=axis)
        add(f"top_k {shape} axis {axis} k {k} "
            f"{'largest' if largest else 'smallest'}", "top_k",
            {"k": k, "axis": axis, "largest": largest},
            [x], [np.take_along_axis(x, ix, axis), ix], ["data"])

# cumsum
for shape, axis in [((5,), 0), ((2, 3), 0), ((2, 3), 1), ((2, 3, 4), 1),
                    ((2, 3, 4), -1)]:
    for excl in [False, True]:
        for rev in [False, True]:
            x = data(*shape)
            xx = np.flip(x, axis) if rev else x
            o = np.cumsum(xx, axis=axis)
            if excl:
                o = o - xx
            if rev:
                o = np.flip(o, axis)
            add(f"cumsum {shape} axis {axis} exclusive {excl} reverse {rev}",
                "cumsum", {"axis": axis, "exclusive": excl, "reverse": rev},
                [x], [o], ["data"])

# one_hot: indices in [-depth, depth) and out of range (a row of off)
for ishape, depth, axis in [((3,), 5, -1), ((2, 3), 4, 0), ((2, 3), 4, 1),
                            ((2, 3), 6, -1), ((2, 2, 2), 3, -2)]:
    i = rng.integers(-depth - 2, depth + 2, size=ishape)
    ni = norm(i, depth)
    good = (ni >= 0) & (ni < depth)
    oh = torch.nn.functional.one_hot(torch.tensor(np.where(good, ni, 0)),
                                     depth).numpy() * good[..., None]
    oh = np.moveaxis(oh, -1, axis)
    values = np.array([2.0, 7.0])
    o = np.where(oh == 1, values[1], values[0])
    add(f"one_hot {ishape} depth {depth} axis {axis}", "one_hot",
        {"depth": depth, "axis": axis}, [i, values], [o], ["index", "data"])

print(json.dumps({"made_by": "tests/data/index/make-cases.py, numpy "
                  + np.__version__ + ", torch " + torch.__version__,
                  "cases": cases}, separators=(",", ":")))
