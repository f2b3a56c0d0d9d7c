#!/usr/bin/python3
"""bench/numpy/bench.py: the numpy peer of `make bench` row 5 (end to end).

For each example graph (add3, logreg, mlp, chain) it reads the .npy files
bench/dump-inputs wrote (DIR/GRAPH/*.npy, found through the dumped copy's
"init" entries, the files gptop's side loads too) and runs the model the
way gptop's batch mode does: one call = one round, every function of the
graph once in file order (logreg: train then predict), a function's
outputs computed before the shared variables are updated.

Each model is written as a numpy expert would write it for speed, not as
models.py writes it for clarity: every buffer is allocated once, every
ufunc writes into a preallocated buffer (out=), dot/matmul write into
preallocated outputs, the shared weights are updated in place, transposes
are views (BLAS reads them with its transpose flag).  Each call still
computes everything from the inputs, as gptop does (nothing hoisted out
of the loop that depends on an input).  chain has two versions, one
ufunc per op in place over the whole vector and the same cache-blocked
(the numexpr trick); the faster one is the peer.

Modes:

  bench.py --data DIR [--calls N] [--reps K]
      print per-call time (best of K batches of N calls) and checksums.
  bench.py --data DIR --serve
      read commands from stdin, answer on stdout (one line, or lines
      ending with "end"), so that bench-core can interleave its own runs
      with ours:
        time GRAPH N     run N more calls; answer "ns_per_call VERSION"
                         (the best version of this batch)
        check GRAPH N    from the initial values, N calls; answer one
                         line per output and shared variable,
                         "ITEM dtype numel sum asum", then "end"
        quit

Checksums: sum and asum (sum of |x|) of each output (FUNCTION:OUTPUT) and
each shared variable (shared:NAME) as float64, summed exactly (math.fsum).
Needs numpy only (Debian's python3-numpy: /usr/bin/python3).
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np


def load(folder, name):
    """The variables' initial values, read from the dumped .npy files."""
    with open(os.path.join(folder, name + ".json"), encoding="utf-8") as f:
        graph = json.load(f)
    vals = {}
    for vname, v in graph["variables"].items():
        a = np.load(os.path.join(folder, v["init"]["npy"]))
        assert a.dtype == np.dtype(v["dtype"]), (vname, a.dtype)
        assert list(a.shape) == v["shape"], (vname, a.shape)
        vals[vname] = np.ascontiguousarray(a)
    return graph, vals


class Add3:
    """(x + y + z) * 2 on three 10-element vectors."""
    versions = ("out=",)

    def __init__(self, v):
        self.x, self.y, self.z = v["x"], v["y"], v["z"]
        self.out = np.empty_like(self.x)

    def run(self, calls, version):
        x, y, z, out = self.x, self.y, self.z, self.out
        add, mul = np.add, np.multiply
        for _ in range(calls):
            add(x, y, out=out)
            add(out, z, out=out)
            mul(out, 2.0, out=out)

    def outputs(self):
        return {"f:out": self.out}


class Chain:
    """-exp(sqrt((tanh(x * 1.5 + 0.5) * 2 - 0.25)^2 + 1)), 1M float64."""
    versions = ("out=", "blocked")
    BLOCK = 4096    # 32 KiB of float64: stays in L1/L2 across the 10 ops

    def __init__(self, v):
        self.x = v["x"]
        self.out = np.empty_like(self.x)
        n = self.x.size
        self.blocks = [(self.x[i:i + self.BLOCK], self.out[i:i + self.BLOCK])
                       for i in range(0, n, self.BLOCK)]

    @staticmethod
    def ops(x, a):
        np.multiply(x, 1.5, out=a)
        np.add(a, 0.5, out=a)
        np.tanh(a, out=a)
        np.multiply(a, 2.0, out=a)
        np.subtract(a, 0.25, out=a)
        np.square(a, out=a)
        np.add(a, 1.0, out=a)
        np.sqrt(a, out=a)
        np.exp(a, out=a)
        np.negative(a, out=a)

    def run(self, calls, version):
        ops = self.ops
        if version == "out=":
            for _ in range(calls):
                ops(self.x, self.out)
        else:
            blocks = self.blocks
            for _ in range(calls):
                for x, a in blocks:
                    ops(x, a)

    def outputs(self):
        return {"f:out": self.out}


