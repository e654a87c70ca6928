"""Generates the Python gRPC code of `proto/` at build time (used by setup.py).

The .proto files live under ``proto/malilla/dd/v1/``: their folder path is the
Python package of the generated code, so the generated modules land in the
package ``malilla.dd.v1`` at the project root (git-ignored) and their imports
(``from malilla.dd.v1 import double_dummy_pb2``) resolve once installed, in
editable mode, or from a source checkout. The .proto files are copied beside
them, so an installed package carries its own API definition, and a py.typed
marker goes at its top (``malilla/``), as protoc writes the messages' stubs.

``python setup.py build_proto`` runs it alone; ``egg_info`` and ``build_py``
(hence ``pip install .`` and ``pip install -e .``) and ``build_ext`` run it first.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from setuptools import Command
from setuptools.command.build_ext import build_ext as _build_ext
from setuptools.command.build_py import build_py as _build_py
from setuptools.command.egg_info import egg_info as _egg_info

ROOT = Path(__file__).resolve().parents[1]
PROTO_ROOT = ROOT / "proto"
GENERATED_NOTE = '"""Generated at build time from proto/ by proto/build_protos.py: do not edit."""\n'


def proto_files() -> list[Path]:
    return sorted(PROTO_ROOT.glob("malilla/**/*.proto"))


def generate(out: Path = ROOT) -> list[Path]:
    """Run grpc_tools' protoc over every .proto; returns the generated package folders."""
    try:
        import grpc_tools
        from grpc_tools import protoc
    except ImportError as e:  # pragma: no cover - a build requirement
        raise RuntimeError("generating the gRPC code needs grpcio-tools (a build requirement in "
                           "pyproject.toml): python -m pip install grpcio-tools") from e
    protos = proto_files()
    if not protos:
        raise RuntimeError(f"no .proto files under {PROTO_ROOT}")
    well_known = Path(grpc_tools.__file__).resolve().parent / "_proto"
    args = ["grpc_tools.protoc", f"-I{PROTO_ROOT}", f"-I{well_known}", f"--python_out={out}",
            f"--pyi_out={out}", f"--grpc_python_out={out}"]
    args += [str(p.relative_to(PROTO_ROOT)) for p in protos]
    cwd = os.getcwd()
    os.chdir(PROTO_ROOT)  # protoc wants the files relative to an include path
    try:
        status = protoc.main(args)
    finally:
        os.chdir(cwd)
    if status != 0:
        raise RuntimeError(f"protoc failed with status {status}")
    packages = set()
    for proto in protos:
        rel = proto.relative_to(PROTO_ROOT)
        target = out / rel
        shutil.copyfile(proto, target)  # ship the API definition with the code
        folder = rel.parent
        while folder != Path("."):
            packages.add(folder)
            folder = folder.parent
    for folder in sorted(packages):
        init = out / folder / "__init__.py"
        if not init.exists():
            init.write_text(GENERATED_NOTE)
        if len(folder.parts) == 1:  # the top of the package: typed, as protoc wrote stubs (.pyi)
            (out / folder / "py.typed").touch()
    return [out / p for p in sorted(packages)]


class build_proto(Command):
    description = "generate the Python gRPC code of proto/ into the malilla package"
    user_options: list = []

    def initialize_options(self) -> None:
        pass

    def finalize_options(self) -> None:
        pass

    def run(self) -> None:
        for folder in generate():
            self.announce(f"generated gRPC code in {folder}", level=2)


class build_py(_build_py):
    def run(self) -> None:
        self.run_command("build_proto")
        super().run()


class egg_info(_egg_info):
    """The package list names malilla.dd.v1, whose folder must exist when the manifest is written."""

    def run(self) -> None:
        self.run_command("build_proto")
        super().run()


class build_ext(_build_ext):
    def run(self) -> None:
        try:
            self.run_command("build_proto")
        except RuntimeError as e:  # `setup.py build_ext --inplace` without grpcio-tools still builds the core
            self.warn(f"gRPC code not generated: {e}")
        super().run()


def cmdclass() -> dict[str, type]:
    return {"build_proto": build_proto, "build_py": build_py, "build_ext": build_ext, "egg_info": egg_info}
