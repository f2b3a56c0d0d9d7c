#!/usr/bin/env python3
"""data/make-graphs.py: writes the model graphs data/graphs/logreg.json,
mlp.json, mlp32.json and cnn.json (gptop-graph/1, see
doc/graph-format.md).

The committed JSON files are what gptop and the tests use; this script is
how they were written, kept so a change to a model is made once, here, and
the files regenerated:

    python3 data/make-graphs.py            # rewrite the four files
    python3 data/make-graphs.py --check    # exit 1 if a file differs

Python 3 standard library only.  doc/models.md describes every node.

The models (all data from fixed seeds, so every run computes the same
numbers; no autodiff exists, so each backward node is written out):

  logreg  the Theano tutorial's logistic regression training step on
          400 examples of 784 features: sigmoid(x.w + b), cross-entropy,
          L2 penalty 0.01 sum(w^2), gradients by hand, SGD with rate 0.1.
  mlp     a 784-512-512-10 tanh MLP training step on a batch of 128:
          softmax output, mean categorical cross-entropy against integer
          labels, backward through crossentropy_categorical_1hot_grad and
          softmax_grad, SGD with rate 0.01 on W1, b1, W2, b2, W3, b3;
          Glorot-uniform initial weights, zero biases.
  mlp32   mlp in float32 (labels stay int64).
  cnn     a small CNN's inference in float32 on 8 images of 3x16x16:
          conv 3x3 (16) + batch norm + relu + max pool 2x2, depthwise
          3x3 + pointwise 1x1 (32) + relu, global average pool, dense
          32-10, softmax and argmax.
"""
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "graphs")


def var(kind, dtype, shape, init=None, doc=None):
    v = {"kind": kind, "dtype": dtype, "shape": shape}
    if init is not None:
        v["init"] = init
    if doc is not None:
        v["doc"] = doc
    return v


def node(op, inputs, outputs, params=None, doc=None):
    n = {"op": op, "inputs": inputs, "outputs": [outputs]
         if isinstance(outputs, str) else outputs}
    if params is not None:
        n["params"] = params
    if doc is not None:
        n["doc"] = doc
    return n


def logreg():
    N, F = 400, 784
    f8 = "float64"
    variables = {
        "x": var("input", f8, [N, F], {"normal": [0, 1], "seed": 101},
                 "400 examples of 784 features, standard normal"),
        "y": var("input", f8, [N], {"integers": [0, 2], "seed": 102},
                 "labels 0 or 1 (as the tutorial's dvector)"),
        "w": var("shared", f8, [F], {"normal": [0, 0.01], "seed": 103},
                 "weights, small random: normal(0, 0.01)"),
        "b": var("shared", f8, [], {"fill": 0}, "bias, 0"),
    }
    nodes = [
        # forward
        node("dot", ["x", "w"], "xw", doc="x.w, (400)"),
        node("add", ["xw", "b"], "z", doc="z = x.w + b"),
        node("sigmoid", ["z"], "p_1", doc="p_1 = P(y = 1 | x)"),
        node("gt", ["p_1", 0.5], "prediction", doc="p_1 > 0.5, bool"),
        node("log", ["p_1"], "log_p"),
        node("mul", ["y", "log_p"], "y_log_p"),
        node("sub", [1, "p_1"], "one_m_p"),
        node("log", ["one_m_p"], "log_1mp"),
        node("sub", [1, "y"], "one_m_y"),
        node("mul", ["one_m_y", "log_1mp"], "y0_log_1mp"),
        node("neg", ["y_log_p"], "neg_y_log_p"),
        node("sub", ["neg_y_log_p", "y0_log_1mp"], "xent",
             doc="xent = -y log(p_1) - (1 - y) log(1 - p_1)"),
        node("mean", ["xent"], "xent_mean"),
        node("sqr", ["w"], "w_sq"),
        node("sum", ["w_sq"], "w_l2"),
        node("mul", [0.01, "w_l2"], "penalty", doc="0.01 sum(w^2)"),
        node("add", ["xent_mean", "penalty"], "cost",
             doc="cost = mean(xent) + 0.01 sum(w^2)"),
        # backward: d cost / d z_i = (p_1[i] - y[i]) / 400
        node("sub", ["p_1", "y"], "p_m_y",
             doc="d xent_i / d z_i = p_1 - y"),
        node("transpose", ["x"], "x_T"),
        node("dot", ["x_T", "p_m_y"], "xT_pmy", doc="x.T (p_1 - y), (784)"),
        node("true_div", ["xT_pmy", N], "gw_xent",
             doc="d mean(xent) / d w = x.T (p_1 - y) / 400"),
        node("mul", [0.02, "w"], "gw_l2", doc="d 0.01 sum(w^2) / d w"),
        node("add", ["gw_xent", "gw_l2"], "gw", doc="d cost / d w"),
        node("mean", ["p_m_y"], "gb", doc="d cost / d b = mean(p_1 - y)"),
        # SGD
        node("mul", [0.1, "gw"], "step_w"),
        node("sub", ["w", "step_w"], "w_new", doc="w - 0.1 gw"),
        node("mul", [0.1, "gb"], "step_b"),
        node("sub", ["b", "step_b"], "b_new", doc="b - 0.1 gb"),
    ]
    functions = {
        "train": {"outputs": ["prediction", "xent", "cost"],
                  "updates": {"w": "w_new", "b": "b_new"},
                  "doc": "one gradient step; returns the predictions, "
                         "the per-example cross-entropy and the cost, "
                         "all computed before the update"},
        "predict": {"outputs": ["prediction"],
                    "doc": "p_1 > 0.5 with the current w and b"},
    }
    return {
        "format": "gptop-graph/1",
        "name": "logreg",
        "doc": "The Theano tutorial's logistic regression training step: "
               "400 examples x 784 features, float64, cost = mean "
               "cross-entropy + 0.01 sum(w^2), gradients written out, SGD "
               "with rate 0.1 (see doc/models.md).",
        "variables": variables,
        "nodes": nodes,
        "functions": functions,
    }


