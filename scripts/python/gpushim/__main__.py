"""python -m gpushim [gpushim-run options] script.py [args] | -c CODE [args] | -m MODULE [args]

Runs the Python program under gpushim-run, as `gpushim-run OPTIONS -- python ...` with this interpreter:
libgpushim.so is preloaded, so everything the program imports is covered; gpushim-run's options (--summary,
--log, --report, --offload, ...) come before the program.  See gpushim-run(1)."""
import os
import site
import sys

from gpushim._paths import LIB, cuda_from_wheels, script

# gpushim-run's options that take a value (the rest are flags).
VALUED = {"--offload", "--log", "--sites", "--policy", "--lib", "--report"}
USAGE = __doc__.split("\n\n")[0]


def _pth_installed():
    """Whether this interpreter reads gpushim.pth at its start (the package is installed)."""
    dirs = site.getsitepackages() + [site.getusersitepackages()] if hasattr(site, "getsitepackages") else sys.path
    return any(os.path.exists(os.path.join(d, "gpushim.pth")) for d in dirs)


def main(argv):
    opts, i = [], 0
    while i < len(argv) and argv[i].startswith("-") and argv[i] not in ("-c", "-m", "-"):
        if argv[i] in ("-h", "--help"):
            print(__doc__.rstrip())
            return 0
        if argv[i] == "--":
            i += 1
            break
        opts.append(argv[i])
        if argv[i] in VALUED and i + 1 < len(argv):
            opts.append(argv[i + 1])
            i += 1
        i += 1
    if i >= len(argv):
        print("gpushim: no program given\nusage: " + USAGE, file=sys.stderr)
        return 2
    cuda_from_wheels()
    cmd = ["sh", script("gpushim-run")] + (["--lib", LIB] if "--lib" not in opts else []) + opts
    # from a checkout, the program starts through gpushim._child, which installs the layer's hook
    child = [] if _pth_installed() else ["-m", "gpushim._child"]
    os.execvp("sh", cmd + ["--", sys.executable] + child + argv[i:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
