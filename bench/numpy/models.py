#!/usr/bin/python3
"""bench/numpy/models.py: the example graphs of data/graphs computed with
numpy, independently of gptop, from the same data; prints the checksums
tests/unit/test-models.c compares gptop against (tests/models/expected.txt).

    /usr/bin/python3 bench/numpy/models.py \\
        --dump-inputs build/bench/dump-inputs > tests/models/expected.txt

For each graph (add3, chain, logreg, mlp, mlp32, cnn) it runs dump-inputs
(bench/dump-inputs.c) into a temporary folder, which writes every input
and shared variable's initial value as NAME.npy and a copy of the graph
that reads them; it reads those .npy files (finding them through the
copy's "init" entries), then runs the model as gptop's batch mode does:
CALLS rounds, each calling every function once in file order, a function
computing all its outputs before any shared variable is updated.  The
models are written here from their mathematics (doc/models.md), not from
the graphs' nodes: the MLP's output gradient is the closed form
(softmax - onehot) / 128, the logistic regression's gradients the
formulas, tanh' = 1 - tanh^2.  mlp32 runs in float32 throughout, as
numpy does for float32 arrays and Python scalars.  cnn's convolutions
are sums over numpy's sliding windows (einsum), its pools reshapes.

With --data DIR the .npy folders are read from DIR/GRAPH/ instead (made
beforehand by `dump-inputs data/graphs/GRAPH.json DIR/GRAPH`).

Output, one line per statistic: GRAPH CALLS ITEM STAT VALUE, where ITEM
is FUNCTION:OUTPUT or shared:VARIABLE (the values after the last round)
and STAT is dtype, numel, sum, asum (sum of |x|), sumsq, min, max, or @K
(element K in C order).  Sums are exact sums of the float64 values
(math.fsum).  Needs numpy (Debian's python3-numpy: /usr/bin/python3).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

GRAPHS = [("add3", 2), ("chain", 2), ("logreg", 10), ("mlp", 10),
          ("mlp32", 10), ("cnn", 2)]


def load(folder, name):
    """The dumped graph copy and its variables' initial values."""
    with open(os.path.join(folder, name + ".json"), encoding="utf-8") as f:
        graph = json.load(f)
    vals = {}
    for vname, v in graph["variables"].items():
        a = np.load(os.path.join(folder, v["init"]["npy"]))
        assert a.dtype == np.dtype(v["dtype"]), (vname, a.dtype)
        assert list(a.shape) == v["shape"], (vname, a.shape)
        vals[vname] = a
    return graph, vals


def add3(v, calls):
    x, y, z = v["x"], v["y"], v["z"]
    for _ in range(calls):
        out = (x + y + z) * 2
    return {"f": {"out": out}}, {}


def chain(v, calls):
    x = v["x"]
    for _ in range(calls):
        a = np.tanh(x * 1.5 + 0.5) * 2 - 0.25
        out = -np.exp(np.sqrt(a * a + 1))
    return {"f": {"out": out}}, {}


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def logreg(v, calls):
    x, y = v["x"], v["y"]
    w, b = v["w"].copy(), v["b"].copy()
    n = x.shape[0]
    for _ in range(calls):
        # train
        p_1 = sigmoid(x @ w + b)
        prediction = p_1 > 0.5
        xent = -y * np.log(p_1) - (1 - y) * np.log(1 - p_1)
        cost = xent.mean() + 0.01 * (w ** 2).sum()
        gw = x.T @ (p_1 - y) / n + 0.02 * w
        gb = (p_1 - y).mean()
        train = {"prediction": prediction, "xent": xent, "cost": cost}
        w, b = w - 0.1 * gw, b - 0.1 * gb
        # predict
        predict = {"prediction": sigmoid(x @ w + b) > 0.5}
    return {"train": train, "predict": predict}, {"w": w, "b": b}


def mlp(v, calls):
    x, y = v["x"], v["y"]
    params = {k: v[k].copy() for k in ("W1", "b1", "W2", "b2", "W3", "b3")}
    dt = x.dtype.type
    n, k = x.shape[0], params["W3"].shape[1]
    onehot = np.zeros((n, k), dtype=dt)
    onehot[np.arange(n), y] = 1
    for _ in range(calls):
        P = params
        h1 = np.tanh(x @ P["W1"] + P["b1"])
        h2 = np.tanh(h1 @ P["W2"] + P["b2"])
        z3 = h2 @ P["W3"] + P["b3"]
        e = np.exp(z3 - z3.max(axis=1, keepdims=True))
        p = e / e.sum(axis=1, keepdims=True)
        nll = -np.log(p[np.arange(n), y])
        cost = nll.mean()
        pred = p.argmax(axis=1)
        g3 = (p - onehot) / dt(n)
        g2 = (g3 @ P["W3"].T) * (1 - h2 * h2)
        g1 = (g2 @ P["W2"].T) * (1 - h1 * h1)
        grads = {"W3": h2.T @ g3, "b3": g3.sum(axis=0),
                 "W2": h1.T @ g2, "b2": g2.sum(axis=0),
                 "W1": x.T @ g1, "b1": g1.sum(axis=0)}
        for name in params:
            params[name] = P[name] - 0.01 * grads[name]
            assert params[name].dtype == dt
        train = {"cost": cost, "pred": pred}
    assert cost.dtype == dt
    return {"train": train}, params


