"""`malilla-dd batch` on a local Dask cluster of 2 worker processes: answers, resuming, a worker killed."""
from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import pytest

from conftest import PROJECT, capot_thrown, ctrl_c_as_python_takes_it, interrupted
from solver import Position, PositionError, batch
from solver.analysis import PlayedDeal, analyze
from solver.cards import SEATS
from solver.batch import generated_item, run_batch, run_chunk, run_of
from solver.batch_stats import BatchStats
from solver.cli import main
from solver.puzzles import mine
from solver.resume import read_done
from solver.solve import Solver, machine_memory
from solver.table import read_table_input, table_of


@pytest.fixture
def no_work(monkeypatch):
    """Fails the test if a cluster starts or a search runs."""
    import distributed

    def refused(*args, **kwargs):
        raise AssertionError("a cluster was started or a search run")
    monkeypatch.setattr(batch, "local_cluster", refused)
    monkeypatch.setattr(distributed, "Client", refused)
    monkeypatch.setattr(Solver, "solve", refused)


@pytest.fixture(scope="module")
def cluster():
    from distributed import Client

    from solver.cluster import local_cluster

    with local_cluster(2) as lc, Client(lc) as client:
        yield lc, client


def read_lines(path) -> list[dict]:
    return [json.loads(line) for line in open(path, encoding="utf-8")]


def check_complete(lines: list[dict], n: int) -> None:
    indices = [line["index"] for line in lines]
    assert len(indices) == len(set(indices)), "an item was written twice"
    assert sorted(indices) == list(range(n)), "an item is missing"


def test_solve_generated_matches_solver(cluster, tmp_path):
    _, client = cluster
    out = tmp_path / "solve.jsonl"
    summary = run_batch("solve", str(out), client=client, game="manille", deals=24, seed=5, chunk=4)
    assert summary == {"done": 24, "skipped": 0, "total": 24}
    lines = read_lines(out)
    check_complete(lines, 24)
    solver = Solver()
    for line in lines:
        assert line["position"] == generated_item("solve", "manille", 5, line["index"])
        sol = solver.solve(Position.from_json(line["position"]))
        assert (line["value"], line["values"], line["best"]) == (sol.value, sol.values, sol.best)


def test_file_input_jobs_match_single_machine(cluster, tmp_path):
    _, client = cluster
    deals = [generated_item("analyze", game, 11, i) for game in ("manille", "malilla") for i in range(2)]
    starts = [{k: v for k, v in d.items() if k not in ("play", "shown")} for d in deals]
    solver = Solver()
    for job, items, expect in (
        ("table", starts, lambda item: table_of(item, solver).to_json()),
        ("analyze", deals, lambda item: analyze(item, solver).to_json()),
        ("puzzles", deals, lambda item: {"puzzles": [p.to_json() for p in mine(item, solver=solver)]}),
    ):
        text = "".join(json.dumps(item) + "\n\n" for item in items) + '{"game": "manille"}\n'
        out = tmp_path / f"{job}.jsonl"
        run_batch(job, str(out), client=client, source=io.StringIO(text), chunk=2)
        lines = sorted(read_lines(out), key=lambda line: line["index"])
        check_complete(lines, len(items) + 1)
        assert "error" in lines[-1]
        for line, item in zip(lines, items):
            assert line.pop("position") == item
            assert line.pop("index") is not None
            defaults = {"puzzles": {"min_tricks": 3, "max_tricks": 7, "margin": 3}}
            assert line.pop("run") == run_of(job, {}) == {"job": job, **defaults.get(job, {})}
            assert line == expect(item), job


def test_a_table_run_solves_the_trumps_asked_for_and_goes_on_with_them_in_any_spelling(cluster, tmp_path):
    _, client = cluster
    out = str(tmp_path / "table.jsonl")
    run_batch("table", out, client=client, game="manille", deals=3, seed=4, options={"trumps": ["nt", "D"]})
    lines = sorted(read_lines(out), key=lambda line: line["index"])
    check_complete(lines, 3)
    for line in lines:
        assert line.pop("run") == {"job": "table", "trumps": ["D", "NT"], "game": "manille", "seed": 4}
        position = line.pop("position")
        line.pop("index")
        assert line == table_of(position, Solver(), trumps=["D", "NT"]).to_json()
    assert run_batch("table", out, client=client, game="manille", deals=4, seed=4,
                     options={"trumps": ["D", "NT"]}) == {"done": 1, "skipped": 3, "total": 4}
    with pytest.raises(ValueError, match="holds the lines of another run"):
        run_batch("table", out, client=client, game="manille", deals=4, seed=4, options={"trumps": ["D"]})
    with pytest.raises(ValueError, match="holds the lines of another run"):
        run_batch("table", out, client=client, game="manille", deals=4, seed=4)


