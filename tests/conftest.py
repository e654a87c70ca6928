"""Shared test helpers: where the shared vectors live and how to read them.

The vectors are required: a missing directory or file makes the tests that use
them fail (never skip).
"""
from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from solver import Position, Solver, get_profile
from solver.deal import deal, random_play

PROJECT = Path(__file__).resolve().parents[1]
os.environ.pop("PYTHONUNBUFFERED", None)   # the programs the tests start buffer their output, as in a shell
VECTORS = PROJECT / ".." / "shared" / "vectors"
VECTOR_FILES = ("legal", "rules", "endgames3", "endgames6", "full")


def vector_path(name: str) -> Path:
    return VECTORS / f"{name}.jsonl"


def read_jsonl(path: Path) -> list[dict]:
    """Every non-blank line of a JSON-lines file, parsed; fails the test if the file is missing."""
    if not path.is_file():
        pytest.fail(f"shared test vectors missing: {path.resolve()}")
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not lines:
        pytest.fail(f"shared test vectors empty: {path.resolve()}")
    return lines


_cache: dict[str, list[dict]] = {}


def load_vectors(name: str) -> list[dict]:
    """The lines of ``<name>.jsonl`` (cached; each caller gets fresh copies it may mutate)."""
    if name not in _cache:
        _cache[name] = read_jsonl(vector_path(name))
    return [json.loads(json.dumps(obj)) for obj in _cache[name]]


@pytest.fixture(scope="session")
def vectors_dir() -> Path:
    if not VECTORS.is_dir():
        pytest.fail(f"shared test vectors directory missing: {VECTORS.resolve()}")
    return VECTORS


@pytest.fixture(scope="session")
def vector_lines(vectors_dir):
    """``vector_lines("endgames3")``: the parsed lines of a vector file."""
    return load_vectors


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "vectors(*names): parametrize the `vector_line` fixture over every line of the "
                   "named shared vector files, with ids like 'endgames6:12' (1-based line numbers)")


def _count_lines(name: str) -> int:
    path = vector_path(name)
    if not path.is_file():
        return 0
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def pytest_generate_tests(metafunc):
    marker = metafunc.definition.get_closest_marker("vectors")
    if marker is None or "vector_line" not in metafunc.fixturenames:
        return
    params = []
    for name in marker.args:
        n = _count_lines(name)
        if n == 0:   # still one test, which fails in the fixture: never an empty (skipped) set
            params.append(pytest.param((name, None), id=f"{name}:missing"))
        params.extend(pytest.param((name, i), id=f"{name}:{i + 1}") for i in range(n))
    metafunc.parametrize("vector_line", params, indirect=True)


@pytest.fixture
def vector_line(request, vectors_dir):
    """One parsed vector line (see the `vectors` marker)."""
    name, index = request.param
    lines = load_vectors(name)   # fails when the file is missing or empty
    if index is None:
        pytest.fail(f"no lines in {vector_path(name)}")
    return lines[index]


def assert_modes_agree(solver, position, expected: dict[str, int]) -> None:
    """The "optimal", "best", "target" and "targets" modes agree with the exact card values `expected`."""
    value = max(expected.values())
    argmax = {card for card, v in expected.items() if v == value}

    optimal = solver.solve(position, mode="optimal")
    assert optimal.value == value
    assert set(optimal.best) == argmax

    best = solver.solve(position, mode="best")
    assert best.value == value
    assert len(best.best) == 1 and best.best[0] in argmax

    reached = solver.solve(position, mode="target", target=value)
    assert reached.reached is True
    assert len(reached.cards) == 1 and reached.cards[0].card in argmax
    missed = solver.solve(position, mode="target", target=value + 1)
    assert missed.reached is False
    assert missed.cards == ()

    # at the value, at the next value below it (when there is one) and above it
    for target in sorted(set(expected.values()))[-2:] + [value + 1]:
        assert_targets(solver.solve(position, mode="targets", target=target), position, expected, target)


def assert_targets(solution, position: Position, expected: dict[str, int], target: int) -> None:
    """A "targets" solution lists exactly the cards whose value in `expected` reaches `target`,
    by suit (S H D C) and high cards first, and `card` in its JSON is the first of them."""
    ranks = position.profile.ranks
    reaching = sorted((card for card, v in expected.items() if v >= target),
                      key=lambda card: ("SHDC".index(card[-1]), ranks.index(card[:-1])))
    assert (solution.best, solution.reached) == (reaching, bool(reaching)), target
    assert solution.to_json() == {"target": target, "reached": bool(reaching),
                                  "card": reaching[0] if reaching else None, "cards": reaching,
                                  "nodes": solution.nodes}


