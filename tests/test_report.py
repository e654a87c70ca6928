"""The HTML report: self-contained, and complete in a real headless browser after its scripts ran.

The browser test needs Debian's `chromium` (installed by .ci/run); without it the test fails.
"""
from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import PROJECT
from solver import Position, get_profile
from solver.analysis import analyze
from solver.deal import deal, random_play
from solver.report import ReportItem, cost_class, render_report
from solver.solve import Solver
from conftest import capot_thrown, played_deal
from test_analysis import illegal_at

SYMBOLS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}


class Element:
    def __init__(self, tag: str, attrs: dict[str, str], parent: Element | None) -> None:
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.nodes: list[Element | str] = []

    @property
    def text(self) -> str:
        """The element's own text (not its children's)."""
        return "".join(n for n in self.nodes if isinstance(n, str))

    def all_text(self) -> str:
        return "".join(n if isinstance(n, str) else n.all_text() for n in self.nodes)

    def find_all(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> list[Element]:
        out = []
        for c in self.nodes:
            if isinstance(c, str):
                continue
            if ((tag is None or c.tag == tag) and (cls is None or cls in c.attrs.get("class", "").split())
                    and all(c.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items())):
                out.append(c)
            out.extend(c.find_all(tag, cls, **attrs))
        return out


VOID = {"meta", "br", "input", "img", "link", "hr", "source", "wbr"}


class Tree(HTMLParser):
    """A small DOM from the HTML text (enough for the report's well-formed output)."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.root = self.current = Element("#root", {}, None)
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        el = Element(tag, {k: v or "" for k, v in attrs}, self.current)
        self.current.nodes.append(el)
        if tag not in VOID:
            self.current = el

    def handle_startendtag(self, tag, attrs):
        self.current.nodes.append(Element(tag, {k: v or "" for k, v in attrs}, self.current))

    def handle_endtag(self, tag):
        el = self.current
        while el is not None and el.tag != tag:
            el = el.parent
        if el is not None and el.parent is not None:
            self.current = el.parent

    def handle_data(self, data):
        self.current.nodes.append(data)


def card_text(card: str) -> str:
    return card[:-1] + SYMBOLS[card[-1]]


@pytest.fixture(scope="module")
def analyses():
    solver = Solver()
    complete = analyze(played_deal("malilla", 6), solver)
    partial = analyze(played_deal("manille", 4, 11), solver)
    obj, _, _ = illegal_at("malilla", 10)
    illegal = analyze(obj, solver)
    return [complete, partial, illegal]


@pytest.fixture(scope="module")
def items(analyses):
    return [ReportItem(1, analyses[0]), ReportItem(2, analyses[1]), ReportItem(3, error="hands: <b>bad</b>"),
            ReportItem(4, analyses[2])]


def check_static_page(page: str, items: list[ReportItem]) -> Tree:
    """The page before any script: every deal's cards and tricks, no outside resource."""
    assert page.startswith("<!DOCTYPE html>")
    urls = set(re.findall(r"https?://[^\s\"'<>)]*", page))
    assert urls <= {"http://www.w3.org/2000/svg"}   # the SVG namespace name, never fetched
    assert not re.search(r"<(link|img|iframe|object|embed)\b|\bsrc=|@import|url\(", page)
    tree = Tree(page)
    sections = tree.root.find_all("section", "deal")
    assert len(sections) == len(items)
    for k, (item, section) in enumerate(zip(items, sections)):
        if item.analysis is None:
            assert "error" in section.attrs["class"]
            assert item.error in section.all_text()
            continue
        a = item.analysis
        buttons = section.find_all("button", "play")
        assert [b.attrs["data-index"] for b in buttons] == [str(c.index) for c in a.cards]
        for b, c in zip(buttons, a.cards):
            assert b.attrs["data-deal"] == str(k)
            assert card_text(c.card) in b.all_text() and c.seat in b.all_text()
            assert cost_class(c.cost) in b.attrs["class"].split()
            assert "Best: " + ", ".join(card_text(x) for x in c.best) in b.attrs["title"]
        tricks = section.find_all("li", "trick")
        expected = len(a.tricks) + (1 if a.illegal is not None and a.illegal.index % 4 == 0 else 0)
        assert len(tricks) == expected
        if a.illegal is not None:
            (bad,) = section.find_all(cls="illegal", data_index=str(a.illegal.index))
            assert card_text(a.illegal.card) in bad.all_text() and bad.attrs["title"] == a.illegal.rule
        hands = section.find_all("div", "hand")
        assert [h.attrs["data-seat"] for h in hands] == ["N", "W", "E", "S"]
        for h in hands:
            start = a.start.hand(h.attrs["data-seat"])
            for suit, sym in SYMBOLS.items():
                ranks = " ".join(c[:-1] for c in start if c[-1] == suit)
                if ranks:
                    assert f"{sym} {ranks}" in h.all_text()
    return tree


class TestStaticPage:
    def test_cards_tricks_hands_and_no_outside_resource(self, items) -> None:
        page = render_report(items, "report <test>")
        tree = check_static_page(page, items)
        assert "<title>report &lt;test&gt;</title>" in page
        assert "<b>bad</b>" not in page   # the error text is escaped
        (data,) = tree.root.find_all("script", id="report-data")
        deals = json.loads(data.text)["deals"]
        assert [len(d["cards"]) for d in deals] == [len(i.analysis.cards) if i.analysis else 0 for i in items]
        first = items[0].analysis
        assert deals[0]["start"] == list(first.result.dd_points)
        assert [c["deal"] for c in deals[0]["cards"]] == [list(c.deal_value()) for c in first.cards]

    def test_cost_classes(self) -> None:
        assert [cost_class(c) for c in (0, 1, 4, 5, 30)] == ["ok", "small", "small", "big", "big"]

    def test_plain_analyses_are_accepted(self, analyses) -> None:
        page = render_report(analyses[:1])
        assert page.count('class="deal"') == 1 and "line 1" in page

    @pytest.mark.parametrize("trump, pending, multiplier", [("H", True, 2), ("NT", True, 4), ("NT", False, 2),
                                                            ("H", False, 1)])
    def test_the_multipliers_of_the_deal_score_are_shown(self, trump, pending, multiplier) -> None:
        """A no-trump deal and a pending doubling (Manille) multiply the played and the double-dummy scores."""
        obj = deal(get_profile("manille"), seed=7, trump=trump).to_deal_json()
        obj.update(play=random_play(Position.from_json(obj), random.Random(7)), pending_doubling=pending)
        analysis = analyze(obj, Solver(1 << 22))
        assert not analysis.result.dd_capot and not analysis.result.score.capot
        rows = {row.find_all("th")[0].all_text(): row.all_text() for row in Tree(render_report([analysis])).root
                .find_all("tr") if row.find_all("th") and row.find_all("td")}
        for name in ("Played", "Double dummy"):
            assert (f"(x{multiplier})" in rows[name]) == (multiplier > 1), rows[name]
        assert ("counts double" in render_report([analysis])) == pending

    def test_single_dummy_verdicts_are_in_the_cards_titles(self) -> None:
        analysis = analyze(played_deal("manille", 2, cards=8), Solver(1 << 22), single_dummy=3)
        page = render_report([analysis])
        verdicts = [c.single_dummy for c in analysis.cards if c.single_dummy]
        assert verdicts
        for sd in verdicts:
            assert (f"Single dummy over 3 layouts: {sd['verdict']} ({sd['loss']:g} points below the best on "
                    f"average)") in page


class TestDealScorePage:
    """The page of analyses under the deal-score objective is in match points; a card that loses a
    capot says so under either objective."""

    @pytest.fixture(scope="class")
    @classmethod
    def capot(cls):
        return {o: analyze(capot_thrown(), Solver(1 << 22), objective=o) for o in ("points", "score")}

    def test_values_and_chart_in_match_points(self, capot) -> None:
        partial = analyze(played_deal("manille", 4, 11, pending_doubling=True), Solver(1 << 22), objective="score")
        page = render_report([capot["score"], partial])
        tree = Tree(page)
        (data,) = tree.root.find_all("script", id="report-data")
        deals = json.loads(data.text)["deals"]
        for d, a in zip(deals, (capot["score"], partial)):
            assert (d["objective"], d["unit"], d["half"]) == ("score", "match points", None)
            assert d["start"] == list(a.result.dd_score)
            assert [c["deal"] for c in d["cards"]] == [list(c.deal_value()) for c in a.cards]
        assert (deals[0]["total"], deals[0]["step"]) == (60, 10)   # a capot's 60 tops the chart
        assert (deals[1]["total"], deals[1]["step"]) == (120, 20)   # doubled by the tie before
        (button, *_) = tree.root.find_all("button", "play")
        assert button.attrs["title"].startswith("E played 8\u2665: cost 30, losing the capot. E-W 60 match points "
                                                "before, 30 after. Best: ")
        assert "\u221230" in button.all_text() and "big" in button.attrs["class"].split()
        assert "<th>cost (match points)</th>" in page and "11 cards analysed in match points" in page

    def test_in_points_the_card_is_marked_capot(self, capot) -> None:
        (button, *_) = Tree(render_report([capot["points"]])).root.find_all("button", "play")
        assert button.attrs["title"].startswith("E played 8\u2665: optimal, losing the capot. E-W 60 points before")
        assert "capot" in button.find_all("span", "cost")[0].all_text()
        assert "ok" in button.attrs["class"].split()

    def test_one_page_takes_one_objective(self, capot) -> None:
        with pytest.raises(ValueError, match=r"^objective: an analysis in match points among totals in points$"):
            render_report([capot["points"], capot["score"]])

    def test_in_the_browser(self, capot, tmp_path: Path) -> None:
        out = tmp_path / "score.html"
        out.write_text(render_report([capot["score"]]), encoding="utf-8")
        dom = Tree(chromium_dom(out, tmp_path, "#deal-0-card-0"))
        (body,) = dom.root.find_all("body")
        assert body.attrs.get("data-ready") == "true"
        (svg,) = dom.root.find_all("svg", "chart")
        assert svg.attrs.get("data-drawn") == "true" and svg.attrs["data-points"] == str(2 * 5)
        assert [t.all_text() for t in svg.find_all("text") if t.attrs.get("text-anchor") == "end"] == \
            [str(v) for v in range(0, 70, 10)]
        assert not svg.find_all("line", stroke_dasharray="4 4")   # no halfway line in match points
        (panel,) = dom.root.find_all("div", "detail")
        assert "cost 30 match points, losing the capot. E-W's deal score was 60 before it, 30 after it." in \
            panel.all_text()


def chromium_dom(path: Path, tmp_path: Path, fragment: str = "") -> str:
    """The DOM that Debian's chromium holds after the page's scripts ran."""
    exe = shutil.which("chromium")
    if exe is None:
        pytest.fail("chromium is not installed: the browser test needs Debian's chromium (see .ci/run)")
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=5000",
           "--dump-dom", path.resolve().as_uri() + fragment]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "<html" in proc.stdout, proc.stderr[-2000:]
    return proc.stdout