def test_a_line_that_is_not_utf8_is_answered_at_its_index(cluster, tmp_path):
    """Past the first 8 KiB read ahead, so that the line count of the progress bar reads it too."""
    lc, _ = cluster
    items = [json.dumps(generated_item("solve", "manille", 3, i)) for i in range(50)]
    path, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    path.write_bytes(("\n".join(items[:40]) + '\n{"game": "man\udcffille"}\n' + "\n".join(items[40:]) + "\n")
                     .encode("utf-8", "surrogateescape"))
    assert len("\n".join(items[:40])) > 8192
    assert main(["batch", "solve", str(path), "--address", lc.scheduler_address, "-o", str(out), "--mode", "best"]) == 0
    lines = sorted(read_lines(out), key=lambda line: line["index"])
    check_complete(lines, 51)
    assert lines[40]["error"] == "position: not UTF-8 text (byte 0xFF at character 13)"
    assert lines[40]["position"] == '{"game": "man\ufffdille"}\n'   # text a strict JSON reader takes
    assert "\\udcff" not in out.read_text(encoding="utf-8")
    assert [json.dumps(line["position"]) for line in lines[:40] + lines[41:]] == items
    # a rerun finds every line answered: it reads the kept line as the input's line
    assert main(["batch", "solve", str(path), "--address", lc.scheduler_address, "-o", str(out), "--mode", "best"]) == 0
    assert len(read_lines(out)) == 51


def test_the_input_file_may_follow_the_options(cluster, tmp_path, capsys):
    lc, _ = cluster
    path, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    items = [json.dumps(generated_item("solve", "manille", 6, i)) for i in range(3)]
    path.write_text("\n".join(items) + "\n")
    assert main(["batch", "solve", "--mode", "best", "--address", lc.scheduler_address, "-o", str(out),
                 str(path)]) == 0
    assert sorted(json.dumps(line["position"]) for line in read_lines(out)) == sorted(items)
    for argv, message in ((["--mode", "best", str(path), str(path)], "malilla-dd: error: unrecognized arguments: "),
                          (["--mode", "best", str(tmp_path / "none")], "malilla-dd batch: error: argument input: "
                                                                       "can't open")):
        with pytest.raises(SystemExit) as info:
            main(["batch", "solve", *argv])
        assert info.value.code == 2 and capsys.readouterr().err.splitlines()[-1].startswith(message)


def test_options_and_errors_in_a_chunk():
    position = generated_item("solve", "manille", 1, 0)
    out = run_chunk("solve", [(0, json.dumps(position)), (1, "{not json"), (2, position)],
                    {"mode": "target", "target": 30})
    assert [i for i, _ in out] == [0, 1, 2]
    first, bad, third = (json.loads(text) for _, text in out)
    assert set(first) == {"index", "run", "position", "target", "reached", "card", "nodes"}
    assert first["run"] == {"job": "solve", "mode": "target", "objective": "points", "target": 30}
    assert first["reached"] == (Solver().solve(Position.from_json(position)).value >= 30)
    assert "error" in bad and bad["index"] == 1
    assert third["reached"] == first["reached"]


@pytest.mark.parametrize("job, read", [("solve", Position.from_json), ("table", read_table_input),
                                       ("analyze", PlayedDeal.from_json), ("puzzles", PlayedDeal.from_json)])
def test_a_line_that_is_no_json_is_refused_as_the_single_machine_command_refuses_it(job, read):
    with pytest.raises(PositionError) as refusal:
        read("{not json")
    (_, text), = run_chunk(job, [(0, "{not json")], {})
    assert json.loads(text)["error"] == str(refusal.value)


