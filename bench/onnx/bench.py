#!/usr/bin/python3
# bench.py: the ONNX rows of `make bench` (bench/README.md): gptop against
# ONNX Runtime (ort-bench.js) and PyTorch eager (torch-bench.py) on the
# models export.py wrote, and the load time of a 100 MB model against
# reading its file.  Python 3 standard library only; run by bench/run.sh.
#
#     bench.py --out DIR --gptop GPTOP [--ort-dir DIR] [--ort-no-spin]
#              [--torch] [--threads N] [--reps N] [--peak GFLOPS]
#              [--bench-ab BENCH_AB] [ROW...]
#
# ROW: load (the row onnx-ldt), mlp, resnet18, mobilenet_v2, squeezenet1_0, transformer
# (default: all).  Each model row: the three runtimes on the same input
# file (DIR/NAME/test_data_set_0/input_0.npy), the same thread count
# (gptop's OpenBLAS threads = its OpenMP threads = ORT's intra-op threads
# = torch's threads), each in a process of its own that times batches of
# inferences on request (ORT: ort-bench.js --serve; torch: torch-bench.py
# --serve; gptop: bench-ab MODEL serve, its VM's calls as gptop makes them,
# the model loaded and rewritten once, not timed).  After a warmup batch
# each, every repetition runs one batch of each, in turn (ORT, torch, then
# gptop unprofiled and profiled adjacent, in turn first); figures per
# inference: the median of the repetitions, their range beside it.  The
# outputs must agree: ORT's with torch's (output_0.pb, computed at
# export) and gptop's batch output line (gptop --batch -n 1) with ORT's
# output, within 1e-4 of the output's max |x|.  The profiling overhead:
# the batches' medians profiled / unprofiled, and (target) the median
# ratio of bench-ab's paired calls of one program profiled and unprofiled.
# Where gptop cannot run a model yet, its row says
# so with gptop's reason, and no figure.  Exit status 1 when a peer failed
# or outputs disagree; a missed target is not an error.
import argparse
import array
import math
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = ["mlp", "resnet18", "mobilenet_v2", "squeezenet1_0", "transformer"]
ROWNAME = {"mlp": "onnx-mlp", "resnet18": "onnx-rn18",
           "mobilenet_v2": "onnx-mbv2", "squeezenet1_0": "onnx-sqz",
           "transformer": "onnx-tfm"}
# gptop unprofiled / ONNX Runtime, per inference (issues 20 and 21)
TARGET = {"mlp": 1.0, "transformer": 1.0, "resnet18": 1.25,
          "mobilenet_v2": 1.25, "squeezenet1_0": 1.25}
failures = 0


def row(name, what, fig, unit, peer=None, peer_name="", target="", met=None):
    """One line in bench-core's table format."""
    f = ("%.2e" % fig) if fig != 0 and abs(fig) < 0.01 else "%.3f" % fig
    p = "%.3f" % peer if peer else ""
    ratio = "%.3f" % (fig / peer) if peer else ""
    status = "-" if met is None else ("met" if met else "MISSED")
    print("%-9s %-48s %10s %-6s %10s %-8s %7s  %-16s %s"
          % (name, what, f, unit, p, peer_name, ratio, target, status),
          flush=True)


def note(name, text):
    print("%-9s %s" % (name, text), flush=True)


def read_npy(path):
    """(dtype, shape, values as a list of floats) of a float32/64 .npy."""
    with open(path, "rb") as f:
        b = f.read()
    if b[:6] != b"\x93NUMPY":
        raise ValueError(path + ": not a .npy file")
    hl = int.from_bytes(b[8:10], "little") if b[6] == 1 else \
        int.from_bytes(b[8:12], "little")
    hs = 10 if b[6] == 1 else 12
    h = b[hs:hs + hl].decode("latin1")
    descr = re.search(r"'descr':\s*'([^']+)'", h).group(1)
    shape = tuple(int(x) for x in re.search(r"'shape':\s*\(([^)]*)\)", h)
                  .group(1).split(",") if x.strip())
    code = {"<f4": "f", "<f8": "d"}.get(descr)
    if code is None:
        raise ValueError(path + ": dtype " + descr + " not read here")
    a = array.array(code)
    a.frombytes(b[hs + hl:])
    return ({"f": "float32", "d": "float64"}[code], shape, list(a))


