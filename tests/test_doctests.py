"""The examples in the modules' docstrings run and give what they show."""
from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import server
import solver

MODULES = sorted(f"{package.__name__}.{info.name}" for package in (solver, server)
                 for info in pkgutil.iter_modules(package.__path__) if not info.name.startswith("__"))


def examples(name: str) -> int:
    return sum(len(test.examples) for test in doctest.DocTestFinder().find(importlib.import_module(name)))


def test_some_modules_show_examples():
    assert {name for name in MODULES if examples(name)} >= {"solver.cards", "solver.position", "solver.solve"}


@pytest.mark.parametrize("name", MODULES)
def test_examples(name: str):
    result = doctest.testmod(importlib.import_module(name), report=False)
    assert result.failed == 0