def glorot(fan_in, fan_out):
    return math.sqrt(6.0 / (fan_in + fan_out))


def mlp(dt):
    N, D, H, K = 128, 784, 512, 10
    lr = 0.01
    layers = [("1", D, H, 201), ("2", H, H, 202), ("3", H, K, 203)]
    variables = {
        "x": var("input", dt, [N, D], {"uniform": [0, 1], "seed": 210},
                 "a batch of 128 inputs of 784 features, uniform [0, 1)"),
        "y": var("input", "int64", [N], {"integers": [0, K], "seed": 211},
                 "integer labels 0..9"),
    }
    for name, fi, fo, seed in layers:
        a = glorot(fi, fo)
        variables["W" + name] = var(
            "shared", dt, [fi, fo], {"uniform": [-a, a], "seed": seed},
            "Glorot uniform: +-sqrt(6 / (%d + %d))" % (fi, fo))
        variables["b" + name] = var("shared", dt, [fo], {"fill": 0},
                                    "zeros")
    nodes = [
        # forward
        node("dot", ["x", "W1"], "a1", doc="(128, 512)"),
        node("add", ["a1", "b1"], "z1"),
        node("tanh", ["z1"], "h1"),
        node("dot", ["h1", "W2"], "a2", doc="(128, 512)"),
        node("add", ["a2", "b2"], "z2"),
        node("tanh", ["z2"], "h2"),
        node("dot", ["h2", "W3"], "a3", doc="(128, 10)"),
        node("add", ["a3", "b3"], "z3"),
        node("softmax", ["z3"], "p_y", doc="class probabilities, rows"),
        node("crossentropy_categorical_1hot", ["p_y", "y"], "nll",
             doc="-log p_y[i, y[i]], (128)"),
        node("mean", ["nll"], "cost"),
        node("argmax", ["p_y"], "pred", params={"axis": 1},
             doc="predicted class, int64 (128)"),
        # backward
        node("fill", ["nll", 1.0 / N], "g_nll",
             doc="d cost / d nll = 1/128 for every example"),
        node("crossentropy_categorical_1hot_grad", ["g_nll", "p_y", "y"],
             "g_p", doc="d cost / d p_y"),
        node("softmax_grad", ["g_p", "p_y"], "g_z3",
             doc="d cost / d z3 = (p_y - onehot(y)) / 128"),
        node("transpose", ["h2"], "h2_T"),
        node("dot", ["h2_T", "g_z3"], "gW3", doc="h2.T g_z3, (512, 10)"),
        node("sum", ["g_z3"], "gb3", params={"axis": 0}),
        node("transpose", ["W3"], "W3_T"),
        node("dot", ["g_z3", "W3_T"], "g_h2", doc="(128, 512)"),
        node("sqr", ["h2"], "h2_sq"),
        node("sub", [1, "h2_sq"], "dtanh2", doc="tanh' = 1 - tanh^2"),
        node("mul", ["g_h2", "dtanh2"], "g_z2"),
        node("transpose", ["h1"], "h1_T"),
        node("dot", ["h1_T", "g_z2"], "gW2", doc="h1.T g_z2, (512, 512)"),
        node("sum", ["g_z2"], "gb2", params={"axis": 0}),
        node("transpose", ["W2"], "W2_T"),
        node("dot", ["g_z2", "W2_T"], "g_h1", doc="(128, 512)"),
        node("sqr", ["h1"], "h1_sq"),
        node("sub", [1, "h1_sq"], "dtanh1"),
        node("mul", ["g_h1", "dtanh1"], "g_z1"),
        node("transpose", ["x"], "x_T"),
        node("dot", ["x_T", "g_z1"], "gW1", doc="x.T g_z1, (784, 512)"),
        node("sum", ["g_z1"], "gb1", params={"axis": 0}),
    ]
    updates = {}
    for name, _, _, _ in layers:
        for p in ("W" + name, "b" + name):
            nodes.append(node("mul", [lr, "g" + p], "step_" + p))
            nodes.append(node("sub", [p, "step_" + p], p + "_new",
                              doc="%s - %g g%s" % (p, lr, p)))
            updates[p] = p + "_new"
    functions = {
        "train": {"outputs": ["cost", "pred"], "updates": updates,
                  "doc": "one SGD step (rate 0.01) on all six "
                         "parameters; returns the cost and the "
                         "predictions from before the update"},
    }
    name = "mlp" if dt == "float64" else "mlp32"
    return {
        "format": "gptop-graph/1",
        "name": name,
        "doc": "A 784-512-512-10 tanh MLP training step, batch 128, %s: "
               "softmax, mean categorical cross-entropy, backward written "
               "out, SGD with rate 0.01 (see doc/models.md)." % dt,
        "variables": variables,
        "nodes": nodes,
        "functions": functions,
    }


