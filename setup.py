"""Builds the Cython search core. Set MALILLA_ANNOTATE=1 to write `cython -a` HTML."""
import os
import platform

from Cython.Build import cythonize
from setuptools import Extension, setup

flags = ["-O3"]
if platform.machine().lower() in ("x86_64", "amd64"):
    flags.append("-mpopcnt")  # the search counts cards with popcount at every node

extensions = [Extension("solver._core", ["solver/_core.pyx"], extra_compile_args=flags)]

setup(
    ext_modules=cythonize(
        extensions,
        annotate=bool(os.environ.get("MALILLA_ANNOTATE")),
        force=bool(os.environ.get("MALILLA_ANNOTATE")),
        compiler_directives={"language_level": "3"},
    )
)