class Logreg:
    """The logistic regression training step, then predict."""
    versions = ("out=",)

    def __init__(self, v):
        self.x, self.y = v["x"], v["y"]
        self.w, self.b = v["w"].copy(), v["b"].copy()
        n = self.x.shape[0]
        self.n = n
        e = np.empty
        self.z, self.p = e(n), e(n)
        self.t1, self.t2, self.omy = e(n), e(n), e(n)
        self.xent, self.d = e(n), e(n)
        self.pred = e(n, dtype=bool)
        self.pred2 = e(n, dtype=bool)
        self.gw, self.w2 = e(self.w.shape), e(self.w.shape)
        self.cost = np.float64(0)

    @staticmethod
    def sigmoid(z, p):
        np.negative(z, out=p)
        np.exp(p, out=p)
        np.add(p, 1.0, out=p)
        np.reciprocal(p, out=p)

    def run(self, calls, version):
        x, y, w, b, n = self.x, self.y, self.w, self.b, self.n
        z, p, t1, t2, omy = self.z, self.p, self.t1, self.t2, self.omy
        xent, d, gw, w2 = self.xent, self.d, self.gw, self.w2
        sigmoid = self.sigmoid
        for _ in range(calls):
            # train: outputs prediction, xent, cost; then the update
            np.dot(x, w, out=z)
            np.add(z, b, out=z)
            sigmoid(z, p)
            np.greater(p, 0.5, out=self.pred)
            np.log(p, out=t1)
            np.multiply(y, t1, out=t1)           # y log p
            np.subtract(1.0, p, out=t2)
            np.log(t2, out=t2)
            np.subtract(1.0, y, out=omy)
            np.multiply(omy, t2, out=t2)         # (1 - y) log(1 - p)
            np.negative(t1, out=xent)
            np.subtract(xent, t2, out=xent)
            self.cost = xent.mean() + 0.01 * np.dot(w, w)
            np.subtract(p, y, out=d)
            np.dot(d, x, out=gw)                 # x.T (p - y)
            np.divide(gw, n, out=gw)
            np.multiply(w, 0.02, out=w2)
            np.add(gw, w2, out=gw)
            gb = d.mean()
            np.multiply(gw, 0.1, out=gw)
            np.subtract(w, gw, out=w)
            b -= 0.1 * gb
            # predict
            np.dot(x, w, out=z)
            np.add(z, b, out=z)
            sigmoid(z, p)
            np.greater(p, 0.5, out=self.pred2)

    def outputs(self):
        return {"train:prediction": self.pred, "train:xent": self.xent,
                "train:cost": self.cost, "predict:prediction": self.pred2,
                "shared:w": self.w, "shared:b": self.b}


class Mlp:
    """The 784-512-512-10 tanh MLP training step, batch 128."""
    versions = ("out=",)

    def __init__(self, v):
        self.x, self.y = v["x"], v["y"]
        self.P = {k: v[k].copy() for k in ("W1", "b1", "W2", "b2", "W3",
                                          "b3")}
        x, P = self.x, self.P
        n, k = x.shape[0], P["W3"].shape[1]
        h = P["W1"].shape[1]
        h2 = P["W2"].shape[1]
        e = np.empty
        self.n, self.rows = n, np.arange(n)
        self.h1, self.h2, self.z3 = e((n, h)), e((n, h2)), e((n, k))
        self.m = e((n, 1))
        self.s = e((n, 1))
        self.nll = e(n)
        self.pred = e(n, dtype=np.int64)
        self.g3, self.g2, self.g1 = e((n, k)), e((n, h2)), e((n, h))
        self.d2, self.d1 = e((n, h2)), e((n, h))
        self.G = {name: e(a.shape) for name, a in P.items()}
        self.cost = np.float64(0)

    def run(self, calls, version):
        x, y, P, G, n, rows = self.x, self.y, self.P, self.G, self.n, \
            self.rows
        W1, b1, W2, b2, W3, b3 = (P[k] for k in ("W1", "b1", "W2", "b2",
                                                 "W3", "b3"))
        h1, h2, z3, m, s, nll = self.h1, self.h2, self.z3, self.m, self.s, \
            self.nll
        g3, g2, g1, d2, d1 = self.g3, self.g2, self.g1, self.d2, self.d1
        inv_n = 1.0 / n
        for _ in range(calls):
            np.matmul(x, W1, out=h1)
            np.add(h1, b1, out=h1)
            np.tanh(h1, out=h1)
            np.matmul(h1, W2, out=h2)
            np.add(h2, b2, out=h2)
            np.tanh(h2, out=h2)
            np.matmul(h2, W3, out=z3)
            np.add(z3, b3, out=z3)
            # softmax in place: z3 becomes p
            np.max(z3, axis=1, keepdims=True, out=m)
            np.subtract(z3, m, out=z3)
            np.exp(z3, out=z3)
            np.sum(z3, axis=1, keepdims=True, out=s)
            np.divide(z3, s, out=z3)
            p = z3
            np.log(p[rows, y], out=nll)
            np.negative(nll, out=nll)
            self.cost = nll.mean()
            np.argmax(p, axis=1, out=self.pred)
            # backward: g3 = (p - onehot) / n
            np.copyto(g3, p)
            g3[rows, y] -= 1.0
            np.multiply(g3, inv_n, out=g3)
            np.matmul(h2.T, g3, out=G["W3"])
            np.sum(g3, axis=0, out=G["b3"])
            np.matmul(g3, W3.T, out=g2)
            np.multiply(h2, h2, out=d2)
            np.subtract(1.0, d2, out=d2)
            np.multiply(g2, d2, out=g2)
            np.matmul(h1.T, g2, out=G["W2"])
            np.sum(g2, axis=0, out=G["b2"])
            np.matmul(g2, W2.T, out=g1)
            np.multiply(h1, h1, out=d1)
            np.subtract(1.0, d1, out=d1)
            np.multiply(g1, d1, out=g1)
            np.matmul(x.T, g1, out=G["W1"])
            np.sum(g1, axis=0, out=G["b1"])
            # SGD in place
            for k in ("W1", "b1", "W2", "b2", "W3", "b3"):
                g = G[k]
                np.multiply(g, 0.01, out=g)
                np.subtract(P[k], g, out=P[k])

    def outputs(self):
        out = {"train:cost": self.cost, "train:pred": self.pred}
        for k, a in self.P.items():
            out["shared:" + k] = a
        return out


