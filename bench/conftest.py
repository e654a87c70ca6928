"""Print every benchmark's extra figures (medians, percentiles, nodes) at the end of the run."""
from __future__ import annotations

import json

_FIGURES: list[tuple[str, dict]] = []


def pytest_runtest_teardown(item) -> None:
    bench = getattr(item, "funcargs", {}).get("benchmark")
    if bench is not None and bench.extra_info:
        _FIGURES.append((item.name, dict(bench.extra_info)))


def pytest_terminal_summary(terminalreporter) -> None:
    if _FIGURES:
        terminalreporter.section("figures")
        for name, info in _FIGURES:
            terminalreporter.write_line(f"{name}: {json.dumps(info)}")