def gptop_line_figures(line):
    """sum, min, max and the first values of a batch `output NAME:` line."""
    fig = {}
    for k in ("sum", "min", "max"):
        m = re.search(r" %s=(\S+)" % k, line)
        fig[k] = float(m.group(1)) if m else None
    m = re.search(r"first=\[([^\]]*)\]", line)
    fig["first"] = [float(v) for v in m.group(1).split(", ")
                    if v != "..."] if m else []
    m = re.search(r": (\w+)\(([^)]*)\)", line)
    fig["type"] = m.group(1) if m else None
    fig["shape"] = tuple(int(x) for x in m.group(2).split(",")
                         if x.strip()) if m else None
    return fig


def agree(line, npy):
    """(ok, text): gptop's output line against ORT's output (.npy)."""
    dtype, shape, v = read_npy(npy)
    g = gptop_line_figures(line)
    scale = max(abs(x) for x in v) or 1.0
    if g["type"] != dtype or g["shape"] != shape:
        return False, "gptop %s%s, ORT %s%s" % (g["type"], g["shape"],
                                                dtype, shape)
    worst = 0.0
    pairs = [(g["min"], min(v)), (g["max"], max(v))] + \
        list(zip(g["first"], v[:len(g["first"])]))
    for a, b in pairs:
        worst = max(worst, abs(a - b) / scale)
    sumabs = math.fsum(abs(x) for x in v) or 1.0
    worst_sum = abs(g["sum"] - math.fsum(v)) / sumabs
    ok = worst <= 1e-4 and worst_sum <= 1e-4
    return ok, ("min, max, first values within %.2g of max |x|, sum within "
                "%.2g of sum |x|" % (worst, worst_sum))


class Server:
    """A peer that times batches: a line with a count in, seconds out."""

    def __init__(self, argv, env=None):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, env=env,
                                  text=True, bufsize=1)
        line = self.p.stdout.readline()
        if line.strip() != "ready":
            self.p.kill()
            raise RuntimeError("%s did not start" % argv[0])

    def batch(self, n, prefix=""):
        # a pause first, so that the previous batch's peer (its pool
        # threads spin after a run: ORT's by default, OpenBLAS's for
        # 1.7 ms in gptop) has left the cores: without it the batch run
        # right after ORT's was the slower one of gptop's two (the
        # transformer's profiled / unprofiled batches read 0.76 when
        # the unprofiled one ran first in 5 of 9 repetitions)
        time.sleep(0.05)
        self.p.stdin.write("%s%d\n" % (prefix, n))
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError("the peer stopped")
        return float(line)

    def close(self):
        try:
            self.p.stdin.write("0\n")
            self.p.stdin.close()
        except OSError:
            pass
        self.p.wait(timeout=30)


