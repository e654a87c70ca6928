"""Builds the Cython search core and generates the gRPC code of proto/ (see proto/build_protos.py).

Set MALILLA_ANNOTATE=1 to write `cython -a` HTML. On x86-64 the core uses
the building CPU's BMI2 instructions when it has them; MALILLA_PORTABLE=1
builds without them (for a binary meant for other machines).
"""
import os
import platform
import sys

from Cython.Build import cythonize
from setuptools import Extension, setup

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "proto"))
from build_protos import cmdclass  # noqa: E402  gRPC code of proto/, generated at build time


def cpu_has(flag: str) -> bool:
    """Does this machine's CPU list `flag` (Linux /proc/cpuinfo)?"""
    try:
        with open("/proc/cpuinfo") as f:
            return any(line.startswith("flags") and flag in line.split() for line in f)
    except OSError:
        return False


flags = ["-O3"]
if platform.machine().lower() in ("x86_64", "amd64"):
    flags.append("-mpopcnt")  # the search counts cards with popcount at every node
    if not os.environ.get("MALILLA_PORTABLE") and cpu_has("bmi2"):
        flags.append("-mbmi2")  # pext packs table keys

extensions = [Extension("solver._core", ["solver/_core.pyx"], extra_compile_args=flags)]

setup(
    cmdclass=cmdclass(),
    ext_modules=cythonize(
        extensions,
        annotate=bool(os.environ.get("MALILLA_ANNOTATE")),
        force=bool(os.environ.get("MALILLA_ANNOTATE")),
        compiler_directives={"language_level": "3"},
    )
)
