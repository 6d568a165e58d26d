"""The notebook's cell magic: %%gpushim runs its cell and prints the calls it made, per routine, from the
session's offload log (gpushim.summary over the bytes the cell added)."""
import os


def register(ip):
    from IPython.core.magic import register_cell_magic

    import gpushim

    @register_cell_magic("gpushim")
    def gpushim_cell(line, cell):
        if not gpushim.loaded():
            print("gpushim: not loaded in this kernel: restart it and run `import gpushim` before NumPy")
            ip.run_cell(cell)
            return
        path = gpushim.log_path()
        gpushim._flush()
        start = os.path.getsize(path) if path and os.path.exists(path) else 0
        ip.run_cell(cell)
        print("gpushim: the cell's calls")
        gpushim.summary(since=start)