def test_analyze_takes_the_objective():
    item = capot_thrown()
    (_, text), = run_chunk("analyze", [(0, json.dumps(item))], {"objective": "score"})
    line = json.loads(text)
    assert (line.pop("index"), line.pop("position"), line.pop("run")) == (0, item, {"job": "analyze",
                                                                                     "objective": "score"})
    assert line == analyze(item, Solver(), objective="score").to_json()
    assert line["cards"][0]["cost"] == 30


def test_resume_skips_finished_items_and_cuts_a_partial_line(cluster, tmp_path):
    _, client = cluster
    out = tmp_path / "resume.jsonl"
    run_batch("solve", str(out), client=client, game="manille", deals=10, seed=2, chunk=3)
    whole = read_lines(out)
    data = out.read_bytes()
    cut = data.index(b"\n", len(data) // 2) + 20     # half the lines and a partial one
    out.write_bytes(data[:cut])
    finished = read_done(str(out))
    assert out.read_bytes().endswith(b"\n") and len(finished) == out.read_bytes().count(b"\n")
    stats = BatchStats()
    summary = run_batch("solve", str(out), client=client, game="manille", deals=10, seed=2, chunk=3, stats=stats)
    assert summary["skipped"] == len(finished) and summary["done"] == 10 - len(finished)
    lines = read_lines(out)
    check_complete(lines, 10)
    expect = BatchStats()
    for line in whole:
        expect.add("solve", line)
    assert stats.to_json() == expect.to_json() and stats.items == 10
    by_index = {line["index"]: line["values"] for line in whole}
    assert all(line["values"] == by_index[line["index"]] for line in lines)
    assert run_batch("solve", str(out), client=client, game="manille", deals=10, seed=2)["done"] == 0


class _Pipe(io.StringIO):
    def seekable(self) -> bool:
        return False


def test_resume_refuses_an_output_of_another_input(cluster, tmp_path):
    """The run's options match, but the file answers other items: going on would mix two inputs."""
    _, client = cluster
    items = [json.dumps(generated_item("solve", "manille", 3, i)) for i in range(6)]
    first = "\n".join(items[:3]) + "\n{not json\n"
    out = tmp_path / "out.jsonl"
    assert run_batch("solve", str(out), client=client, source=io.StringIO(first))["done"] == 4
    grown = first + "\n".join(items[3:]) + "\n"   # the same items, and more: goes on
    assert run_batch("solve", str(out), client=client, source=io.StringIO(grown)) == \
        {"done": 3, "skipped": 4, "total": 7}
    before = out.read_bytes()
    other = grown.replace(items[1], items[5], 1)
    for source in (io.StringIO(other), _Pipe(other)):
        with pytest.raises(ValueError, match=re.escape(f"output: {out} answers another input (item 1, the "
                                                       "input's non-blank line 2, is another position)")):
            run_batch("solve", str(out), client=client, source=source)
        assert out.read_bytes() == before
    shrunk = "\n".join(grown.splitlines()[:3]) + "\n"   # the first items only: the output answers more
    with pytest.raises(ValueError, match=re.escape(f"output: {out} answers items the input no longer holds (item 6, "
                                                   "the input's non-blank line 7, and it has fewer)")):
        run_batch("solve", str(out), client=client, source=io.StringIO(shrunk))
    assert out.read_bytes() == before


def test_resume_from_a_pipe_checks_every_answered_item_before_any_work(cluster, tmp_path):
    """Items answered out of order leave gaps: a changed item after a gap is found before the gap is filled."""
    _, client = cluster
    items = [json.dumps(generated_item("solve", "manille", 4, i)) for i in range(8)]
    out = tmp_path / "out.jsonl"
    run_batch("solve", str(out), client=client, source=io.StringIO("\n".join(items) + "\n"))
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join(line for line in lines if json.loads(line)["index"] not in (2, 3)))
    before = out.read_bytes()
    changed = items[:6] + [items[0]] + items[7:]
    with pytest.raises(ValueError, match=r"\(item 6, the input's non-blank line 7, is another position\)"):
        run_batch("solve", str(out), client=client, source=_Pipe("\n".join(changed) + "\n"))
    assert out.read_bytes() == before   # items 2 and 3 were not answered from the changed input
    assert run_batch("solve", str(out), client=client, source=_Pipe("\n".join(items) + "\n")) == \
        {"done": 2, "skipped": 6, "total": 8}


