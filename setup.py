"""The wheel's build steps that pyproject.toml cannot say: the version from src/core/gs.h, `make lib`, the
library and the scripts copied into the package, gpushim.pth beside it, and the wheel tagged for any Python 3 on
glibc 2.35 or newer (libgpushim.so is plain C, links only the C library, and uses symbols up to GLIBC_2.35;
tests/t_wheel.sh checks that with auditwheel)."""
import os
import re
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools older than 70
    from wheel.bdist_wheel import bdist_wheel

ROOT = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(ROOT, "src", "core", "gs.h")) as f:
    VERSION = re.search(r'#define GS_VERSION "([^"]*)"', f.read()).group(1)
PLATFORM = "manylinux_2_35_x86_64"
SCRIPTS = ("gpushim-run", "gpushim-report", "gpushim-calibrate")


class BuildPy(build_py):
    """Builds libgpushim.so with make and puts it, the scripts and the version into the package."""

    def run(self):
        subprocess.check_call(["make", "-C", ROOT, "lib"])
        super().run()
        pkg = os.path.join(self.build_lib, "gpushim")
        shutil.copy2(os.path.join(ROOT, "build", "libgpushim.so"), pkg)
        os.makedirs(os.path.join(pkg, "scripts"), exist_ok=True)
        for s in SCRIPTS:
            shutil.copy2(os.path.join(ROOT, "scripts", s), os.path.join(pkg, "scripts", s))
        with open(os.path.join(pkg, "_version.py"), "w") as f:
            f.write(f'VERSION = "{VERSION}"\n')
        # beside the package, so that site-packages holds it: the Python layer's hook (gpushim_hook.py)
        shutil.copy2(os.path.join(ROOT, "scripts", "python", "gpushim.pth"), self.build_lib)


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


class Wheel(bdist_wheel):
    def get_tag(self):
        return "py3", "none", PLATFORM


setup(version=VERSION, distclass=BinaryDistribution, cmdclass={"build_py": BuildPy, "bdist_wheel": Wheel})
