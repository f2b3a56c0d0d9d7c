#!/usr/bin/python3
# zoo.py: gptop on the models people ship, beyond the five rows of
# bench.py: torchvision's classification and segmentation models, exported
# to ONNX by torch with random weights (fixed seeds, nothing downloaded),
# each checked against torch's own output with gptop --conformance, then
# timed against ONNX Runtime.  A report, with no targets: it finds the ops
# and shapes where gptop falls behind (bench/README.md, "The zoo").
#
#     zoo.py --out DIR --gptop GPTOP --ort-dir DIR [--threads N]
#            [--reps N] [--opset N] [--bench-ab BENCH_AB] [MODEL...]
#
# Run after `make bench` has installed ONNX Runtime into bench/out:
#     /usr/bin/python3 bench/onnx/zoo.py --out bench/out/zoo \
#         --gptop ./gptop --ort-dir bench/out
# Each model goes to DIR/NAME-OPSET/ (model.onnx, test_data_set_0/ with
# input_0.pb, input_0.npy and output_0.pb), kept while its recipe line in
# info.txt is unchanged.  Per model: gptop --conformance's verdict (a FAIL
# line counts the elements outside ONNX's tolerance and scales the worst
# difference; doc/onnx.md), then gptop (bench-ab's serve mode, unprofiled)
# and ONNX Runtime (ort-bench.js --serve) in batches of about 0.3 s,
# alternated, REPS repetitions: the medians per inference and their ratio,
# and the idle policy gptop's threads chose at start (src/ops/par.c:
# "spin" for GOMP_SPINCOUNT, "sleep" for OMP_WAIT_POLICY=passive, which
# it takes when other tasks run then: a run of 2026-11-27 whose gptop
# servers started while the previous model's processes were still going
# away slept, and read resnet18 at batch 4 at 1.23 of ORT's time instead
# of 0.99; gptop's server now starts after a second's pause).
# Exit status 1 when a model cannot be exported or run.
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import bench  # noqa: E402  (bench.py: Server, Gptop, timing helpers)

# name: (torchvision constructor, its keyword arguments, input shape)
MODELS = {
    "resnet50": ("resnet50", {}, (1, 3, 224, 224)),
    "densenet121": ("densenet121", {}, (1, 3, 224, 224)),
    "shufflenet_v2": ("shufflenet_v2_x1_0", {}, (1, 3, 224, 224)),
    "efficientnet_b0": ("efficientnet_b0", {}, (1, 3, 224, 224)),
    "mnasnet": ("mnasnet1_0", {}, (1, 3, 224, 224)),
    "googlenet": ("googlenet", {"aux_logits": False, "init_weights": True},
                  (1, 3, 224, 224)),
    "inception_v3": ("inception_v3", {"aux_logits": False,
                                      "init_weights": True},
                     (1, 3, 299, 299)),
    "regnet_y_400mf": ("regnet_y_400mf", {}, (1, 3, 224, 224)),
    "vgg11": ("vgg11", {}, (1, 3, 224, 224)),
    "alexnet": ("alexnet", {}, (1, 3, 224, 224)),
    "squeezenet1_1": ("squeezenet1_1", {}, (1, 3, 224, 224)),
    "mobilenet_v3_small": ("mobilenet_v3_small", {}, (1, 3, 224, 224)),
    "convnext_tiny": ("convnext_tiny", {}, (1, 3, 224, 224)),
    "vit_b_16": ("vit_b_16", {}, (1, 3, 224, 224)),
    "swin_t": ("swin_t", {}, (1, 3, 224, 224)),
    "resnet18_batch4": ("resnet18", {}, (4, 3, 224, 224)),
    "lraspp": ("segmentation.lraspp_mobilenet_v3_large",
               {"weights_backbone": None}, (1, 3, 224, 224)),
    "fcn_resnet50": ("segmentation.fcn_resnet50",
                     {"weights_backbone": None, "aux_loss": False},
                     (1, 3, 224, 224)),
}
SEED = 6000
failures = 0