def test_a_last_line_without_its_newline_is_the_same_item_once_the_input_grows(cluster, tmp_path):
    _, client = cluster
    item = json.dumps(generated_item("solve", "manille", 4, 0))
    out = tmp_path / "out.jsonl"
    assert run_batch("solve", str(out), client=client, source=io.StringIO(f"{item}\nnot json"))["done"] == 2
    grown = f"{item}\nnot json\n{item}\n"
    assert run_batch("solve", str(out), client=client, source=io.StringIO(grown)) == \
        {"done": 1, "skipped": 2, "total": 3}


def test_a_killed_worker_loses_and_duplicates_nothing(cluster, tmp_path):
    _, client = cluster
    out = tmp_path / "killed.jsonl"
    n = 36
    result: dict = {}

    def run():
        result["summary"] = run_batch("solve", str(out), client=client, game="malilla", deals=n, seed=9, chunk=2,
                                      options={"mode": "best"})

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not out.exists() or out.read_bytes().count(b"\n") < 4):
        time.sleep(0.05)
    written = out.read_bytes().count(b"\n")
    assert written < n, "the batch finished before a worker could be killed"
    pids = client.run(os.getpid)
    victim = sorted(pids.values())[0]
    os.kill(victim, signal.SIGKILL)
    thread.join(120)
    assert not thread.is_alive()
    assert result["summary"]["done"] == n
    lines = read_lines(out)
    check_complete(lines, n)
    # the cluster replaced the worker
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and len(client.scheduler_info()["workers"]) < 2:
        time.sleep(0.1)
    assert victim not in client.run(os.getpid).values()
    solver = Solver()
    for line in sorted(lines, key=lambda line: line["index"])[::6]:
        sol = solver.solve(Position.from_json(line["position"]), mode="best")
        assert line["value"] == sol.value


def test_cli_batch_on_a_cluster_address_with_stats(cluster, tmp_path, capsys):
    lc, _ = cluster
    out, stats_file = tmp_path / "table.jsonl", tmp_path / "stats.json"
    assert main(["batch", "table", "--game", "manille", "--deals", "8", "--seed", "4", "--address",
                 lc.scheduler_address, "-o", str(out), "--chunk", "2", "--stats", "--stats-file",
                 str(stats_file)]) == 0
    lines = read_lines(out)
    check_complete(lines, 8)
    stats = json.loads(stats_file.read_text())
    err = capsys.readouterr().err
    assert "8 items done" in err and '"par_choices"' in err
    expect = BatchStats()
    for line in lines:
        expect.add("table", line)
    assert stats == expect.to_json()
    assert stats["items"] == 8 and stats["errors"] == 0
    assert sum(d["deals"] for d in stats["deal_scores"]["manille"].values()) == 8 * 5
    assert set(stats["deal_scores"]["manille"]) == {"S", "H", "D", "C", "NT"}
    assert stats["dealer_side"]["manille"]["par"]["deals"] == 8
    assert sum(stats["par_choices"]["manille"].values()) == 8
    for line in lines:   # the par choice is the best dealer score
        par = line["par"][0]
        assert par["score"] == max(c["dealer_score"] for c in par["choices"])
    # stdout, then the stream of JSON lines there
    assert main(["batch", "solve", "--game", "manille", "--deals", "3", "--address", lc.scheduler_address]) == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    check_complete(printed, 3)


def test_ctrl_c_leaves_the_items_done_and_the_same_command_goes_on(cluster, tmp_path, capsys):
    lc, _ = cluster
    out = tmp_path / "solve.jsonl"
    args = ["batch", "solve", "--game", "manille", "--deals", "1500", "--seed", "8", "--chunk", "2",
            "--address", lc.scheduler_address, "-o", str(out)]
    code, err = interrupted("solver.cli", args, lambda: out.exists() and out.read_text().count("\n") >= 8)
    assert code == 130
    # a loaded machine may add Dask's own warnings (an unresponsive event loop) before these lines
    assert err.endswith(f"the items done are in {out}; the same command goes on from them\n"
                        "malilla-dd batch: interrupted\n") and "Traceback" not in err
    before = len(read_done(str(out)))
    assert 8 <= before < 1500
    assert main(args) == 0
    assert f"{1500 - before} items done, {before} skipped (finished before), 1500 in all" in capsys.readouterr().err
    check_complete(read_lines(out), 1500)


