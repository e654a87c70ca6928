"""`malilla-dd analyze` and `malilla-dd table`, run as subprocesses."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import PROJECT
from solver.analysis import analyze
from solver.cards import SEATS
from solver.solve import Solver
from solver.table import table_of
from conftest import capot_thrown, played_deal
from test_analysis import illegal_at
from test_table import seeded


def run(*args: str, stdin: str = "", env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solver.cli", *args], input=stdin, capture_output=True, text=True,
                          cwd=PROJECT, timeout=300, env={**os.environ, **(env or {})})


def jsonl(objs: list[dict]) -> str:
    return "".join(json.dumps(o) + "\n" for o in objs)


class TestAnalyzeCommand:
    deals = [played_deal("manille", 1), played_deal("malilla", 2, 9), illegal_at("manille", 10)[0]]

    def test_one_line_per_deal_a_bad_line_and_the_summary(self, tmp_path) -> None:
        path = tmp_path / "played.jsonl"
        path.write_text(jsonl(self.deals[:2]) + "\n" + '{"game": "malilla", "play": []}\n' + jsonl(self.deals[2:]))
        proc = run("analyze", str(path))
        assert proc.returncode == 0, proc.stderr
        lines = [json.loads(line) for line in proc.stdout.splitlines()]
        assert len(lines) == 4
        assert set(lines[2]) == {"error"} and "trump" in lines[2]["error"]
        solver = Solver()
        expected = [analyze(d, solver).to_json() for d in self.deals]
        assert [lines[0], lines[1], lines[3]] == expected
        assert "illegal" in lines[3] and "illegal" not in lines[0]
        # the per-seat summary goes to stderr, stdout stays JSON
        err = proc.stderr.splitlines()
        assert err[0] == "3 deals analysed, 1 stopped by an illegal card, 1 line answered with an error"
        for seat in SEATS:
            row = next(line for line in err if line.startswith(seat + " "))
            cards = sum(len([c for c in e["cards"] if c["seat"] == seat]) for e in expected)
            cost = sum(e["seats"][seat]["cost"] for e in expected)
            assert row.split()[1] == str(cards) and row.split()[3] == str(cost)
        assert "%" not in proc.stderr   # no progress bar when stderr is not a terminal

    def test_the_deal_score_objective(self) -> None:
        """Each line is the library's analysis under the objective, and the summary counts its unit."""
        deals = [capot_thrown(), self.deals[0]]
        proc = run("analyze", "--objective", "score", stdin=jsonl(deals))
        assert proc.returncode == 0, proc.stderr
        lines = [json.loads(line) for line in proc.stdout.splitlines()]
        assert lines == [analyze(d, Solver(), objective="score").to_json() for d in deals]
        assert lines[0]["cards"][0]["cost"] == 30 and lines[0]["objective"] == "score"
        err = proc.stderr.splitlines()
        assert err[0] == "2 deals analysed in match points"
        row = next(line for line in err if line.startswith("E "))
        assert row.split()[3] == str(sum(line["seats"]["E"]["cost"] for line in lines))
        proc = run("analyze", "--objective", "match", stdin=jsonl(deals))
        assert proc.returncode == 2 and proc.stdout == ""
        assert "argument --objective: invalid choice: 'match'" in proc.stderr

    def test_threads_give_the_same_analysis(self) -> None:
        """`--threads 2` searches the early positions of a deal on two threads: the same costs."""
        proc = run("analyze", "--threads", "2", stdin=jsonl(self.deals[:2]))
        assert proc.returncode == 0, proc.stderr
        assert [json.loads(line) for line in proc.stdout.splitlines()] == \
            [analyze(d, Solver()).to_json() for d in self.deals[:2]]

    def test_stdin_and_the_progress_bar_on_request(self, tmp_path) -> None:
        proc = run("analyze", "--progress", "--memory", str(1 << 22), stdin=jsonl(self.deals[:1]))
        assert proc.returncode == 0, proc.stderr
        (line,) = proc.stdout.splitlines()
        assert json.loads(line)["cards"][0]["card"] == self.deals[0]["play"][0]
        assert "1deal [" in proc.stderr   # a pipe: the count without a total
        path = tmp_path / "played.jsonl"
        path.write_text(jsonl(self.deals))
        proc = run("analyze", str(path), "--progress")
        assert proc.returncode == 0, proc.stderr
        assert "100%" in proc.stderr and "3/3" in proc.stderr   # a file: counted first
        assert len(proc.stdout.splitlines()) == 3

    def test_html_report_is_written(self, tmp_path) -> None:
        path, out = tmp_path / "played.jsonl", tmp_path / "page.html"
        path.write_text(jsonl(self.deals))
        proc = run("analyze", str(path), "--html", str(out))
        assert proc.returncode == 0, proc.stderr
        page = out.read_text(encoding="utf-8")
        assert page.count('<section class="deal"') == 3
        assert f"Play analysis: {path}" in page

    def test_an_input_file_name_that_is_not_utf8_titles_the_report(self, tmp_path) -> None:
        """File names are bytes: the title shows an undecodable one as U+FFFD."""
        path, out = os.path.join(os.fsencode(tmp_path), b"played\xff.jsonl"), tmp_path / "page.html"
        with open(path, "w") as f:
            f.write(jsonl(self.deals[:1]))
        proc = subprocess.run([sys.executable, "-m", "solver.cli", "analyze", path, "--html", str(out)],
                              capture_output=True, cwd=PROJECT, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert f"Play analysis: {tmp_path}/played\ufffd.jsonl" in out.read_text(encoding="utf-8")

    def test_a_report_that_cannot_be_written_is_refused_before_the_work(self, tmp_path) -> None:
        """A usage error naming --html, with no analysis done and no traceback."""
        for out, problem in [(tmp_path, f"{tmp_path} is a directory"),
                             (tmp_path / "missing" / "page.html", f"{tmp_path / 'missing'} is not a directory")]:
            proc = run("analyze", "--html", str(out), stdin=jsonl(self.deals[:1]))
            assert proc.returncode == 2
            assert proc.stdout == ""
            assert proc.stderr.splitlines()[-1] == f"malilla-dd analyze: error: --html: {problem}"

    def test_a_report_over_the_input_is_refused(self, tmp_path) -> None:
        path = tmp_path / "played.jsonl"
        path.write_text(jsonl(self.deals[:1]))
        proc = run("analyze", str(path), "--html", str(path))
        assert proc.returncode == 2 and proc.stdout == ""
        assert proc.stderr.splitlines()[-1] == f"malilla-dd analyze: error: --html: {path} is the input file"
        assert path.read_text() == jsonl(self.deals[:1])


class TestTableCommand:
    def test_json_lines_and_a_bad_line(self) -> None:
        objs = [seeded("manille", 5, 1), {k: v for k, v in seeded("malilla", 2, 0).items() if k != "trump"}]
        proc = run("table", stdin=jsonl(objs[:1]) + "{}\n" + jsonl(objs[1:]))
        assert proc.returncode == 0, proc.stderr
        lines = [json.loads(line) for line in proc.stdout.splitlines()]
        assert len(lines) == 3 and set(lines[1]) == {"error"}
        solver = Solver()
        assert lines[0] == table_of(objs[0], solver).to_json()
        assert lines[2] == table_of(objs[1], solver).to_json()
        assert len(lines[0]["table"]) == 20 and len(lines[2]["table"]) == 16
        assert lines[2]["trump"] is None and lines[2]["par"][0]["dealer"] == "N"

    def test_pretty_grid(self) -> None:
        proc = run("table", "--pretty", stdin=jsonl([seeded("manille", 103, 3)]))
        assert proc.returncode == 0, proc.stderr
        text = proc.stdout
        table = table_of(seeded("manille", 103, 3), Solver())
        for trump in ("S", "H", "D", "C", "NT"):
            row = next(line for line in text.splitlines() if line.startswith(f"{trump} ") and "lead" not in line)
            assert row.split()[1:5] == [str(table.entry(trump, s).ns) for s in SEATS]
        assert f"Par, dealer W (E-W), N leads: name {' or '.join(table.par[0].best)}" in text
        assert "nodes in" in text and "capot" in text

    def test_the_trumps_asked_for(self) -> None:
        objs = [seeded("manille", 5, 1), seeded("malilla", 2, 0)]
        proc = run("table", "--trumps", "nt, D", stdin=jsonl(objs))
        assert proc.returncode == 0, proc.stderr
        lines = [json.loads(line) for line in proc.stdout.splitlines()]
        assert lines == [table_of(objs[0], Solver(), trumps=["D", "NT"]).to_json(),
                         {"error": "trumps[0]: malilla has no no-trump deals (S H D C)"}]
        assert list(lines[0]["grid"]) == ["D", "NT"]
        proc = run("table", "--trumps", "C", "--pretty", stdin=jsonl(objs))
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.count("by trump and leader (only the trumps asked for: C):") == 2
        assert "Par among the trumps asked for, dealer E (E-W), S leads: name C," in proc.stdout