def export(name, opset, outdir):
    """DIR/NAME-OPSET as an ONNX test case; returns the folder."""
    import numpy as np
    import torch
    import torchvision
    from onnx import numpy_helper

    ctor, kw, shape = MODELS[name]
    seed = SEED + sorted(MODELS).index(name)
    d = os.path.join(outdir, "%s-%d" % (name, opset))
    recipe = "recipe: %s %s %s torch %s torchvision %s opset %d seed %d" % (
        name, ctor, shape, torch.__version__, torchvision.__version__,
        opset, seed)
    info = os.path.join(d, "info.txt")
    if os.path.exists(info) and open(info).read().strip() == recipe:
        return d
    torch.manual_seed(seed)
    f = torchvision.models
    for part in ctor.split("."):
        f = getattr(f, part)
    m = f(weights=None, **kw).eval()
    x = torch.randn(*shape)
    with torch.no_grad():
        y = m(x)
    if isinstance(y, dict):
        y = y["out"]
    tds = os.path.join(d, "test_data_set_0")
    os.makedirs(tds, exist_ok=True)
    torch.onnx.export(m, x, os.path.join(d, "model.onnx"),
                      opset_version=opset, input_names=["input"],
                      output_names=["output"])
    np.save(os.path.join(tds, "input_0.npy"), x.numpy())
    for k, (nm, v) in enumerate((("input", x), ("output", y))):
        t = numpy_helper.from_array(v.numpy(), nm)
        open(os.path.join(tds, "%s_0.pb" % nm), "wb").write(
            t.SerializeToString())
    open(info, "w").write(recipe + "\n")
    return d


def conformance(gptop, d):
    r = subprocess.run([gptop, "--conformance", d], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    first = (r.stdout.splitlines() or ["(no output)"])[0]
    verdict = first.split()[0] if first.split() else "?"
    # a FAIL's count and scale (doc/onnx.md), else its first words
    detail = "" if verdict == "pass" else first.split("); ", 1)[-1] \
        if "); " in first else first.split(": ", 2)[-1]
    return verdict, detail


def time_model(a, d):
    """(gptop ms, ORT ms, gptop / ORT medians, lowest and highest ratio,
    gptop's idle policy) or a reason string."""
    model = os.path.join(d, "model.onnx")
    npy = os.path.join(d, "test_data_set_0", "input_0.npy")
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(a.threads),
               BENCH_ORT_DIR=a.ort_dir)
    g = bench.Gptop(a.gptop, model, [("input", npy)], a.threads)
    why = g.why_not()
    if why is not None:
        return why
    # the conformance run and the previous model's servers gone first:
    # gptop's server chooses its idle policy from the tasks running
    time.sleep(1.0)
    gs = g.server(a.bench_ab)
    policy = bench.idle_policy(gs.p.pid)
    policy = "spin" if policy.startswith("GOMP_SPINCOUNT") else \
        "sleep" if "passive" in policy else policy
    ort = bench.Server(["node", os.path.join(HERE, "ort-bench.js"), model,
                        "--threads", str(a.threads), "--serve"], env)
    try:
        calls = max(2, min(200, int(0.3 / max(ort.batch(1), 1e-6))))
        gs.batch(calls)
        ort.batch(calls)
        tg, to, ratio = [], [], []
        for r in range(a.reps):
            if r % 2:
                x = gs.batch(calls) / calls
                y = ort.batch(calls) / calls
            else:
                y = ort.batch(calls) / calls
                x = gs.batch(calls) / calls
            tg.append(x)
            to.append(y)
            ratio.append(x / y)
    finally:
        gs.close()
        ort.close()
    for v in (tg, to, ratio):
        v.sort()
    m = len(tg) // 2
    return tg[m] * 1e3, to[m] * 1e3, ratio[m], ratio[0], ratio[-1], policy


def main():
    global failures
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--gptop", required=True)
    ap.add_argument("--ort-dir", required=True)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--opset", type=int, default=13)
    ap.add_argument("--bench-ab")
    ap.add_argument("models", nargs="*")
    a = ap.parse_args()
    if a.bench_ab is None:
        a.bench_ab = os.path.join(os.path.dirname(os.path.abspath(a.gptop)),
                                  "bench", "bench-ab")
    names = a.models or sorted(MODELS)
    for n in names:
        if n not in MODELS:
            sys.exit("zoo.py: no model %s (models: %s)" %
                     (n, ", ".join(sorted(MODELS))))
    print("%-20s %-5s %10s %10s %7s  %-13s %-5s %s" % (
        "model", "check", "gptop ms", "ORT ms", "ratio", "range", "idle",
        "conformance detail"), flush=True)
    for n in names:
        try:
            d = export(n, a.opset, a.out)
        except Exception as e:  # torch's exporter raises anything
            failures += 1
            print("%-20s export failed: %s" % (n, e), flush=True)
            continue
        verdict, detail = conformance(a.gptop, d)
        try:
            t = time_model(a, d)
        except (RuntimeError, OSError) as e:
            t = str(e)
        if isinstance(t, str):
            failures += 1
            print("%-20s %-5s not run: %s" % (n, verdict, t), flush=True)
            continue
        print("%-20s %-5s %10.3f %10.3f %7.3f  %.3f-%.3f   %-5s %s" % (
            n, verdict, t[0], t[1], t[2], t[3], t[4], t[5], detail[:120]),
            flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