def conv2d(x, w, b=None, pad=0, groups=1):
    """Cross-correlation (ONNX Conv), stride 1, symmetric pad, from the
    definition: every output is a sum over its window (einsum over
    numpy's sliding windows)."""
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw),
                                                   axis=(2, 3))
    mg = m // groups
    outs = []
    for g in range(groups):
        xg = win[:, g * cg:(g + 1) * cg]
        wg = w[g * mg:(g + 1) * mg]
        outs.append(np.einsum("nchwij,mcij->nmhw", xg, wg))
    y = np.concatenate(outs, axis=1)
    if b is not None:
        y = y + b.reshape(1, -1, 1, 1)
    return y


def cnn(v, calls):
    x = v["x"]
    dt = x.dtype.type
    for _ in range(calls):
        c1 = conv2d(x, v["W1"], v["b1"], pad=1)
        n1 = (c1 - v["mu"].reshape(1, -1, 1, 1)) / np.sqrt(
            v["var"].reshape(1, -1, 1, 1) + dt(1e-5)) * \
            v["gamma"].reshape(1, -1, 1, 1) + v["beta"].reshape(1, -1, 1, 1)
        r1 = np.maximum(n1, 0)
        n, c, h, w = r1.shape
        p1 = r1.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))
        d2 = conv2d(p1, v["Wd"], pad=1, groups=16)
        c2 = conv2d(d2, v["Wp"], v["bp"])
        r2 = np.maximum(c2, 0)
        f2 = r2.mean(axis=(2, 3))
        z3 = f2 @ v["W3"] + v["b3"]
        e = np.exp(z3 - z3.max(axis=1, keepdims=True))
        p = e / e.sum(axis=1, keepdims=True)
        pred = p.argmax(axis=1)
    assert p.dtype == dt, p.dtype
    shared = {k: v[k] for k in v if k != "x"}
    return {"infer": {"p": p, "pred": pred}}, shared


MODELS = {"add3": add3, "chain": chain, "logreg": logreg, "mlp": mlp,
          "mlp32": mlp, "cnn": cnn}


def stats(a):
    a = np.asarray(a)
    f = a.astype(np.float64).ravel()
    n = f.size
    out = [("dtype", str(a.dtype)), ("numel", str(n))]
    if n == 0:
        return out
    out += [("sum", repr(math.fsum(f))),
            ("asum", repr(math.fsum(np.abs(f)))),
            ("sumsq", repr(math.fsum(f * f))),
            ("min", repr(float(f.min()))), ("max", repr(float(f.max())))]
    for i in sorted({0, n // 3, n // 2, (2 * n) // 3, n - 1}):
        out.append(("@%d" % i, repr(float(f[i]))))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dump-inputs", help="the dump-inputs program")
    ap.add_argument("--data", help="folders made by dump-inputs")
    ap.add_argument("--graphs", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "data",
        "graphs"), help="the graph files (default: data/graphs)")
    args = ap.parse_args()
    if (args.dump_inputs is None) == (args.data is None):
        ap.error("give one of --dump-inputs and --data")

    print("# tests/models/expected.txt: checksums of the example graphs "
          "computed by numpy.")
    print("# Made by bench/numpy/models.py (see its top), with numpy %s "
          "on Python %s:" % (np.__version__, sys.version.split()[0]))
    print("#   /usr/bin/python3 bench/numpy/models.py --dump-inputs "
          "BUILD/bench/dump-inputs > tests/models/expected.txt")
    print("# Lines: GRAPH CALLS ITEM STAT VALUE (ITEM: FUNCTION:OUTPUT or "
          "shared:VARIABLE after CALLS rounds).")
    with tempfile.TemporaryDirectory() as tmp:
        for name, calls in GRAPHS:
            if args.data is not None:
                folder = os.path.join(args.data, name)
            else:
                folder = os.path.join(tmp, name)
                subprocess.run([args.dump_inputs, os.path.join(
                    args.graphs, name + ".json"), folder], check=True)
            graph, vals = load(folder, name)
            outs, shared = MODELS[name](vals, calls)
            # what the graph declares is what was computed
            for fn, spec in graph["functions"].items():
                assert sorted(spec["outputs"]) == sorted(outs[fn]), fn
            assert sorted(shared) == sorted(
                k for k, v in graph["variables"].items()
                if v["kind"] == "shared"), name
            for fn, spec in graph["functions"].items():
                for out in spec["outputs"]:
                    for st, val in stats(outs[fn][out]):
                        print(name, calls, "%s:%s" % (fn, out), st, val)
            for var in graph["variables"]:
                if var in shared:
                    for st, val in stats(shared[var]):
                        print(name, calls, "shared:%s" % var, st, val)


if __name__ == "__main__":
    main()