def test_ctrl_c_at_a_terminal_stops_the_embedded_cluster_without_its_workers_tracebacks(tmp_path):
    """A terminal's Ctrl-C reaches the workers too: they leave the stop to the batch, which
    closes them; none is left running."""
    out = tmp_path / "solve.jsonl"
    args = ["batch", "solve", "--game", "manille", "--deals", "3000", "--workers", "2", "-o", str(out)]
    code, err = interrupted("solver.cli", args, lambda: out.exists() and out.read_text().count("\n") >= 8,
                            group=True)
    assert (code, err) == (130, f"the items done are in {out}; the same command goes on from them\n"
                                "malilla-dd batch: interrupted\n")
    assert 8 <= len(read_done(str(out))) < 3000


def test_ctrl_c_while_the_embedded_cluster_starts_is_a_keyboard_interrupt():
    script = ("import os, signal, threading\n"
              "import distributed\n"
              "from solver.cluster import local_cluster\n"
              "threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGINT)).start()\n"
              "try:\n"
              "    local_cluster(1)\n"
              "except KeyboardInterrupt:\n"
              "    print('interrupted')\n")
    with ctrl_c_as_python_takes_it():
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=PROJECT,
                              timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (0, "interrupted\n", "")


@pytest.mark.parametrize("second", [
    ["batch", "table", "--game", "manille", "--deals", "6", "--seed", "1"],
    ["batch", "solve", "--game", "manille", "--deals", "6", "--seed", "2"],
    ["batch", "solve", "--game", "malilla", "--deals", "6", "--seed", "1"],
    ["batch", "solve", "--game", "manille", "--deals", "6", "--seed", "1", "--objective", "score"],
])
def test_a_rerun_with_other_arguments_is_refused(cluster, tmp_path, capsys, second):
    """Going on would mix two runs' answers in one file (and their statistics)."""
    lc, _ = cluster
    out = str(tmp_path / "run.jsonl")
    first = ["batch", "solve", "--game", "manille", "--deals", "4", "--seed", "1"]
    assert main(first + ["--address", lc.scheduler_address, "-o", out]) == 0
    before = open(out).read()
    with pytest.raises(SystemExit) as info:
        main(second + ["--address", lc.scheduler_address, "-o", out])
    assert info.value.code == 2
    assert f"error: --output: {out} holds the lines of another run" in capsys.readouterr().err
    assert open(out).read() == before
    assert main(first[:-3] + ["6", "--seed", "1", "--address", lc.scheduler_address, "-o", out]) == 0
    assert "2 items done, 4 skipped" in capsys.readouterr().err


def test_score_runs_add_no_points_statistics():
    stats = BatchStats()
    position = generated_item("solve", "manille", 1, 0)
    stats.add("solve", {"index": 0, "run": run_of("solve", {"objective": "score"}), "position": position,
                        "value": -20})
    stats.add("solve", {"index": 1, "run": run_of("solve", {}), "position": position, "value": 24})
    assert stats.points["manille"][position["trump"]] == {60 - 24: 1}   # the points run's line alone


def test_points_statistics_take_deal_starts_with_their_dealer_only():
    stats = BatchStats()
    start = generated_item("solve", "malilla", 1, 0)
    later = Position.from_json({k: v for k, v in start.items() if k != "dealer"})
    for _ in range(4):
        later = later.play(later.legal_moves()[0])
    played = {**later.to_json(), "dealer": start["dealer"]}   # a trick played: not a deal start
    partner = SEATS[(SEATS.index(start["leader"]) + 2) % 4]   # deals on the leader's side: not before it
    lines = [played, {**start, "dealer": "Q"}, {**start, "dealer": partner},
             {k: v for k, v in start.items() if k != "dealer"}, start]
    for i, position in enumerate(lines):
        stats.add("solve", {"index": i, "run": run_of("solve", {}), "position": position, "value": 30})
    assert stats.points == {"malilla": {start["trump"]: {70 - 30: 1}}}   # the start with its dealer alone


def test_statistics_file_a_game_under_its_name_in_any_case():
    start = {**generated_item("table", "manille", 1, 0), "game": "MANILLE"}
    stats = BatchStats()
    for job in ("table", "solve"):
        (_, text), = run_chunk(job, [(0, json.dumps(start))], {"mode": "best"} if job == "solve" else {})
        stats.add(job, json.loads(text))
    assert set(stats.scores) == set(stats.wins) == set(stats.points) == {"manille"}


