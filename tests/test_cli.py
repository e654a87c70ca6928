"""The `malilla-dd` command line, run as a subprocess: JSON lines in, JSON lines out."""
from __future__ import annotations

import contextlib
import importlib.metadata
import json
import os
import select
import subprocess
import sys
import threading
import time

import pytest

from conftest import PROJECT, interrupted, load_vectors, played_deal
from server.config import config_from_args
from solver import Position, PositionError, get_profile
from solver.cli import build_parser
from solver.deal import deal
from solver.failures import write_file
from solver.solve import Solver

BAD_LINE = '{"game": "malilla", "trump": "NT", "hands": {}}'


def run(*args: str, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solver.cli", *args], input=stdin, capture_output=True,
                          text=True, cwd=PROJECT, timeout=timeout)


def with_bad_line(objs: list[dict]) -> tuple[str, list[dict | None]]:
    """JSON lines with a bad line and a blank line in the middle; the expected objects (None = bad)."""
    half = len(objs) // 2
    expected = objs[:half] + [None] + objs[half:]
    lines = [json.dumps(o) if o is not None else BAD_LINE for o in expected]
    lines.insert(half + 1, "   ")
    return "\n".join(lines) + "\n", expected


def answers(proc: subprocess.CompletedProcess) -> list[dict]:
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def legal_lines(n=6):
    return [o for o in load_vectors("legal") + load_vectors("rules") if o["game"] == "malilla"][:n // 2] + \
        [o for o in load_vectors("rules") if o["game"] == "manille"][:n // 2]


def unexplained_lines():
    """Vector lines that only lenient parsing accepts (their hand sizes fit no trick)."""
    out = []
    for o in load_vectors("legal") + load_vectors("rules"):
        try:
            Position.from_json(o)
        except PositionError:
            out.append(o)
    return out


class TestLegalCommand:
    def test_answers_every_line_and_survives_a_bad_one(self):
        stdin, expected = with_bad_line(legal_lines())
        out = answers(run("legal", stdin=stdin))
        assert len(out) == len(expected) == 7
        for got, want in zip(out, expected):
            if want is None:
                assert set(got) == {"error"} and "trump" in got["error"]
            else:
                assert got == {"legal": want["legal"]}

    def test_lenient_answers_abstract_positions(self):
        objs = unexplained_lines()[:3]
        assert objs
        stdin = "".join(json.dumps(o) + "\n" for o in objs)
        strict = answers(run("legal", stdin=stdin))
        assert all("error" in a and a["error"].startswith("hands") for a in strict)
        lenient = answers(run("legal", "--lenient", stdin=stdin))
        assert lenient == [{"legal": o["legal"]} for o in objs]

    def test_reads_a_file_argument(self, tmp_path):
        objs = legal_lines(4)
        path = tmp_path / "in.jsonl"
        path.write_text("".join(json.dumps(o) + "\n" for o in objs))
        assert answers(run("legal", str(path))) == [{"legal": o["legal"]} for o in objs]

    @pytest.mark.parametrize("from_file", [True, False], ids=["file", "stdin"])
    def test_a_line_that_is_not_utf8_is_answered_in_its_place(self, tmp_path, from_file):
        """Whatever the locale's encoding says of standard input (strict here)."""
        objs = legal_lines(4)
        data = b"".join(json.dumps(o).encode() + b"\n" for o in objs[:2]) + b'{"game": "mal\xffilla"}\n' + \
            b"".join(json.dumps(o).encode() + b"\n" for o in objs[2:])
        path = tmp_path / "in.jsonl"
        path.write_bytes(data)
        proc = subprocess.run([sys.executable, "-m", "solver.cli", "legal", *([str(path)] if from_file else [])],
                              input=None if from_file else data, capture_output=True, cwd=PROJECT, timeout=120,
                              env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"})
        assert proc.returncode == 0, proc.stderr
        out = [json.loads(line) for line in proc.stdout.splitlines()]
        assert out[2] == {"error": "position: not UTF-8 text (byte 0xFF at character 13)"}
        assert out[:2] + out[3:] == [{"legal": o["legal"]} for o in objs]


    def test_a_line_of_only_a_byte_order_mark_is_blank(self):
        """As an empty file saved by an editor that writes the mark."""
        objs = legal_lines(2)
        stdin = "\ufeff\r\n" + "".join(json.dumps(o) + "\r\n" for o in objs) + " \ufeff \n"
        assert answers(run("legal", stdin=stdin)) == [{"legal": o["legal"]} for o in objs]
        proc = run("legal", stdin='{"game": \n')
        assert answers(proc) == [{"error": "position: not valid JSON (Expecting value: line 1 column 9 (char 8))"}]

    def test_a_carriage_return_inside_a_line_is_white_space_in_a_file_as_on_stdin(self, tmp_path):
        """JSON reads it as white space: splitting the line there would shift every later answer."""
        objs = legal_lines(2)
        text = json.dumps(objs[0]).replace(", ", ",\r ", 1) + "\n" + json.dumps(objs[1]) + "\r\n"
        assert "\r " in text
        path = tmp_path / "cr.jsonl"
        path.write_bytes(text.encode())
        expected = [{"legal": o["legal"]} for o in objs]
        assert answers(run("legal", str(path))) == expected
        assert answers(run("legal", stdin=text)) == expected


class TestPerftCommand:
    def test_counts_each_line_as_the_library_does_and_survives_a_bad_one(self):
        objs = load_vectors("full")[:2] + legal_lines(2)
        stdin, expected = with_bad_line(objs)
        got = answers(run("perft", "--depth", "3", stdin=stdin))
        assert len(got) == len(expected)
        for obj, line in zip(expected, got):
            if obj is None:
                assert "error" in line
            else:
                assert line == Solver().perft(Position.from_json(obj), 3).to_json()
                assert line["total"] == sum(line["cards"].values()) > 0

    def test_a_depth_beyond_the_cards_left_is_an_error_line(self):
        obj = next(o for o in load_vectors("full") if o["game"] == "manille")
        got = answers(run("perft", "--depth", "40", stdin=json.dumps(obj) + "\n"))
        assert got == [{"error": "depth: 40 is more than the 32 cards left to play"}]

    def test_lenient_counts_a_position_whose_hand_sizes_do_not_fit(self):
        uneven = {"game": "malilla", "trump": "D", "leader": "W", "trick": ["JS", "6S", "4D"], "led_suits": "SHC",
                  "hands": {"N": "KS AH 2D", "W": "KC 5C 3C", "S": "2S 4H", "E": "7D QC"}}
        line = json.dumps(uneven) + "\n"
        assert answers(run("perft", "--depth", "3", "--lenient", stdin=line)) == \
            [Solver().perft(uneven, 3, strict=False).to_json()]
        [refused] = answers(run("perft", "--depth", "3", stdin=line))
        assert refused["error"].startswith("hands: sizes N=3 E=2 S=2 W=3 do not fit")

    def test_a_depth_below_one_is_refused_before_any_input(self):
        proc = run("perft", "--depth", "0")
        assert proc.returncode == 2 and "--depth: 0 must be at least 1" in proc.stderr

    def test_a_depth_beyond_every_deal_is_refused_before_any_input(self):
        proc = run("perft", "--depth", "41")
        assert proc.returncode == 2 and proc.stdout == ""
        assert "--depth: 41 is more than the 40 cards of a malilla deal, the longest" in proc.stderr

    def test_ctrl_c_stops_a_long_count(self, tmp_path):
        position = tmp_path / "deal.jsonl"
        position.write_text(json.dumps(load_vectors("full")[0]) + "\n")
        started = time.monotonic()
        code, err = interrupted("solver.cli", ["perft", "--depth", "30"],
                                lambda: time.monotonic() - started > 2, stdin=position)
        assert (code, err) == (130, "malilla-dd perft: interrupted\n")


@pytest.mark.parametrize("command", [["legal"], ["solve"], ["analyze"], ["table"], ["advise"]])
def test_a_closed_standard_input_is_a_usage_error(command):
    proc = subprocess.run(["sh", "-c", 'exec "$@" <&-', "sh", sys.executable, "-m", "solver.cli", *command],
                          capture_output=True, text=True, cwd=PROJECT, timeout=120)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr.splitlines()[-1] == \
        f"malilla-dd {command[0]}: error: input: standard input is closed: give an input file"


@pytest.mark.parametrize("command", [["demo"], ["legal"], ["solve", "--pretty"]])
def test_a_closed_standard_output_is_one_line_and_exit_1(command):
    proc = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", sys.executable, "-m", "solver.cli", *command],
                          input="", stderr=subprocess.PIPE, text=True, cwd=PROJECT, timeout=120)
    assert (proc.returncode, proc.stderr) == (1, f"malilla-dd {command[0]}: standard output is closed\n")


class TestSolveCommand:
    def test_answers_every_line_and_survives_a_bad_one(self):
        objs = load_vectors("endgames3")[:3] + load_vectors("endgames6")[:3]
        stdin, expected = with_bad_line(objs)
        out = answers(run("solve", stdin=stdin))
        assert len(out) == len(expected) == 7
        for got, want in zip(out, expected):
            if want is None:
                assert set(got) == {"error"}
                continue
            value = max(want["values"].values())
            assert got["values"] == want["values"]
            assert got["value"] == value
            assert set(got["best"]) == {c for c, v in want["values"].items() if v == value}
            cards_left = sum(len(h.split()) for h in want["hands"].values())
            assert len(got["line"]) == cards_left
            assert isinstance(got["nodes"], int) and got["nodes"] >= 0

    def test_pretty_prints_the_cards(self):
        obj = load_vectors("endgames6")[0]
        proc = run("solve", "--pretty", stdin=json.dumps(obj) + "\n" + BAD_LINE + "\n")
        assert proc.returncode == 0, proc.stderr
        text = proc.stdout
        value = max(obj["values"].values())
        assert "Value for" in text and f"{value} points" in text
        for card in obj["values"]:
            assert card in text
        for seat in "NESW":
            for card in obj["hands"][seat].split():
                assert card in text
        assert "error:" in text

    def test_pretty_rows_are_each_cards_value_and_its_margin_below_the_best(self):
        """The margin as the library and the service give it: the points the card falls short by."""
        objs = [o for o in load_vectors("endgames3") if len(set(o["values"].values())) > 1][:10]
        proc = run("solve", "--pretty", stdin="".join(json.dumps(o) + "\n" for o in objs))
        assert proc.returncode == 0, proc.stderr
        tables: list[dict] = []
        for row in proc.stdout.splitlines():
            words = row.split()
            if words == ["card", "value", "margin"]:
                tables.append({})
            elif tables and len(words) in (3, 4) and words[1].isdigit():
                tables[-1][words[0]] = (int(words[1]), int(words[2]), words[3:] == ["best"])
        assert len(tables) == len(objs)
        for obj, rows in zip(objs, tables):
            best = max(obj["values"].values())
            assert rows == {card: (v, best - v, v == best) for card, v in obj["values"].items()}

    def test_pretty_names_the_equivalent_cards_the_json_groups(self):
        objs = load_vectors("endgames6")[:40]
        stdin = "".join(json.dumps(o) + "\n" for o in objs)
        groups = [a["equivalent"] for a in answers(run("solve", stdin=stdin))]
        proc = run("solve", "--pretty", stdin=stdin)
        assert proc.returncode == 0, proc.stderr
        named = []
        for row in proc.stdout.splitlines():
            if row.startswith(("Malilla, trump", "Manille, trump")):
                named.append([])
            elif row.startswith("Equivalent: "):
                named[-1] = [g.split() for g in row.removeprefix("Equivalent: ").split(", ")]
        assert named == groups and any(groups)

    def test_pretty_line_closes_the_trick_in_progress_first(self):
        obj = next(o for o in load_vectors("endgames3") if len(o.get("trick", [])) == 3)
        proc = run("solve", "--pretty", stdin=json.dumps(obj) + "\n")
        assert proc.returncode == 0, proc.stderr
        [line] = [row for row in proc.stdout.splitlines() if row.startswith("Line: ")]
        first, *rest = line.removeprefix("Line: ").split(" | ")
        assert len(first.split()) == 1 and all(len(t.split()) == 4 for t in rest[:-1])

    @pytest.mark.parametrize("index", [0, 7])
    def test_target(self, index):
        obj = load_vectors("endgames3")[index]
        value = max(obj["values"].values())
        argmax = {c for c, v in obj["values"].items() if v == value}
        line = json.dumps(obj) + "\n"
        [yes] = answers(run("solve", "--mode", "target", "--target", str(value), stdin=line))
        assert yes["reached"] is True and yes["target"] == value and yes["card"] in argmax
        [no] = answers(run("solve", "--mode", "target", "--target", str(value + 1), stdin=line))
        assert no["reached"] is False and no["card"] is None

    @pytest.mark.parametrize("threads", ["1", "2"])
    def test_targets(self, threads):
        """Every card that reaches the target, as the library lists it; a bad line is answered
        in its place."""
        stdin, expected = with_bad_line(load_vectors("endgames6")[:12])
        out = answers(run("solve", "--mode", "targets", "--target", "12", "--threads", threads, stdin=stdin))
        assert len(out) == len(expected)
        partial = 0
        for got, want in zip(out, expected):
            if want is None:
                assert set(got) == {"error"}
                continue
            library = Solver().solve(Position.from_json(want), "targets", target=12).to_json()
            assert got == {**library, "nodes": got["nodes"]} and list(got) == list(library)
            assert set(got["cards"]) == {c for c, v in want["values"].items() if v >= 12}
            partial += 0 < len(got["cards"]) < len(want["values"])
        assert partial >= 2

    @pytest.mark.parametrize("mode", ["target", "targets"])
    def test_pretty_target_names_the_cards(self, mode):
        obj = load_vectors("endgames6")[0]
        cards = Solver().solve(Position.from_json(obj), mode, target=12).best
        assert len(cards) == (1 if mode == "target" else 2)
        proc = run("solve", "--pretty", "--mode", mode, "--target", "12", stdin=json.dumps(obj) + "\n")
        assert proc.returncode == 0, proc.stderr
        [row] = [row for row in proc.stdout.splitlines() if row.startswith("Can ")]
        assert row.endswith(" take 12 points? yes with " + " or ".join(cards))

    @pytest.mark.parametrize("mode", ["target", "targets"])
    def test_target_needs_a_number(self, mode):
        proc = run("solve", "--mode", mode, stdin="")
        assert proc.returncode == 2 and proc.stderr.startswith("usage: malilla-dd solve ")
        assert proc.stderr.splitlines()[-1] == f"malilla-dd solve: error: --mode {mode} needs --target"
        proc = run("solve", "--target", "5", stdin="")
        assert proc.stderr.splitlines()[-1] == "malilla-dd solve: error: --target goes with --mode target or targets"

    @pytest.mark.parametrize("mode", ["optimal", "best"])
    def test_other_modes(self, mode):
        obj = load_vectors("endgames3")[2]
        value = max(obj["values"].values())
        argmax = {c for c, v in obj["values"].items() if v == value}
        [got] = answers(run("solve", "--mode", mode, stdin=json.dumps(obj) + "\n"))
        assert got["value"] == value
        assert set(got["best"]) <= argmax and got["best"]
        if mode == "optimal":
            assert set(got["best"]) == argmax
        else:
            assert len(got["best"]) == 1


@pytest.mark.parametrize("args, message", [
    (("solve", "--timeout", "0"), "--timeout: 0.0 is not a positive number of seconds"),
    (("solve", "--timeout", "nan"), "--timeout: nan is not a positive number of seconds"),
    (("analyze", "--timeout", "-1"), "--timeout: -1.0 is not a positive number of seconds"),
    (("advise", "--timeout", "inf"), "--timeout: inf is not a positive number of seconds"),
    (("solve", "--memory", "-1"), "argument --memory: '-1' is not a size (bytes, or a number with K, M or G)"),
    (("puzzles", "--memory", "1T"), "argument --memory: '1T' is not a size (bytes, or a number with K, M or G)"),
    (("serve", "--memory", "1T"), "--memory: '1T' is not a size (bytes, or a number with K, M or G)"),
    (("advise", "--memory", "1K"), "--memory: 1024 bytes is too small for a table (at least 65536)"),
    (("demo", "--memory", "5"), "--memory: 5 bytes is too small for a table"),
    (("table", "--memory", "100"), "--memory: 100 bytes is too small for a table"),
    (("puzzles", "--count", "0"), "--count: 0 must be at least 1"),
    (("puzzles", "--min-tricks", "9"), "--min-tricks: 9 is more than the most tricks asked for (7)"),
    (("puzzles", "--from", "-", "--margin", "0"), "--margin: 0 must be at least 1"),
    (("batch", "solve", "--deals", "-1"), "--deals: -1 must be at least 1"),
    (("batch", "solve", "--deals", "2", "--chunk", "0"), "--chunk: 0 must be at least 1"),
    (("batch", "solve", "--deals", "2", "--memory", "5"), "--memory: 5 bytes is too small for a table"),
    (("serve", "--memory", "5"), "--memory: 5 bytes is too small for a table"),
    (("solve", "--memory", str(10 ** 20)), f"--memory: {10 ** 20} bytes is more than this machine's"),
    (("analyze", "--memory", str(1 << 62)), f"--memory: {1 << 62} bytes is more than this machine's"),
    (("solve", "--threads", "0"), "--threads: 0 must be at least 1"),
    (("demo", "--threads", "17"), "--threads: 17 is more than the 16 a search can use"),
    (("analyze", "--threads", "-2"), "--threads: -2 must be at least 1"),
    (("table", "--threads", "0"), "--threads: 0 must be at least 1"),
    (("table", "--trumps", "D,X"), "trumps[1]: 'X' is not a trump (S H D C or NT)"),
    (("table", "--trumps", "nt,D,NT"), "trumps[2]: NT is given twice"),
    (("batch", "table", "--deals", "2", "--trumps", ""), "trumps[0]: '' is not a trump"),
    (("puzzles", "--threads", "17"), "--threads: 17 is more than the 16 a search can use"),
    (("advise", "--threads", "-1"), "--threads: -1 must be at least 1"),
    (("solve", "--threads", "two"), "argument --threads: invalid int value: 'two'"),
])
def test_a_bad_option_is_refused_before_any_input(args, message):
    """An option no input line could be solved with stops the command at once, with a usage
    error that names it (exit 2), before any line is read or answered."""
    proc = run(*args, stdin=json.dumps(load_vectors("endgames3")[0]) + "\n")
    assert proc.returncode == 2 and proc.stdout == ""
    assert f"malilla-dd {args[0]}: error: {message}" in proc.stderr and "Traceback" not in proc.stderr


def test_advise_samples_100_layouts_by_default():
    """As its help says, and as the library's `advise` does."""
    assert build_parser().parse_args(["advise"]).samples == 100


@pytest.mark.parametrize("size", ["1048576", "1M", "1MiB", "1024k"])
def test_memory_is_read_as_serve_reads_it(size):
    for command in (["solve"], ["demo"], ["analyze"], ["table"], ["puzzles"], ["batch", "solve"], ["advise"]):
        assert build_parser().parse_args([*command, "--memory", size]).memory == 1 << 20
    assert config_from_args(build_parser().parse_args(["serve", "--memory", size]), {}).memory == 1 << 20
    line = {k: v for k, v in load_vectors("endgames6")[0].items() if k != "values"}
    proc = run("solve", "--memory", size, stdin=json.dumps(line) + "\n")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["values"] == load_vectors("endgames6")[0]["values"]


def test_threads_give_the_same_answers():
    """`solve --threads 2` scores whole deals' cards on two threads: the same values."""
    lines = "".join(json.dumps(obj) + "\n" for obj in load_vectors("full"))
    one, two = run("solve", stdin=lines, timeout=300), run("solve", "--threads", "2", stdin=lines, timeout=300)
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    values = [obj["values"] for obj in load_vectors("full")]
    assert [got["values"] for got in answers(one)] == [got["values"] for got in answers(two)] == values


def test_threads_give_the_same_tables():
    """`table --threads 2`: every trump and leader of whole deals, the same values and par."""
    lines = "".join(json.dumps(obj) + "\n" for obj in load_vectors("full")[:2])
    one, two = run("table", stdin=lines, timeout=300), run("table", "--threads", "2", stdin=lines, timeout=300)
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    tables = answers(one)
    assert len(tables) == 2 and all("table" in got and "par" in got for got in tables)
    assert answers(two) == tables


class TestDemoCommand:
    def test_demo_solves_both_games(self):
        proc = run("demo", timeout=300)
        assert proc.returncode == 0, proc.stderr
        assert "Malilla" in proc.stdout and "Manille" in proc.stdout
        assert proc.stdout.count("Value for") == 2
        assert proc.stdout.count("Line: ") == 2


class TestReadmeCommand:
    def test_readme_test_command_is_what_ci_runs(self):
        readme = (PROJECT / "README.md").read_text(encoding="utf-8").splitlines()
        at = next(i for i, line in enumerate(readme) if "Run the whole test suite" in line)
        command = next(line.strip() for line in readme[at + 1:] if line.strip())
        assert "pytest" in command
        ci = (PROJECT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
        assert command in [line.strip() for line in ci]


def test_ctrl_c_stops_with_the_answers_so_far_and_no_traceback(tmp_path):
    deals = tmp_path / "deals.jsonl"
    deals.write_text("".join(json.dumps(deal(get_profile("malilla"), seed=i).to_position_json()) + "\n"
                             for i in range(2000)))
    out = tmp_path / "out.jsonl"
    code, err = interrupted("solver.cli", ["solve"], lambda: out.exists() and out.read_text().count("\n") >= 2,
                                stdin=deals, stdout=out)
    assert (code, err) == (130, "malilla-dd solve: interrupted\n")
    answered = [json.loads(line) for line in out.read_text().splitlines()]
    assert 2 <= len(answered) < 2000 and all("value" in a for a in answered)


@pytest.mark.parametrize("module", ["solver.cli", "solver"])
def test_version_is_the_installed_one(module):
    proc = subprocess.run([sys.executable, "-m", module, "--version"], capture_output=True, text=True, cwd=PROJECT,
                          timeout=60)
    assert (proc.returncode, proc.stdout) == (0, f"malilla-dd {importlib.metadata.version('malilla-dd')}\n")


@pytest.mark.parametrize("command", [["solve"], ["demo"], ["legal"], ["solve", "--pretty"]])
def test_an_output_that_cannot_be_written_is_one_line_and_exit_1(command):
    """/dev/full: every write fails as on a full disk."""
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "solver.cli", *command], input=json.dumps(legal_lines(2)[0]),
                              stdout=full, stderr=subprocess.PIPE, text=True, cwd=PROJECT, timeout=120)
    assert (proc.returncode, proc.stderr) == \
        (1, f"malilla-dd {command[0]}: standard output: No space left on device\n")


@pytest.mark.parametrize("command", [["legal"], ["solve"], ["solve", "--pretty"], ["table"], ["puzzles", "--count", "50"],
                                     ["puzzles", "--count", "50", "--pretty"]])
def test_a_reader_that_goes_ends_the_command_quietly(command):
    """As `malilla-dd legal | head -1`: the reader closes the pipe after one line; the command
    stops with exit 0 and nothing on standard error."""
    if command[0] == "table":
        stdin = "".join(json.dumps(deal(get_profile("manille"), seed=s).to_deal_json()) + "\n" for s in range(40))
    else:
        stdin = "".join(json.dumps(o) + "\n" for o in legal_lines(2)) * 400
    proc = subprocess.Popen([sys.executable, "-m", "solver.cli", *command, "--game", "manille"]
                            if command[0] == "puzzles" else [sys.executable, "-m", "solver.cli", *command],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=PROJECT)
    writer = threading.Thread(target=lambda: _write_ignoring_a_closed_pipe(proc.stdin, stdin.encode()))
    writer.start()
    assert proc.stdout.readline()
    proc.stdout.close()
    proc.wait(timeout=120)
    writer.join()
    assert (proc.returncode, proc.stderr.read()) == (0, b"")
    proc.stderr.close()


def _answer_within(proc: subprocess.Popen, line: str, end: bytes, seconds: float = 60) -> bytes:
    """Send `line` to the command, its input left open, and read its answer up to `end`: the
    command must have written it out without waiting for more input."""
    proc.stdin.write(line.encode() + b"\n")
    proc.stdin.flush()
    answer = b""
    give_up = time.monotonic() + seconds
    while not answer.endswith(end):
        ready, _, _ = select.select([proc.stdout], [], [], max(give_up - time.monotonic(), 0))
        assert ready, f"no answer within {seconds} s: {answer!r}"
        chunk = os.read(proc.stdout.fileno(), 65536)
        assert chunk, f"the command ended: {answer!r}"
        answer += chunk
    return answer


@pytest.mark.parametrize("command, line", [
    (["solve", "--pretty"], lambda: json.dumps(legal_lines(2)[0])),
    (["table", "--pretty"], lambda: json.dumps(deal(get_profile("manille"), seed=1).to_deal_json())),
    (["puzzles", "--from", "-"], lambda: "{}"),   # an error line
])
def test_each_answer_is_written_before_the_next_line_comes(command, line):
    proc = subprocess.Popen([sys.executable, "-m", "solver.cli", *command], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=PROJECT)
    try:
        end = b"\n" if command[0] == "puzzles" else b"\n\n"
        for _ in range(2):
            assert _answer_within(proc, line(), end)
    finally:
        proc.kill()
        proc.communicate()


def test_puzzles_from_stops_reading_once_it_has_found_the_count():
    deals = [played_deal(("malilla", "manille")[s % 2], s) for s in range(40)]
    proc = subprocess.Popen([sys.executable, "-m", "solver.cli", "puzzles", "--from", "-", "--count", "1"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=PROJECT)
    try:
        for d in deals:   # the input stays open: the command ends on its own after the first puzzle
            proc.stdin.write((json.dumps(d) + "\n").encode())
            proc.stdin.flush()
            if proc.poll() is not None:
                break
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(2)
                break
        assert proc.wait(60) == 0
        assert len(proc.stdout.read().splitlines()) == 1
    finally:
        proc.kill()
        proc.communicate()


@pytest.mark.parametrize("module, prog", [("solver.cli", "malilla-dd"), ("server", "python -m server")])
def test_help_to_a_closed_standard_output_is_one_line_and_exit_1(module, prog):
    proc = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", sys.executable, "-m", module, "--help"],
                          stderr=subprocess.PIPE, text=True, cwd=PROJECT, timeout=60)
    assert (proc.returncode, proc.stderr) == (1, f"{prog}: standard output is closed\n")


def test_the_client_with_a_closed_standard_input_is_one_line_and_exit_1():
    proc = subprocess.run(["sh", "-c", 'exec "$@" <&-', "sh", sys.executable, "-m", "server.client", "solve"],
                          capture_output=True, text=True, cwd=PROJECT, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == \
        (1, "", "python -m server.client: standard input is closed\n")


def _write_ignoring_a_closed_pipe(stream, data: bytes) -> None:
    with contextlib.suppress(BrokenPipeError):
        stream.write(data)
    with contextlib.suppress(BrokenPipeError):
        stream.close()


@pytest.mark.parametrize("module, command, prog", [
    ("solver.cli", ["--version"], "malilla-dd"), ("solver.cli", ["--help"], "malilla-dd"),
    ("solver.cli", ["solve", "--help"], "malilla-dd"), ("server", ["--help"], "python -m server"),
    ("server.client", ["--help"], "python -m server.client"),
])
def test_help_or_version_that_cannot_be_written_is_exit_1(module, command, prog):
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", module, *command], stdout=full, stderr=subprocess.PIPE,
                              text=True, cwd=PROJECT, timeout=60)
    assert (proc.returncode, proc.stderr) == (1, f"{prog}: standard output: No space left on device\n")


def test_a_report_that_cannot_be_written_names_its_file_and_exits_1():
    proc = run("analyze", "--html", "/dev/full", stdin="")
    assert (proc.returncode, proc.stderr) == (1, "malilla-dd analyze: /dev/full: No space left on device\n")


def test_write_file_names_the_file_it_cannot_write():
    with pytest.raises(OSError, match="No space left on device") as err:
        write_file("/dev/full", "text")
    assert err.value.filename == "/dev/full"


@pytest.mark.parametrize("command, option, message", [
    ("analyze", ["--single-dummy", "-5"], "--single-dummy: -5 must be at least 0"),
    ("advise", ["--samples", "0"], "--samples: 0 must be at least 1"),
    ("advise", ["--goal", "-5"], "--goal: -5 must be at least 0"),
    ("analyze", ["--seed", "3"], "--seed: no effect with --single-dummy 0 (the default)"),
])
def test_a_count_that_every_line_would_refuse_is_a_usage_error(command, option, message):
    proc = run(command, *option, stdin="{}\n")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines()[-1] == f"malilla-dd {command}: error: {message}"


def test_text_that_standard_output_cannot_encode_is_escaped_and_the_run_goes_on():
    """The error of a line quoting a character ASCII lacks, in the readable form on an ASCII
    output: escaped, as standard error escapes it, and the next line is answered."""
    good = json.dumps(load_vectors("endgames3")[0])
    proc = subprocess.run([sys.executable, "-m", "solver.cli", "solve", "--pretty"],
                          input='{"game": "\u00e9"}\n' + good, capture_output=True, text=True, encoding="utf-8",
                          cwd=PROJECT, timeout=120,
                          env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert proc.returncode == 0, proc.stderr
    assert "unknown game '\\xe9'" in proc.stdout and "Line: " in proc.stdout   # and the next line's answer


@pytest.mark.parametrize("command", ["legal", "analyze"])
def test_a_line_longer_than_the_most_is_refused_and_the_next_answered(tmp_path, command):
    """Also when all its first MAX_LINE characters are white space, which a blank line holds."""
    from solver.jsonlines import MAX_LINE
    good = json.dumps(played_deal("manille", 3, 4) if command == "analyze" else legal_lines(2)[0])
    path = tmp_path / "long.jsonl"
    refused = {"error": f"position: more than {MAX_LINE:,} characters, the most a line may hold"}
    if command == "analyze":
        refused = {"error": f"deal: more than {MAX_LINE:,} characters, the most a line may hold"}
    with open(path, "w") as f:
        f.write('{"game": "' + "x" * MAX_LINE + '"}\n' + " " * MAX_LINE + "{}\n" + good + "\n")
    proc = run(command, str(path))
    assert proc.returncode == 0, proc.stderr
    out = answers(proc)
    assert out[:2] == [refused, refused] and len(out) == 3 and "error" not in out[2]
