#!/usr/bin/python3
# tests/data/rewrite/make.py: two tiny models torch exports at opset 13,
# the shapes the CNN rewrites (src/rewrite/cnn.c) look for in real
# exports; test-rewrite-cnn runs each with the rewrites on and off.
#
#   conv-bn-act.onnx   Conv 3->8 3x3 (bias) -> BatchNormalization -> Clip
#                      (ReLU6), then Conv 8->8 3x3 (no bias) ->
#                      BatchNormalization -> Relu; x (2, 3, 8, 8)
#   layernorm13.onnx   torch.nn.LayerNorm(16) on x (2, 5, 16), which
#                      opset 13 exports as ReduceMean, Sub, Pow,
#                      ReduceMean, Add, Sqrt, Div, Mul, Add
#
# Random weights (torch.manual_seed(5)), random batch norm statistics
# (torch's init makes them the identity), exported in eval mode with
# training=PRESERVE so that the BatchNormalization nodes stay (the
# default export folds them itself).  torch 1.13 (Debian's
# python3-torch), run from the top of the tree:
#     /usr/bin/python3 tests/data/rewrite/make.py tests/data/rewrite
import os
import sys

import torch


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.b1 = torch.nn.BatchNorm2d(8)
        self.c2 = torch.nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.b2 = torch.nn.BatchNorm2d(8)

    def forward(self, x):
        x = torch.nn.functional.relu6(self.b1(self.c1(x)))
        return torch.relu(self.b2(self.c2(x)))


class LN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = torch.nn.LayerNorm(16)

    def forward(self, x):
        return self.ln(x)


def main():
    out = sys.argv[1]
    torch.manual_seed(5)
    block, ln = Block().eval(), LN().eval()
    with torch.no_grad():
        for bn in (block.b1, block.b2):
            bn.weight.uniform_(0.5, 1.5)
            bn.bias.uniform_(-0.2, 0.2)
            bn.running_mean.uniform_(-0.2, 0.2)
            bn.running_var.uniform_(0.5, 1.5)
        ln.ln.weight.uniform_(0.5, 1.5)
        ln.ln.bias.uniform_(-0.5, 0.5)
    torch.onnx.export(block, torch.randn(2, 3, 8, 8),
                      os.path.join(out, "conv-bn-act.onnx"),
                      opset_version=13, input_names=["x"],
                      output_names=["y"], do_constant_folding=True,
                      training=torch.onnx.TrainingMode.PRESERVE)
    torch.onnx.export(ln, torch.randn(2, 5, 16),
                      os.path.join(out, "layernorm13.onnx"),
                      opset_version=13, input_names=["x"],
                      output_names=["y"], do_constant_folding=True)


if __name__ == "__main__":
    main()