@pytest.mark.parametrize("job, options", [("table", {}), ("solve", {"mode": "best"})])
def test_statistics_are_the_same_bytes_whatever_order_the_items_finish_in(job, options):
    """Two games, and trumps that par names as often as each other: added in reverse, the lines
    give the same file."""
    lines = [json.loads(text) for game in ("manille", "malilla")
             for _, text in run_chunk(job, [(i, json.dumps(generated_item(job, game, 5, i))) for i in range(3)],
                                      options)]
    forward, backward = BatchStats(), BatchStats()
    for line in lines:
        forward.add(job, line)
    for line in reversed(lines):
        backward.add(job, line)
    assert json.dumps(forward.to_json()) == json.dumps(backward.to_json())
    assert list(forward.to_json()["dealer_side" if job == "table" else "dealer_side_points"]) == \
        ["malilla", "manille"]
    if job == "table":
        choices = forward.to_json()["par_choices"]["manille"]
        assert list(choices) == sorted(choices, key=lambda trump: (-choices[trump], trump))
        assert len(set(choices.values())) < len(choices)   # a tie, put in the order of the trumps' names


@pytest.mark.parametrize("argv, message", [
    (["batch", "table", "--deals", "2", "--objective", "score"], "--objective: no effect with batch table"),
    (["batch", "analyze", "--deals", "2", "--mode", "best"], "--mode: no effect with batch analyze"),
    (["batch", "analyze", "--deals", "2", "--objective", "score", "--margin", "2"],
     "--margin: no effect with batch analyze"),
    (["batch", "puzzles", "--deals", "2", "--objective", "score"], "--objective: no effect with batch puzzles"),
    (["batch", "solve", "--deals", "2", "--margin", "2"], "--margin: no effect with batch solve"),
    (["batch", "analyze", "--deals", "2", "--trumps", "D"], "--trumps: no effect with batch analyze"),
    (["batch", "puzzles", "--deals", "2", "--timeout", "5"],
     "--timeout: no effect with batch puzzles (its searches run to their end)"),
    (["batch", "solve", "IN", "--game", "manille", "--seed", "3"], "--game, --seed: no effect with an input file"),
    (["puzzles", "--from", "IN", "--seed", "3"], "--seed: no effect with --from FILE"),
])
def test_an_option_with_no_effect_is_a_usage_error(argv, message, tmp_path, capsys, no_work):
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(generated_item("analyze", "manille", 1, 0)) + "\n")
    with pytest.raises(SystemExit) as info:
        main([str(source) if a == "IN" else a for a in argv])
    assert info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"malilla-dd {argv[0]}: error: {message}"


def test_batch_needs_one_source(capsys):
    with pytest.raises(SystemExit):
        main(["batch", "solve"])
    assert "--deals" in capsys.readouterr().err


