"""Builds the Cython search core. Set MALILLA_ANNOTATE=1 to write `cython -a` HTML."""
import os

from Cython.Build import cythonize
from setuptools import Extension, setup

extensions = [
    Extension(
        "solver._core",
        ["solver/_core.pyx"],
        extra_compile_args=["-O3", "-march=native"] if os.environ.get("MALILLA_NATIVE") else ["-O3"],
    )
]

setup(
    ext_modules=cythonize(
        extensions,
        annotate=bool(os.environ.get("MALILLA_ANNOTATE")),
        compiler_directives={"language_level": "3"},
    )
)