MODELS = {"add3": Add3, "chain": Chain, "logreg": Logreg, "mlp": Mlp}


def checksum(outs):
    lines = []
    for item in sorted(outs):
        a = np.asarray(outs[item])
        f = a.astype(np.float64).ravel()
        lines.append("%s %s %d %r %r" % (item, a.dtype, f.size,
                                          math.fsum(f), math.fsum(np.abs(f))))
    return lines


class Bench:
    def __init__(self, data):
        self.data = data
        self.vals = {}
        self.live = {}

    def fresh(self, name):
        if name not in self.vals:
            self.vals[name] = load(os.path.join(self.data, name), name)[1]
        return MODELS[name](self.vals[name])

    def time(self, name, calls):
        """ns per call and version name, the best version of one batch."""
        if name not in self.live:
            self.live[name] = self.fresh(name)
            for v in self.live[name].versions:
                self.live[name].run(1, v)       # warm up
        m = self.live[name]
        best = None
        for v in m.versions:
            t0 = time.perf_counter_ns()
            m.run(calls, v)
            ns = (time.perf_counter_ns() - t0) / calls
            if best is None or ns < best[0]:
                best = (ns, v)
        return best

    def check(self, name, calls, version=None):
        m = self.fresh(name)
        m.run(calls, version or m.versions[0])
        return checksum(m.outputs())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True, help="folders made by "
                    "dump-inputs: DATA/GRAPH/GRAPH.json and its .npy files")
    ap.add_argument("--serve", action="store_true")
    ap.add_argument("--calls", type=int, default=0)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    b = Bench(args.data)
    if args.serve:
        for line in sys.stdin:
            w = line.split()
            if not w:
                continue
            if w[0] == "quit":
                break
            if w[0] == "time":
                ns, v = b.time(w[1], int(w[2]))
                print("%.1f %s" % (ns, v), flush=True)
            elif w[0] == "check":
                for ln in b.check(w[1], int(w[2])):
                    print(ln)
                print("end", flush=True)
            else:
                print("error unknown command %s" % w[0], flush=True)
        return
    default_calls = {"add3": 20000, "chain": 10, "logreg": 50, "mlp": 10}
    print("numpy %s, Python %s" % (np.__version__, sys.version.split()[0]))
    for name in ("add3", "logreg", "mlp", "chain"):
        calls = args.calls or default_calls[name]
        best = min(b.time(name, calls) for _ in range(args.reps))
        print("%-7s %12.3f us per call (best of %d x %d calls, %s)" % (
            name, best[0] / 1e3, args.reps, calls, best[1]))
        for v in MODELS[name].versions:
            for ln in b.check(name, calls, v):
                print("   %-8s %s" % (v, ln))


if __name__ == "__main__":
    main()