def timed(argv, env):
    t0 = time.perf_counter()
    r = subprocess.run(argv, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    return time.perf_counter() - t0, r


class Gptop:
    def __init__(self, gptop, model, inputs, threads):
        self.gptop, self.model, self.inputs = gptop, model, inputs
        # the same count for OpenBLAS's threads and the kernels' OpenMP
        # loops (doc/architecture.md, "Threads")
        self.env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads),
                        OMP_NUM_THREADS=str(threads), GPTOP_FLAGS="")

    def argv(self, calls, profile):
        a = [self.gptop, "--batch", "-n", str(calls), "--flags",
             "profile=" + ("True" if profile else "False")]
        for name, path in self.inputs:
            a += ["--input", "%s=%s" % (name, path)]
        return a + [self.model]

    def why_not(self):
        """None when gptop runs the model, else its reason."""
        r = subprocess.run([self.gptop, "--check", self.model],
                           env=self.env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            return r.stdout.strip().splitlines()[-1]
        for pat, pre in ((r"^  (op types not supported: .*)$", ""),
                         (r"^  not supported: (.*)$", ""),
                         (r"^  running: (not supported.*)$",
                          "running ONNX models is ")):
            m = re.search(pat, r.stdout, re.M)
            if m:
                return pre + m.group(1)
        t, r = timed(self.argv(1, False), self.env)
        if r.returncode != 0:
            return (r.stderr.strip().splitlines() or
                    ["status %d" % r.returncode])[0]
        self.first = r.stdout
        return None

    def output_line(self, name):
        for line in self.first.splitlines():
            if line.startswith("  output %s: " % name):
                return line
        return None

    def server(self, bench_ab):
        """bench-ab's serve mode on the model and input: batches of
        unprofiled calls (batch(n)) and profiled ones (batch(n, "p"))."""
        if not bench_ab or not os.access(bench_ab, os.X_OK):
            raise RuntimeError("no bench/bench-ab to time gptop's calls "
                               "(make bench/bench-ab, or --bench-ab PATH)")
        inputs = ":".join("%s=%s" % np for np in self.inputs)
        return Server([bench_ab, self.model, "serve", "optimizer=fast_run",
                       inputs], self.env)


def idle_policy(pid):
    """The idle policy of libgomp's threads in process pid, as gptop
    chose it (src/ops/par.c) or the environment set it."""
    try:
        env = open("/proc/%d/environ" % pid, "rb").read().split(b"\0")
    except OSError:
        return "unknown"
    for key in (b"OMP_WAIT_POLICY=", b"GOMP_SPINCOUNT="):
        for e in env:
            if e.startswith(key):
                return e.decode(errors="replace")
    return "libgomp's default"


def ab_overhead(a, model, t_call):
    """(median, lower quartile, upper quartile, pairs) of the per-pair
    ratio profiled / unprofiled of bench-ab's profile mode on model (one
    process, the same VM's calls profiled and unprofiled in turn, about
    3 s of calls), or None without bench-ab."""
    if not a.bench_ab or not os.access(a.bench_ab, os.X_OK):
        return None
    pairs = max(20, min(3000, int(1.5 / max(t_call, 1e-6))))
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(a.threads),
               OMP_NUM_THREADS=str(a.threads))
    r = subprocess.run([a.bench_ab, model, str(pairs), "optimizer=fast_run",
                        "profile"], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    m = re.search(r"A / B per pair: median (\S+) \(quartiles (\S+), "
                  r"(\S+)\)", r.stdout)
    if r.returncode != 0 or m is None:
        raise RuntimeError("bench-ab failed: " + r.stdout.strip())
    return (float(m.group(1)), float(m.group(2).rstrip(",")),
            float(m.group(3)), pairs)


def bench_load(a):
    """gptop's load of export.py's 100 MB model (its own `Load time`, from
    the batch report of `-n 0`; the whole process is shown below the row)
    against one read() of the file into a fresh buffer, interleaved, best
    of 5 or more (bench/onnx-load.sh does the same on a one-MatMul model
    written by hand)."""
    model = os.path.join(a.out, "load100mb", "model.onnx")
    size = os.path.getsize(model)
    g = Gptop(a.gptop, model, [], a.threads)
    reason = g.why_not()
    if reason is None:
        argv = [a.gptop, "--batch", "-n", "0", "--flags", "profile=True",
                model]
        how = "load (its Load time)"
    else:
        argv, how = [a.gptop, "--check", model], "--check: read + validate"
    best_g = best_c = best_p = 1e30
    with open(model, "rb") as f:
        f.read()  # in the page cache
    for _ in range(max(a.reps, 5)):
        # the peer: one read() of the whole file into a fresh buffer
        t0 = time.perf_counter()
        with open(model, "rb") as f:
            f.read()
        best_c = min(best_c, time.perf_counter() - t0)
        t, r = timed(argv, g.env)
        if r.returncode != 0:
            note("onnx-ldt", "gptop failed: " + r.stderr.strip())
            return 1
        best_p = min(best_p, t)
        m = re.search(r"^ *Load time: (\S+)s$", r.stdout, re.M)
        if reason is None and m is None:
            note("onnx-ldt", "no `Load time:` in gptop's report")
            return 1
        best_g = min(best_g, float(m.group(1)) if m else t)
    row("onnx-ldt", "torch's %.0f MB: gptop %s (ms; peer: read)"
        % (size / 1e6, how), best_g * 1e3, "ms", best_c * 1e3, "read",
        "<= 1.50", best_g / best_c <= 1.5)
    if reason is None:
        row("onnx-ldt", "  the whole gptop --batch -n 0 process (ms)",
            best_p * 1e3, "ms", best_c * 1e3, "read")
    else:
        note("onnx-ldt", "gptop cannot load this model for running yet: "
             "%s (the row above is --check, which reads and validates the "
             "whole file)" % reason)
    return 0


def bench_model(a, name):
    global failures
    d = os.path.join(a.out, name)
    model = os.path.join(d, "model.onnx")
    tds = os.path.join(d, "test_data_set_0")
    info = dict(line.split(" ", 1) for line in
                open(os.path.join(d, "info.txt")).read().splitlines())
    gflop = float(info["gflop"])
    rn = ROWNAME[name]
    tmp = tempfile.mkdtemp(prefix="gptop-bench-onnx.")
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(a.threads),
               BENCH_ORT_DIR=a.ort_dir or "")
    # ORT: the outputs against torch's, then ORT's own output for gptop's
    ort = torch = None
    ort_npy = os.path.join(tmp, "output.npy")
    if a.ort_dir:
        js = os.path.join(HERE, "ort-bench.js")
        r = subprocess.run(["node", js, model, "--threads", str(a.threads),
                            "--compare", tds], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        note(rn, "ORT vs torch's output: " + r.stdout.strip().replace(
            "\n", "; "))
        if r.returncode != 0:
            note(rn, "ONNX RUNTIME AND TORCH DISAGREE (or ORT failed)")
            failures += 1
        subprocess.run(["node", js, model, "--threads", str(a.threads),
                        "--save", tmp], env=env, check=False)
    g = Gptop(a.gptop, model, [("input", os.path.join(tds, "input_0.npy"))],
              a.threads)
    reason = g.why_not()
    gptop_ok = reason is None
    if gptop_ok:
        line = g.output_line("output")
        if line is None or not os.path.exists(ort_npy):
            ok, text = False, ("no ORT output to compare" if line else
                               "no `output output:` line in gptop's output")
        else:
            ok, text = agree(line, ort_npy)
        note(rn, "gptop vs ORT: " + text + ("" if ok else " DISAGREE"))
        if not ok:
            failures += 1
            gptop_ok = False
    # gptop's server first: it chooses its threads' idle policy from the
    # tasks running when it starts (src/ops/par.c), which the peers' pool
    # threads, still spinning after their load or warmup, would be
    gs = g.server(a.bench_ab) if gptop_ok else None
    if gs:
        note(rn, "gptop's idle threads: " + idle_policy(gs.p.pid))
    if a.ort_dir:
        ort = Server(["node", js, model, "--threads", str(a.threads),
                      "--serve"] + (["--no-spin"] if a.ort_no_spin else []),
                     env)
    if a.torch:
        tenv = dict(env, OMP_WAIT_POLICY="PASSIVE")
        torch = Server(["/usr/bin/python3", os.path.join(HERE,
                        "torch-bench.py"), a.out, name, "--threads",
                        str(a.threads), "--serve"], tenv)
    # batch size: about 0.3 s of the fastest peer
    probe = ort or torch or gs
    t1 = probe.batch(1) if probe else 0.05
    calls = max(3, min(200, int(0.3 / max(t1, 1e-6))))
    for s in (ort, torch, gs):
        if s:
            s.batch(calls)  # warmup
    per = {"ort": [], "torch": [], "gptop": [], "prof": []}
    paired = []  # each repetition's profiled / unprofiled
    for r in range(a.reps):
        # the peers, then gptop unprofiled and profiled (U P); every other
        # repetition in the reverse order (P U, then the peers): no
        # runtime always runs in another's wake (its pool threads, its
        # cache contents), and neither of gptop's two batches always
        # follows the other
        order = ["ort", "torch", "U", "P"]
        if r % 2:
            order.reverse()
        rt = {}
        for k in order:
            if k == "ort" and ort:
                per["ort"].append(ort.batch(calls) / calls)
            elif k == "torch" and torch:
                per["torch"].append(torch.batch(calls) / calls)
            elif k in ("U", "P") and gs:
                rt[k == "P"] = gs.batch(calls, "p" if k == "P" else
                                        "") / calls
        if not gs:
            continue
        per["gptop"].append(rt[False])
        per["prof"].append(rt[True])
        paired.append(rt[True] / rt[False])
    for s in (ort, torch, gs):
        if s:
            s.close()
    best = {}  # the median of the repetitions
    for k, v in per.items():
        v.sort()
        if v:
            best[k] = v[len(v) // 2]

    def spread(k):
        v = per[k]
        return "median of %d, range %.3f-%.3f ms" % (len(v), v[0] * 1e3,
                                                    v[-1] * 1e3)

    peer = best["ort"] if ort else None
    tgt = TARGET[name]

    def perf(sec):
        gfs = gflop / sec
        pk = ", %.0f%% of the sgemm peak" % (100 * gfs * 1e9 / a.peak) \
            if a.peak else ""
        return "%.1f GFLOP/s%s" % (gfs, pk)

    what = "%s (%.3g GFLOP): gptop (ms/inference; peer: ORT)" % (name, gflop)
    if gptop_ok:
        row(rn, what, best["gptop"] * 1e3, "ms",
            peer * 1e3 if peer else None, "ORT", "<= %.2f" % tgt,
            best["gptop"] / peer <= tgt if peer else None)
        note(rn, "    gptop: %s" % spread("gptop"))
        if peer:
            q = sorted(g_ / o_ for g_, o_ in zip(per["gptop"], per["ort"]))
            note(rn, "    gptop / ORT per repetition (adjacent batches): "
                 "median %.3f, range %.3f-%.3f" % (q[len(q) // 2], q[0],
                                                   q[-1]))
        paired.sort()
        ab = ab_overhead(a, model, best["gptop"])
        # the target is judged on the paired calls when bench-ab ran:
        # a batch's time moves by more than 3% on a shared machine
        # (bench/README.md)
        ratio = best["prof"] / best["gptop"]
        row(rn, "  gptop profiled / unprofiled (batches)", ratio, "x",
            None, "", "report", None)
        note(rn, "    per repetition (adjacent batches): median %.3f, range "
             "%.3f-%.3f" % (paired[len(paired) // 2], paired[0],
                            paired[-1]))
        row(rn, "  gptop profiled / unprofiled (paired calls)", ab[0],
            "x", None, "", "<= 1.03", ab[0] <= 1.03)
        note(rn, "    %d pairs of calls in one process (bench-ab), "
             "quartiles %.3f, %.3f" % (ab[3], ab[1], ab[2]))
        note(rn, "  gptop: %s" % perf(best["gptop"]))
    else:
        note(rn, "%s: gptop cannot run this model yet: %s" % (name, reason))
    if ort:
        row(rn, "  ONNX Runtime (ms/inference)", best["ort"] * 1e3, "ms")
        note(rn, "    ONNX Runtime: %s" % spread("ort"))
        note(rn, "  ONNX Runtime: %s" % perf(best["ort"]))
    if torch:
        row(rn, "  torch eager (ms/inference; peer: ORT)", best["torch"] * 1e3,
            "ms", peer * 1e3 if peer else None, "ORT")
        note(rn, "    torch eager: %s" % spread("torch"))
        note(rn, "  torch eager: %s" % perf(best["torch"]))
    note(rn, "  %d inferences a batch, median of %d repetitions, %d threads "
         "each" % (calls, a.reps, a.threads))
    for f in os.listdir(tmp):
        os.unlink(os.path.join(tmp, f))
    os.rmdir(tmp)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--gptop", required=True)
    ap.add_argument("--ort-dir")
    ap.add_argument("--torch", action="store_true")
    ap.add_argument("--ort-no-spin", action="store_true",
                    help="ORT's intra-op threads wait passively")
    ap.add_argument("--threads", type=int,
                    default=int(os.environ.get("OPENBLAS_NUM_THREADS", 0))
                    or os.cpu_count())
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--bench-ab",
                    help="bench/bench-ab, for the paired-calls overhead "
                    "row (default: beside GPTOP, when built)")
    ap.add_argument("--peak", type=float, default=0,
                    help="the machine's peak in FLOP/s (bench-core sgemm)")
    ap.add_argument("rows", nargs="*")
    a = ap.parse_args()
    a.peak *= 1e9
    if a.bench_ab is None:
        a.bench_ab = os.path.join(os.path.dirname(os.path.abspath(a.gptop)),
                                  "bench", "bench-ab")
    rows = a.rows or ["load"] + MODELS
    for r in rows:
        try:
            if r == "load":
                bench_load(a)
            elif r in MODELS:
                bench_model(a, r)
            else:
                sys.exit("bench.py: no row %s" % r)
        except (RuntimeError, OSError, ValueError) as e:
            global failures
            failures += 1
            note(ROWNAME.get(r, "onnx-" + r), "FAILED: %s" % e)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
