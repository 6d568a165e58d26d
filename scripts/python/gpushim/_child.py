"""python -m gpushim's program where the package is not installed (a checkout on PYTHONPATH): Python reads no
gpushim.pth there, so this installs the Python layer's import hook first, then runs the program as Python would
(script, -c CODE, -m MODULE or - for standard input), its arguments in sys.argv.  usage: python -m gpushim._child
PROGRAM [ARGS]"""
import os
import runpy
import sys

import gpushim_hook


def main(args):
    gpushim_hook.from_pth()
    if args[0] == "-m":
        sys.argv = [args[1]] + args[2:]
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
    elif args[0] in ("-c", "-"):
        code = args[1] if args[0] == "-c" else sys.stdin.read()
        sys.argv = ["-c" if args[0] == "-c" else "-"] + args[2 if args[0] == "-c" else 1:]
        sys.path[0] = ""
        exec(compile(code, "<string>" if args[0] == "-c" else "<stdin>", "exec"), {"__name__": "__main__"})
    else:
        sys.argv = list(args)
        sys.path[0] = os.path.dirname(os.path.abspath(args[0]))
        runpy.run_path(args[0], run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