@pytest.mark.parametrize("job, options, message", [
    ("solve", {"deals": 0}, "deals: 0 must be at least 1"),
    ("solve", {"deals": 2, "chunk": 0}, "chunk: 0 must be at least 1"),
    ("solve", {"deals": 2, "chunk": 10_001}, r"chunk: 10,001 is more than 10,000 items"),
    ("puzzles", {"deals": 2, "options": {"timeout": 5.0}}, r"timeout: no effect with the puzzles job"),
    ("puzzles", {"deals": 2, "options": {"margin": 68, "max_tricks": 7}},
     "margin: 68 is more than the 67 points 7 tricks of a malilla deal can hold"),
    ("solve", {"deals": 2, "workers": 0}, "workers: 0 must be at least 1"),
    ("solve", {"deals": 2, "workers": 2, "options": {"memory": machine_memory() // 2 + 1}},
     r"memory: 2 tables of \d+ bytes is more than this machine's [\d.]+ GiB$"),
    ("solve", {"deals": 2, "options": {"memory": 1000}}, r"memory: 1000 bytes is too small for a table"),
    ("table", {"deals": 2, "options": {"trumps": ["S", "NT"]}}, r"trumps\[1\]: malilla has no no-trump deals"),
    ("table", {"deals": 2, "game": "manille", "options": {"trumps": ["S", "s"]}}, r"trumps\[1\]: S is given twice"),
    ("solve", {"deals": 2, "options": {"trumps": ["S"]}}, "trumps: no effect with the solve job"),
    ("puzzles", {"deals": 2, "options": {"margin": 0}}, "margin: 0 must be at least 1"),
    ("puzzles", {"deals": 2, "options": {"min_tricks": 5, "max_tricks": 4}},
     r"min_tricks: 5 is more than the most tricks asked for \(4\)$"),
    ("puzzles", {"deals": 2, "options": {"max_tricks": 11}},
     "max_tricks: 11 is more than the 10 tricks of a malilla deal"),
    ("puzzles", {"source": io.StringIO(""), "game": None, "options": {"max_tricks": 11}},
     "max_tricks: 11 is more than the 10 tricks of a malilla deal"),
    ("solve", {"deals": 2, "workers": 10 ** 6}, r"workers: 1000000 is more than \d+, 4 per core of this machine"),
    ("solve", {"deals": 2, "workers": 2, "address": "tcp://127.0.0.1:1"}, "workers: no effect with a cluster"),
    ("solve", {}, r"give an input file, or --deals N \(with --game and --seed\)$"),
    ("solve", {"deals": 2, "source": io.StringIO("")}, "give an input file or --deals N, not both"),
])
def test_bad_options_are_refused_before_a_cluster_starts(job, options, message, no_work):
    with pytest.raises(ValueError, match=message):
        run_batch(job, None, **{"game": "malilla", **options})


def test_generated_deals_need_a_game():
    with pytest.raises(ValueError) as info:
        run_batch("solve", None, deals=2)
    assert str(info.value) == "game: missing: the game of the generated deals"


@pytest.mark.parametrize("option", ["--output", "--stats-file"])
def test_an_output_over_the_input_is_refused(option, tmp_path, capsys):
    """Appended to while read, the output would feed the batch new items without end."""
    source = tmp_path / "positions.jsonl"
    source.write_text(json.dumps(generated_item("solve", "manille", 1, 0)) + "\n")
    with pytest.raises(SystemExit) as info:
        main(["batch", "solve", str(source), option, str(source)])
    assert info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"malilla-dd batch: error: {option}: {source} is the input file"
    with pytest.raises(SystemExit):
        main(["batch", "solve", str(source), "-o", str(tmp_path / "out"), "--stats-file", str(tmp_path / "out")])
    assert capsys.readouterr().err.splitlines()[-1] == \
        f"malilla-dd batch: error: --stats-file: {tmp_path / 'out'} is the --output file"


def test_an_output_that_is_no_batch_output_is_refused(tmp_path):
    """A run reads its output to go on from it: an endless device would be read without end, and
    another file's lines would be taken for items done or mixed with the answers."""
    foreign = tmp_path / "positions.jsonl"
    foreign.write_text(json.dumps(generated_item("solve", "manille", 1, 0)) + "\n")
    for path, message in (("/dev/full", "output: /dev/full is not a regular file"),
                          (str(tmp_path), f"output: {tmp_path} is not a regular file"),
                          (str(foreign), f"output: line 1 of {foreign} is not a line of a batch run")):
        started = time.monotonic()
        with pytest.raises(ValueError, match=re.escape(message)):
            run_batch("solve", path, game="manille", deals=2)
        assert time.monotonic() - started < 1
    assert foreign.read_text().count("\n") == 1


def test_a_refused_output_is_left_as_it_was(cluster, tmp_path):
    """Its part line is cut off only once the whole file reads as the run's own output."""
    _, client = cluster
    run_line = next(iter(run_chunk("solve", [(0, json.dumps(generated_item("solve", "manille", 1, 0)))], {})))[1]
    cases = [("notes.txt", "my notes\nlast line without its end", "ends in a part line that is not a line"),
             ("config.json", '{"name": "x", "items": [1, 2]}', "ends in a part line that is not a line"),
             ("other.jsonl", run_line + "\n" + run_line[:20], "holds the lines of another run")]
    for name, text, message in cases:
        path = tmp_path / name
        path.write_text(text)
        with pytest.raises(ValueError, match=message):
            run_batch("solve", str(path), client=client, game="manille", deals=2, seed=9)
        assert path.read_text() == text


def test_an_output_file_that_cannot_grow_is_named_and_exit_1(cluster, tmp_path):
    """A file size limit (`ulimit -f`) fails the output's writes as a full disk would."""
    lc, _ = cluster
    out = tmp_path / "out.jsonl"
    proc = subprocess.run(["sh", "-c", 'ulimit -f 1 && exec "$@"', "sh", sys.executable, "-m", "solver.cli", "batch",
                           "solve", "--game", "manille", "--deals", "40", "--address", lc.scheduler_address,
                           "-o", str(out)], capture_output=True, text=True, cwd=PROJECT, timeout=120)
    assert (proc.returncode, proc.stderr) == (1, f"malilla-dd batch: {out}: File too large\n")


@pytest.mark.parametrize("option", ["--output", "--stats-file"])
def test_an_empty_file_name_is_refused(option, capsys):
    with pytest.raises(SystemExit) as info:
        main(["batch", "solve", "--deals", "2", option, ""])
    assert info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"malilla-dd batch: error: {option}: an empty file name"


@pytest.mark.parametrize("option", ["--output", "--stats-file"])
def test_an_output_that_cannot_be_written_is_refused_before_a_cluster_starts(option, tmp_path, capsys):
    started = time.monotonic()
    with pytest.raises(SystemExit) as info:
        main(["batch", "solve", "--deals", "2", option, str(tmp_path / "missing" / "out.json")])
    assert info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == \
        f"malilla-dd batch: error: {option}: {tmp_path / 'missing'} is not a directory"
    assert time.monotonic() - started < 1


@pytest.mark.parametrize("banner", [b"", b"SSH-2.0-OpenSSH_9.6p1\r\n"])
def test_an_address_that_is_no_scheduler_is_named(monkeypatch, banner):
    """A peer that never answers, or one that greets first (as SSH does), is refused naming the
    address within the time a scheduler has to take a client, rather than hanging or crashing."""
    import socket
    import threading

    monkeypatch.setattr("solver.cluster.CONNECT_SECONDS", 1)
    listener = socket.create_server(("127.0.0.1", 0))
    held = []

    def accept() -> None:
        while True:
            try:
                peer, _ = listener.accept()
            except OSError:
                return
            peer.sendall(banner)
            held.append(peer)

    threading.Thread(target=accept, daemon=True).start()
    address = f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    try:
        refused = f"^address: {re.escape(address)} is no Dask scheduler that takes a client"
        with pytest.raises(ValueError, match=refused):
            run_batch("solve", None, address=address, game="manille", deals=1, out=io.StringIO())
    finally:
        listener.close()
        for peer in held:
            peer.close()


@pytest.mark.parametrize("options", [{"chunk": batch.MAX_CHUNK}, {"workers": batch.MAX_WORKERS}],
                         ids=["chunk", "workers"])
def test_the_largest_chunk_and_worker_count_allowed_are_accepted(options, no_work):
    """The limits are inclusive: the run gets past its checks to the start of its cluster
    (which `no_work` stops)."""
    with pytest.raises(AssertionError, match="a cluster was started"):
        run_batch("solve", None, game="malilla", deals=2, **options)


def test_resume_after_only_the_first_item_checks_and_skips_it(cluster, tmp_path):
    """An output that answers item 0 alone is resumed as any other: an input whose item 0
    changed is refused before any work, and item 0 is not solved again."""
    _, client = cluster
    items = [json.dumps(generated_item("solve", "manille", 3, i)) for i in range(2)]
    out = tmp_path / "out.jsonl"
    assert run_batch("solve", str(out), client=client, source=io.StringIO(items[0] + "\n"))["done"] == 1
    before = out.read_bytes()
    with pytest.raises(ValueError, match=re.escape(f"output: {out} answers another input (item 0")):
        run_batch("solve", str(out), client=client, source=io.StringIO(items[1] + "\n" + items[0] + "\n"))
    assert out.read_bytes() == before
    assert run_batch("solve", str(out), client=client, source=io.StringIO("\n".join(items) + "\n")) == \
        {"done": 1, "skipped": 1, "total": 2}
    assert [line["index"] for line in read_lines(out)] == [0, 1]


def test_a_chunk_holds_at_most_chunk_items():
    """--chunk N: the items go out N at a time (the last chunk may hold fewer)."""
    chunks = list(batch._chunks(enumerate("abcde"), 2))
    assert [[i for i, _ in c] for c in chunks] == [[0, 1], [2, 3], [4]]
