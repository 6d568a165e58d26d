"""Runs a notebook in a fresh IPython kernel with nbclient, for tests/t_wheel.sh: `import gpushim` first, a
product and a solve, the %%gpushim magic around a cell, gpushim.summary(); writes the outputs of the cells as
text to OUT, one block per cell (the kernel inherits this environment: the stand-in, GPUSHIM_OFFLOAD).
usage: python notebook.py OUT"""
import sys

import nbformat
from nbclient import NotebookClient

cells = [
    "import gpushim\nimport numpy as np\nprint('loaded', gpushim.loaded())",
    "a = np.arange(90000.0).reshape(300, 300) / 9e4\nx = np.linalg.solve(a + 300 * np.eye(300), np.ones(300))\n"
    "print('solve %.10e' % np.abs(x).sum())",
    "%load_ext gpushim",
    "%%gpushim\nb = a @ a\nprint('product %.10e' % np.abs(b).sum())",
    "_ = gpushim.summary()",
]
nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
NotebookClient(nb, timeout=120, kernel_name="python3").execute()
with open(sys.argv[1], "w") as f:
    for c in nb.cells:
        for o in c.outputs:
            f.write(o.get("text", "") if o.output_type == "stream" else str(o.get("data", o)) + "\n")
        f.write("----\n")