def he(fan_in):
    return math.sqrt(6.0 / fan_in)


def cnn():
    N = 8
    variables = {
        "x": var("input", "float32", [N, 3, 16, 16],
                 {"uniform": [0, 1], "seed": 220},
                 "a batch of 8 RGB images of 16x16, uniform [0, 1)"),
    }

    def param(name, shape, init, doc):
        variables[name] = var("shared", "float32", shape, init, doc)

    a1, a2, a3, a4 = he(27), he(9), he(16), glorot(32, 10)
    param("W1", [16, 3, 3, 3], {"uniform": [-a1, a1], "seed": 221},
          "conv1 weights, He uniform: +-sqrt(6 / 27)")
    param("b1", [16], {"uniform": [-0.1, 0.1], "seed": 222}, "conv1 bias")
    param("gamma", [16], {"uniform": [0.5, 1.5], "seed": 223}, "bn scale")
    param("beta", [16], {"uniform": [-0.1, 0.1], "seed": 224}, "bn shift")
    param("mu", [16], {"uniform": [-0.2, 0.2], "seed": 225},
          "bn running mean")
    param("var", [16], {"uniform": [0.5, 1.5], "seed": 226},
          "bn running variance")
    param("Wd", [16, 1, 3, 3], {"uniform": [-a2, a2], "seed": 227},
          "depthwise 3x3 weights, one filter per channel")
    param("Wp", [32, 16, 1, 1], {"uniform": [-a3, a3], "seed": 228},
          "pointwise 1x1 weights, 16 -> 32 channels")
    param("bp", [32], {"uniform": [-0.1, 0.1], "seed": 229},
          "pointwise bias")
    param("W3", [32, 10], {"uniform": [-a4, a4], "seed": 230},
          "classifier weights, Glorot uniform")
    param("b3", [10], {"fill": 0}, "zeros")
    nodes = [
        node("conv", ["x", "W1", "b1"], "c1", params={"pads": [1, 1, 1, 1]},
             doc="3x3 conv, 3 -> 16 channels, (8, 16, 16, 16)"),
        node("batch_norm", ["c1", "gamma", "beta", "mu", "var"], "n1",
             doc="inference batch norm, epsilon 1e-5"),
        node("maximum", ["n1", 0], "r1", doc="relu"),
        node("max_pool", ["r1"], "p1",
             params={"kernel_shape": [2, 2], "strides": [2, 2]},
             doc="(8, 16, 8, 8)"),
        node("conv", ["p1", "Wd"], "d2",
             params={"group": 16, "pads": [1, 1, 1, 1]},
             doc="depthwise 3x3, (8, 16, 8, 8)"),
        node("conv", ["d2", "Wp", "bp"], "c2",
             doc="pointwise 1x1, 16 -> 32 channels, (8, 32, 8, 8)"),
        node("maximum", ["c2", 0], "r2", doc="relu"),
        node("global_average_pool", ["r2"], "g2", doc="(8, 32, 1, 1)"),
        node("reshape", ["g2"], "f2", params={"shape": [N, 32]}),
        node("dot", ["f2", "W3"], "a3", doc="(8, 10)"),
        node("add", ["a3", "b3"], "z3"),
        node("softmax", ["z3"], "p", doc="class probabilities, rows"),
        node("argmax", ["p"], "pred", params={"axis": 1},
             doc="predicted class, int64 (8)"),
    ]
    return {
        "format": "gptop-graph/1",
        "name": "cnn",
        "doc": "A small CNN's inference in float32 on a batch of 8 16x16 "
               "RGB images: conv 3x3 + batch norm + relu + max pool, a "
               "depthwise-separable block (depthwise 3x3, pointwise 1x1, "
               "relu), global average pool, a dense layer and softmax "
               "(see doc/models.md).",
        "variables": variables,
        "nodes": nodes,
        "functions": {
            "infer": {"outputs": ["p", "pred"],
                      "doc": "class probabilities and predictions"},
        },
    }


