#!/usr/bin/python3
# make-onnx.py: writes gather-elements.onnx (one GatherElements node 'ge',
# axis 1, x float32 (2, 3), i int64 (2, 2), opset 13) and
# gather-elements-i.npy (the indices [[0, 5], [1, 1]]: 5 is out of range
# for an axis of 3), the ONNX case of tests/index-errors.sh.  Made once
# with Debian's python3-onnx 1.12 and python3-numpy; rerun from this folder.
import numpy as np
import onnx
from onnx import TensorProto, helper

x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
i = helper.make_tensor_value_info("i", TensorProto.INT64, [2, 2])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2])
node = helper.make_node("GatherElements", ["x", "i"], ["y"], axis=1, name="ge")
model = helper.make_model(helper.make_graph([node], "g", [x, i], [y]),
                          opset_imports=[helper.make_opsetid("", 13)])
onnx.save(model, "gather-elements.onnx")
np.save("gather-elements-i.npy", np.array([[0, 5], [1, 1]], dtype=np.int64))
