"""The residency cache's hazards as NumPy code meets them: arrays changed in place between products (a += 1,
a[3, 4] = 0, np.copyto, out= arguments), filled by the kernel (readinto from a file and a socket, np.fromfile
into an existing array), written by another thread, and products chained (A @ B @ C, X = A @ X).  With
faulthandler on, as pytest has it.  Every result is saved to OUT.npz for compare.py.

usage: python cache_numpy.py OUT.npz
"""
import faulthandler
import os
import socket
import sys
import tempfile
import threading

import numpy as np

faulthandler.enable()
rng = np.random.default_rng(4)
out = {}
n, k = 4096, 64  # A: 2 MiB, large enough to be cached
A = rng.standard_normal((n, k))
B = rng.standard_normal((k, k))
x = rng.standard_normal(k)


def step(label):
    out[label] = A @ B
    out[label + " (gemv)"] = A @ x


for i in range(3):
    step(f"used again {i}")
A += 1
step("a += 1")
A[3, 4] = 0
step("a[3, 4] = 0")
np.copyto(A, rng.standard_normal((n, k)))
step("np.copyto")
np.add(A, 2, out=A)
step("np.add(out=a)")
C = np.empty((n, k))
np.matmul(A, B, out=C)
out["np.matmul(out=c)"] = C.copy()
A[:] = C
step("a[:] = c")
t = threading.Thread(target=lambda: A.__setitem__((100, 7), -3.0))
t.start()
t.join()
step("written by another thread")

with tempfile.TemporaryFile() as f:
    f.write(rng.standard_normal((n, k)).tobytes())
    f.seek(0)
    f.readinto(memoryview(A).cast("B"))
    step("readinto from a file")
    f.seek(0)
    A[...] = np.fromfile(f, dtype=A.dtype, count=A.size).reshape(A.shape)[::-1]
    step("np.fromfile into the array")
    f.seek(0)
    os.readv(f.fileno(), [memoryview(A[10:20]).cast("B")])
    step("os.readv into rows")
s1, s2 = socket.socketpair()
data = rng.standard_normal(4096).tobytes()
s1.sendall(data)
s2.recv_into(memoryview(A).cast("B")[:len(data)], len(data))
s1.close()
s2.close()
step("recv_into")

# Chains: each result stays on the device for the next product.
P, Q, R = (rng.standard_normal((512, 512)) for _ in range(3))
out["chain P @ Q @ R"] = P @ Q @ R
X = rng.standard_normal((512, 256))
for i in range(3):
    X = P @ X
out["X = P @ X, 3 times"] = X
Y = P @ X
Y += 1
out["Y = P @ X, Y += 1, P @ Y"] = P @ Y
np.savez(sys.argv[1], **out)