def dump(graph):
    """JSON in the style of the hand-written graphs: one variable, node
    or function per line."""
    def one(v):
        return json.dumps(v, ensure_ascii=False)

    lines = ["{"]
    for key in ("format", "name", "doc"):
        lines.append("  %s: %s," % (one(key), one(graph[key])))
    for key, last in (("variables", False), ("nodes", False),
                      ("functions", True)):
        val = graph[key]
        if isinstance(val, dict):
            lines.append("  %s: {" % one(key))
            items = ["    %s: %s" % (one(k), one(v)) for k, v in val.items()]
            close = "  }"
        else:
            lines.append("  %s: [" % one(key))
            items = ["    %s" % one(v) for v in val]
            close = "  ]"
        lines.append(",\n".join(items))
        lines.append(close + ("" if last else ","))
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv):
    check = argv[1:] == ["--check"]
    if argv[1:] and not check:
        sys.stderr.write("usage: make-graphs.py [--check]\n")
        return 2
    graphs = {"logreg.json": logreg(), "mlp.json": mlp("float64"),
              "mlp32.json": mlp("float32"), "cnn.json": cnn()}
    status = 0
    for fname, g in graphs.items():
        path = os.path.join(OUT, fname)
        text = dump(g)
        json.loads(text)        # well-formed
        if check:
            try:
                with open(path, encoding="utf-8") as f:
                    same = f.read() == text
            except OSError:
                same = False
            if not same:
                sys.stderr.write("%s is not what make-graphs.py writes\n"
                                 % path)
                status = 1
            continue
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
        print("wrote", path)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
