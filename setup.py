"""Builds the Cython search core and generates the gRPC code of proto/ (see proto/build_protos.py).

Set MALILLA_ANNOTATE=1 to write `cython -a` HTML. On x86-64 the core uses
the building CPU's BMI2 instructions when it has them; MALILLA_PORTABLE=1
builds without them (for a binary meant for other machines).

With gcc, the core is built twice, profile-guided: once instrumented, which
solves a fixed set of deals (TRAINING), then again with the branch and call
counts of that run, which makes the search 6-9% faster. MALILLA_PGO=0
builds it once, without; so does any other compiler, or a training run that
fails.

These variables read 0, false, no and off (any case) as off, and an empty one
as unset.
"""
import os
import platform
import shutil
import subprocess
import sys

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.errors import CCompilerError, CompileError

ROOT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(ROOT, "proto"))
from build_protos import cmdclass  # noqa: E402  gRPC code of proto/, generated at build time


def env_flag(name: str, default: bool = False) -> bool:
    """Is the build variable `name` on? `default` when it is unset or empty;
    off when it is 0, false, no or off (any case); on otherwise."""
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    return value not in ("0", "false", "no", "off")


def cpu_has(flag: str) -> bool:
    """Does this machine's CPU list `flag` (Linux /proc/cpuinfo)?"""
    try:
        with open("/proc/cpuinfo") as f:
            return any(line.startswith("flags") and flag in line.split() for line in f)
    except OSError:
        return False


flags = ["-O3", "-pthread"]   # helper threads score a search's cards
if platform.machine().lower() in ("x86_64", "amd64"):
    flags.append("-mpopcnt")  # the search counts cards with popcount at every node
    if not env_flag("MALILLA_PORTABLE") and cpu_has("bmi2"):
        flags.append("-mbmi2")  # pext packs table keys

extensions = [Extension("solver._core", ["solver/_core.pyx"], extra_compile_args=flags, extra_link_args=["-pthread"])]

# The profile-guided build's workload, run by the instrumented core (argv[1])
# with the library of this tree (argv[2]): deals other than the benchmarks',
# of both games, solved in every mode from their start and from the middle of
# their play, as the solver, the analysis and the advice ask.
TRAINING = """
import importlib.util, random, sys
spec = importlib.util.spec_from_file_location("solver._core", sys.argv[1])
core = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = core
spec.loader.exec_module(core)
sys.path.insert(0, sys.argv[2])
from solver import MALILLA, MANILLE, Position, Solver
from solver.deal import deal, random_play
solver = Solver()
for profile in (MALILLA, MANILLE):
    for seed in range(12):
        start = Position.from_json(deal(profile, seed=424200 + seed, dealer=seed % 4).to_position_json())
        for mode in ("all", "best", "optimal"):
            solver.clear()
            answer = solver.solve(start, mode=mode)
        solver.solve(start, mode="target", target=answer.value + seed % 3 - 1)
        if profile is MANILLE:
            solver.solve(start, objective="score")
        position = start
        for card in random_play(start, random.Random(seed), 2 * profile.cards_per_hand + seed % 4):
            position = position.play(card)
        solver.clear()
        solver.solve(position)
"""


def is_gcc(compiler: object) -> bool:
    """Is `compiler` (a distutils compiler) gcc, whose profile flags the build uses?"""
    command = getattr(compiler, "compiler_so", None)
    if not command:
        return False
    try:
        out = subprocess.run([command[0], "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "Free Software Foundation" in out and "clang" not in out


class build_ext(cmdclass()["build_ext"]):
    """Builds the core profile-guided with gcc (see the module's docstring)."""

    def run(self) -> None:
        try:
            super().run()
        except CCompilerError as e:
            raise CompileError(f"the search core could not be compiled ({e}); building it needs a C compiler "
                               "and the Python headers (on Debian: apt-get install gcc python3-dev)") from e

    def build_extension(self, ext: Extension) -> None:
        # Always rebuild: the build flags (MALILLA_*, CFLAGS) may have changed
        # since the last build, and a profile-guided build writes its files twice.
        self.force = True
        if not env_flag("MALILLA_PGO", default=True) or not is_gcc(self.compiler):
            return super().build_extension(ext)
        compile_args = list(ext.extra_compile_args)
        # a fixed folder, as its path lands in the core's debug info: builds of a tree are byte-identical
        profiles = os.path.join(os.path.abspath(self.build_temp), "pgo")
        shutil.rmtree(profiles, ignore_errors=True)
        os.makedirs(profiles)
        try:
            ext.extra_compile_args = compile_args + self.trained_flags(ext, profiles)
            super().build_extension(ext)
        finally:
            ext.extra_compile_args = compile_args
            shutil.rmtree(profiles, ignore_errors=True)

    def trained_flags(self, ext: Extension, profiles: str) -> list[str]:
        """Build `ext` instrumented and run TRAINING on it, its counts going to
        `profiles`: the flags that build it from them, or none when that fails."""
        compile_args, link_args = ext.extra_compile_args, ext.extra_link_args
        ext.extra_compile_args = compile_args + ["-fprofile-generate", f"-fprofile-dir={profiles}"]
        ext.extra_link_args = link_args + ["-fprofile-generate"]
        try:
            super().build_extension(ext)
            subprocess.run([sys.executable, "-c", TRAINING, self.get_ext_fullpath(ext.name), ROOT],
                           capture_output=True, text=True, timeout=600, check=True)
        except (CCompilerError, subprocess.SubprocessError) as e:
            detail = getattr(e, "stderr", None) or e
            self.warn(f"the core is built without a profile, as its training build failed:\n{str(detail)[-2000:]}")
            return []
        finally:
            ext.extra_compile_args, ext.extra_link_args = compile_args, link_args
        return ["-fprofile-use", f"-fprofile-dir={profiles}", "-fprofile-correction"]


setup(
    cmdclass={**cmdclass(), "build_ext": build_ext},
    ext_modules=cythonize(
        extensions,
        annotate=env_flag("MALILLA_ANNOTATE"),
        force=env_flag("MALILLA_ANNOTATE"),
        compiler_directives={"language_level": "3"},
    )
)