class TestInTheBrowser:
    def test_the_cli_page_after_its_scripts_ran(self, tmp_path: Path) -> None:
        deals = [played_deal("malilla", 6), played_deal("manille", 4, 11), illegal_at("manille", 10)[0]]
        src = tmp_path / "deals.jsonl"
        src.write_text("".join(json.dumps(d) + "\n" for d in deals) + '{"game": "manille"}\n')
        out = tmp_path / "report.html"
        proc = subprocess.run([sys.executable, "-m", "solver.cli", "analyze", str(src), "--html", str(out)],
                              capture_output=True, text=True, cwd=PROJECT, timeout=300)
        assert proc.returncode == 0, proc.stderr
        lines = [json.loads(line) for line in proc.stdout.splitlines()]
        assert len(lines) == 4 and "error" in lines[3]
        solver = Solver()
        items = [ReportItem(i + 1, analyze(d, solver)) for i, d in enumerate(deals)]
        items.append(ReportItem(4, error=lines[3]["error"]))
        check_static_page(out.read_text(encoding="utf-8"), items)

        dom = Tree(chromium_dom(out, tmp_path))
        (body,) = dom.root.find_all("body")
        assert body.attrs.get("data-ready") == "true"   # the script ran to its end
        sections = dom.root.find_all("section", "deal")
        assert len(sections) == 4
        for k, item in enumerate(items):
            section = sections[k]
            if item.analysis is None:
                assert section.find_all("svg") == []
                continue
            a = item.analysis
            n = len(a.cards)
            buttons = section.find_all("button", "play")
            assert [(b.attrs["data-index"], card_text(c.card) in b.all_text()) for b, c in zip(buttons, a.cards)] \
                == [(str(c.index), True) for c in a.cards]
            assert len(buttons) == n
            tricks = section.find_all("li", "trick")
            assert [t.attrs["data-trick"] for t in tricks] == [str(t + 1) for t in range(len(tricks))]
            assert len(tricks) >= len(a.tricks) > 0
            (svg,) = section.find_all("svg", "chart")
            assert svg.attrs.get("data-drawn") == "true"
            assert svg.attrs["data-points"] == str(2 * (n + 1))
            paths = svg.find_all("path", "series")
            assert len(paths) == 2
            for path, side in zip(paths, (0, 1)):
                steps = re.findall(r"[ML]\s*([\d.]+)\s+([\d.]+)", path.attrs["d"])
                assert len(steps) == n + 1
                assert path.attrs["data-points"] == str(n + 1)
            circles = svg.find_all("circle")
            assert len(circles) == 2 * (n + 1)
            marked = [c for c in circles if c.attrs.get("r") == "4"]
            assert len(marked) == 2 * sum(1 for c in a.cards if c.cost)
            # the y of the N-S line follows the deal's double-dummy value: equal values, equal heights
            ys = [float(y) for _, y in re.findall(r"[ML]\s*([\d.]+)\s+([\d.]+)", paths[0].attrs["d"])]
            values = [a.result.dd_points[0]] + [c.deal_value()[0] for c in a.cards]
            for i in range(n):
                assert (ys[i] == ys[i + 1]) == (values[i] == values[i + 1])
                assert (ys[i] > ys[i + 1]) == (values[i] < values[i + 1])

    def test_a_card_link_opens_its_details(self, tmp_path: Path, analyses) -> None:
        a = analyses[0]
        card = max(a.cards, key=lambda c: (c.cost, -c.index))
        assert card.cost > 0 and len(card.values) > 1
        out = tmp_path / "one.html"
        out.write_text(render_report([a]), encoding="utf-8")
        dom = Tree(chromium_dom(out, tmp_path, f"#deal-0-card-{card.index}"))
        (panel,) = dom.root.find_all("div", "detail")
        assert "hidden" not in panel.attrs
        text = panel.all_text()
        assert f"{card.seat} played {card_text(card.card)}" in text and f"cost {card.cost}" in text
        rows = panel.find_all("tr")[1:]
        assert [r.find_all("td")[0].all_text() for r in rows] == [card_text(c) for c in card.values]
        assert [r.find_all("td")[1].all_text() for r in rows] == [str(v) for v in card.values.values()]
        best_rows = [r.find_all("td")[0].all_text() for r in rows if "isbest" in r.attrs.get("class", "")]
        assert best_rows == [card_text(c) for c in card.best]
        (selected,) = dom.root.find_all("button", "sel")
        assert selected.attrs["data-index"] == str(card.index)


def test_a_tied_deal_shows_no_multiplier():
    """A tie scores 0 whatever doubles the deal (RULES.md: at 30-30 nobody scores), so the
    report's double-dummy row shows no factor for a no-trump Manille deal tied 30-30."""
    start = deal("manille", 7026, dealer=2).to_deal_json()
    analysis = analyze(dict(start, play=[]), Solver(1 << 22))
    assert start["trump"] == "NT" and analysis.result.dd_points == (30, 30)
    row = re.search(r"<th>Double dummy</th>.*?</tr>", render_report([analysis]), re.S).group(0)
    assert "nobody scores" in row and "x2" not in row
