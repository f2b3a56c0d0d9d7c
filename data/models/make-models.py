#!/usr/bin/python3
# make-models.py: export the small ONNX models of data/models/ with torch,
# and the outputs torch computes for fixed inputs (data/models/README.md).
#
# Needs Debian's python3-torch and python3-onnx; run it with /usr/bin/python3
# from the top of the source tree:
#
#     /usr/bin/python3 data/models/make-models.py          # rewrite the files
#     /usr/bin/python3 data/models/make-models.py --check  # compare, write nothing
#
# Every number comes from a fixed seed (torch's default init of each layer
# after torch.manual_seed, numpy's RandomState for the inputs): nothing is
# downloaded, and a rerun with the same torch writes the same bytes.  Each
# model is written as NAME/model.onnx with NAME/test_data_set_0/input_K.pb
# and output_K.pb, the layout of ONNX's backend test data (TensorProto
# files, name set to the graph input or output).
import argparse
import io
import os
import sys
import tempfile

import numpy as np
import onnx
import onnx.numpy_helper
import torch

OPSET = 13
HERE = os.path.dirname(os.path.abspath(__file__))


class MLP(torch.nn.Module):
    """784-128-10 classifier: Gemm, Relu, Gemm, Softmax (and the logits)."""

    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(784, 128)
        self.fc2 = torch.nn.Linear(128, 10)

    def forward(self, x):
        logits = self.fc2(torch.relu(self.fc1(x)))
        return logits, torch.softmax(logits, dim=1)


class CNN(torch.nn.Module):
    """A LeNet-like net on 1x28x28: two Conv 3x3 (pad 1) + Relu + MaxPool
    2x2, Flatten, Gemm to 10 logits."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 16, 3, padding=1)
        self.pool = torch.nn.MaxPool2d(2)
        self.flatten = torch.nn.Flatten()
        self.fc = torch.nn.Linear(16 * 7 * 7, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv1(x)))
        x = self.pool(torch.relu(self.conv2(x)))
        return self.fc(self.flatten(x))


class Transformer(torch.nn.Module):
    """One torch TransformerEncoderLayer (d_model 32, 2 heads, feed
    forward 64, ReLU, post-norm, batch first): MatMul 3-d x 2-d and
    batched 3-d x 3-d (attention), Softmax, the LayerNorm torch decomposes
    below opset 17, Gemm (out_proj)."""

    def __init__(self):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(
            d_model=32, nhead=2, dim_feedforward=64, dropout=0.1,
            batch_first=True)
        self.enc = torch.nn.TransformerEncoder(layer, num_layers=1,
                                               enable_nested_tensor=False)

    def forward(self, x):
        return self.enc(x)


class Fire(torch.nn.Module):
    """SqueezeNet's fire module: a 1x1 squeeze conv, then a 1x1 and a 3x3
    (pad 1) expand conv side by side, each with ReLU, their outputs
    concatenated on the channels."""

    def __init__(self, cin, squeeze, e1, e3):
        super().__init__()
        self.squeeze = torch.nn.Conv2d(cin, squeeze, 1)
        self.e1 = torch.nn.Conv2d(squeeze, e1, 1)
        self.e3 = torch.nn.Conv2d(squeeze, e3, 3, padding=1)

    def forward(self, x):
        s = torch.relu(self.squeeze(x))
        return torch.cat([torch.relu(self.e1(s)), torch.relu(self.e3(s))], 1)


class FireNet(torch.nn.Module):
    """Conv 3->16 3x3 stride 2 pad 1 + ReLU, two fire modules (16 -> 8 ->
    16 + 16, 32 -> 8 -> 24 + 24: Concat of two convs each), the second's
    Concat a graph output itself and, through GlobalAveragePool and
    Flatten, the other one."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 16, 3, stride=2, padding=1)
        self.fire1 = Fire(16, 8, 16, 16)
        self.fire2 = Fire(32, 8, 24, 24)
        self.pool = torch.nn.AdaptiveAvgPool2d(1)

    def forward(self, x):
        f = self.fire2(self.fire1(torch.relu(self.conv(x))))
        return f, torch.flatten(self.pool(f), 1)


# name: (module, model seed, input name, input shape, input seed, input
# distribution, output names)
MODELS = {
    "mlp": (MLP, 2001, "x", (8, 784), 2002, "uniform", ["logits", "probs"]),
    "cnn": (CNN, 2011, "image", (2, 1, 28, 28), 2012, "normal", ["logits"]),
    "transformer": (Transformer, 2021, "x", (2, 8, 32), 2022, "normal",
                    ["y"]),
    "fire": (FireNet, 2031, "image", (1, 3, 32, 32), 2032, "normal",
             ["features", "pooled"]),
}

# Models run (and exported) with autograd on: in eval mode under no_grad,
# torch 1.13 runs TransformerEncoderLayer as one fused kernel
# (aten::_transformer_encoder_layer_fwd) that has no ONNX export; with
# grad enabled it runs and exports op by op, and the outputs come from
# that same path.
WITH_GRAD = {"transformer"}


def make(name):
    """Returns {relative path: bytes} for one model."""
    cls, seed, in_name, shape, in_seed, dist, out_names = MODELS[name]
    torch.manual_seed(seed)
    model = cls().eval()
    rs = np.random.RandomState(in_seed)
    if dist == "uniform":
        x = rs.uniform(0, 1, size=shape).astype(np.float32)
    else:
        x = rs.standard_normal(size=shape).astype(np.float32)
    buf = io.BytesIO()
    with torch.set_grad_enabled(name in WITH_GRAD):
        outs = model(torch.from_numpy(x))
        torch.onnx.export(model, torch.from_numpy(x), buf,
                          opset_version=OPSET, input_names=[in_name],
                          output_names=out_names, do_constant_folding=True)
    if isinstance(outs, torch.Tensor):
        outs = (outs,)
    outs = [o.detach() for o in outs]
    m = onnx.load_from_string(buf.getvalue())
    m.doc_string = ("data/models/make-models.py: %s, torch %s, seed %d"
                    % (name, torch.__version__, seed))
    onnx.checker.check_model(m)
    files = {name + "/model.onnx": m.SerializeToString()}
    t = onnx.numpy_helper.from_array(x, in_name)
    files[name + "/test_data_set_0/input_0.pb"] = t.SerializeToString()
    for k, (o, oname) in enumerate(zip(outs, out_names)):
        t = onnx.numpy_helper.from_array(o.numpy(), oname)
        files["%s/test_data_set_0/output_%d.pb" % (name, k)] = \
            t.SerializeToString()
    return files


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true",
                    help="compare with the files in data/models, write none")
    ap.add_argument("--out", default=HERE, help="folder to write (default: "
                    "the folder of this script)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    bad = 0
    for name in MODELS:
        for rel, data in make(name).items():
            path = os.path.join(args.out, rel)
            if args.check:
                try:
                    with open(path, "rb") as f:
                        same = f.read() == data
                except OSError:
                    same = False
                if not same:
                    print("make-models.py: %s differs from what torch %s "
                          "writes" % (path, torch.__version__))
                    bad = 1
                continue
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
            print("%s: %d bytes" % (path, len(data)))
    return bad


if __name__ == "__main__":
    sys.exit(main())