def start_of(obj: dict) -> Position:
    """The start position of a played deal (its JSON without the `play`)."""
    return Position.from_json({k: v for k, v in obj.items() if k != "play"})


def played_deal(game: str, seed: int, cards: int | None = None, **extra) -> dict:
    """A seeded deal (with its dealer and, in Malilla, its shown card) and random legal play from it:
    the input of `malilla-dd analyze` and AnalyzePlay."""
    obj = deal(get_profile(game), seed=seed, dealer=seed % 4).to_deal_json()
    obj["play"] = random_play(Position.from_json(obj), random.Random(seed), cards)
    obj.update(extra)
    return obj


class CountingSolver(Solver):
    """A Solver that adds up the nodes of every search it runs, in `searched`, and lists each
    search's objective, in `objectives`."""

    searched = 0

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.objectives: list[str] = []

    def solve(self, *args, **kwargs):
        self.objectives.append(kwargs.get("objective", "points"))
        sol = super().solve(*args, **kwargs)
        self.searched += sol.nodes
        return sol


def capot_thrown() -> dict:
    """A Manille deal whose first card, E's 8H, throws away E-W's capot: E-W take every trick with
    10S, AD, KD, QD or 9C first, but after 8H N-S take the trick of 7s, 8s and 9s (0 points, so
    points see no cost) and E-W score 30 match points, not 60."""
    return {"game": "manille", "trump": "D", "leader": "E", "dealer": "N",
            "hands": {"N": "QS 9S 9H 7D 10C KC QC 7C", "E": "10S 10H KH 8H AD KD QD 9C",
                      "S": "AS KS 7S 9D 8D AC JC 8C", "W": "JS 8S AH QH JH 7H 10D JD"},
            "play": ["8H", "9D", "7H", "9H"]}


@contextlib.contextmanager
def ctrl_c_as_python_takes_it() -> Iterator[None]:
    """Meanwhile this process, and programs it starts, take Ctrl-C (SIGINT) as Python does, even
    where this process ignores it (a job started in the background of a shell does): a signal
    with a handler is reset to its default in a new program. (A `preexec_fn` would do it in the
    child, but makes the child a Python-level fork, in which an in-process gRPC server's fork
    handlers can abort it.)"""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def interrupted(module: str, args: list[str], ready: Callable[[], bool], stdin: Path | None = None,
                stdout: Path | None = None, group: bool = False) -> tuple[int, str]:
    """Run `python -m module args` and press Ctrl-C (SIGINT) once `ready()`: its exit code and stderr.
    `group`: the program runs in a process group of its own, the signal reaches the whole group,
    as a terminal's Ctrl-C does, and every process of the group must have ended within 30 s."""
    with open(stdin or os.devnull, encoding="utf-8") as source, open(stdout or os.devnull, "w") as sink:
        with ctrl_c_as_python_takes_it():
            proc = subprocess.Popen([sys.executable, "-m", module, *args], stdin=source, stdout=sink,
                                    stderr=subprocess.PIPE, text=True, cwd=PROJECT, start_new_session=group)
        deadline = time.monotonic() + 60
        while not ready() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        if group:
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    if group:
        assert _group_ends(proc.pid, 30), "processes of the interrupted program's group still run"
    return proc.returncode, err


def _group_ends(group: int, seconds: float) -> bool:
    """Has every process of the process group ended within `seconds`? Those left are killed."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    os.killpg(group, signal.SIGKILL)
    return False


def helpers_running() -> int:
    """The search's helper threads running in this process now (by their name)."""
    count = 0
    for task in os.listdir("/proc/self/task"):
        with contextlib.suppress(OSError):   # a thread that ended while listed
            count += Path(f"/proc/self/task/{task}/comm").read_text().strip() == "malilla-helper"
    return count


def helpers_left() -> int:
    """Helper threads still listed after a search returned. A joined thread's task can stay
    in /proc for a moment after `pthread_join` returns (measured: up to about 0.3 ms), so this
    waits up to 0.1 s for the count to reach 0."""
    deadline = time.monotonic() + 0.1
    while (count := helpers_running()) and time.monotonic() < deadline:
        time.sleep(0.001)
    return count
