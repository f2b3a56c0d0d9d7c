#!/usr/bin/python3
# make-fixtures.py: writes the .npy fixtures test-npy.c reads (run once,
# the outputs are committed): good files from numpy itself, and malformed
# ones made by editing numpy's bytes.  Usage: make-fixtures.py DIR
import os
import struct
import sys

import numpy as np

out = sys.argv[1] if len(sys.argv) > 1 else "."


def save(name, a, version=None):
    with open(os.path.join(out, name), "wb") as f:
        np.lib.format.write_array(f, a, version=version)


def raw(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


def header(d, version=1):
    """A .npy prefix and header for the dict text d, padded like numpy."""
    h = d.encode("latin1")
    pre = 10 if version == 1 else 12
    pad = 64 - (pre + len(h) + 1) % 64
    h += b" " * (pad % 64) + b"\n"
    fmt = "<H" if version == 1 else "<I"
    return b"\x93NUMPY" + bytes([version, 0]) + struct.pack(fmt, len(h)) + h


base = np.arange(12).reshape(3, 4)
# one file per dtype, shape (3, 4); test-npy.c recomputes the values
save("float64.npy", base * 0.5 - 2)
save("float32.npy", (base * 0.5 - 2).astype("<f4"))
for t in ("i8", "i4", "i2", "i1"):
    save("int%d.npy" % (8 * int(t[1])), (base - 5).astype("<" + t))
for t in ("u8", "u4", "u2", "u1"):
    save("uint%d.npy" % (8 * int(t[1])), (base * 3).astype("<" + t))
save("bool.npy", base % 3 == 0)
# Fortran order, other versions, 0-d and zero-size
save("fortran3d.npy", np.asfortranarray(np.arange(24.0).reshape(2, 3, 4)))
save("fortran2d-int32.npy", np.asfortranarray((base - 5).astype("<i4")))
save("v2.npy", np.arange(5, dtype="<f4"), version=(2, 0))
save("v3.npy", np.arange(5, dtype="<f4"), version=(3, 0))
save("scalar.npy", np.array(3.25))
save("empty.npy", np.zeros((0, 3)))
# malformed
save("big-endian.npy", np.arange(3, dtype=">f8"))
save("complex.npy", np.zeros(3, dtype="<c16"))
save("structured.npy", np.zeros(2, dtype=[("a", "<f8"), ("b", "<i4")]))
good = open(os.path.join(out, "float64.npy"), "rb").read()
raw("bad-magic.npy", b"PK\x03\x04" + good[4:])
raw("truncated-data.npy", good[:-8])
raw("extra-data.npy", good + b"\0" * 8)
raw("truncated-header.npy", good[:40])
raw("header-lies.npy", good[:8] + struct.pack("<H", 4000) + good[10:])
raw("bad-version.npy", good[:6] + b"\x04\x00" + good[8:])
raw("unknown-key.npy", header("{'descr': '<f8', 'fortran_order': False, "
                              "'shape': (2,), 'extra': 1, }") + b"\0" * 16)
raw("overflow.npy", header("{'descr': '<f8', 'fortran_order': False, "
                           "'shape': (1099511627776, 1099511627776, "
                           "1099511627776), }"))
raw("huge.npy", header("{'descr': '<f8', 'fortran_order': False, "
                       "'shape': (1000000, 1000000), }"))
