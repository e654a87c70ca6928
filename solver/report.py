"""The play-analysis report: one self-contained HTML page for a file of played deals.

Everything is inline (CSS, the script, the data as JSON): the page loads
nothing from the network. The hands diagram and the tricks are plain HTML, so
they read without the script; the script draws each deal's chart of the
double-dummy value card by card (an inline SVG, from the embedded data) and
opens a card's details (its value, cost and every alternative) on click.
"""
from __future__ import annotations

import html
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .analysis import UNITS, Analysis, CardAnalysis, SummaryTotals, plain_most
from .cards import SEATS, SUITS
from .failures import write_file
from .quoting import counted, quoted
from .scoring import SIDE_NAMES, deal_multiplier

__all__ = ["ReportItem", "render_report", "write_report", "cost_class"]

SUIT_SYMBOLS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs", "NT": "no-trump"}
RED_SUITS = ("H", "D")


@dataclass(frozen=True)
class ReportItem:
    """One line of the input: its analysis, or the error that stopped it."""

    line: int
    analysis: Analysis | None = None
    error: str | None = None


def cost_class(cost: int, small: int = 4) -> str:
    """CSS class of a card's cost: optimal, a small loss (up to `small` points) or a big one."""
    if cost <= 0:
        return "ok"
    return "small" if cost <= small else "big"


def _multiplier(analysis: Analysis) -> int:
    """What a point is worth in the unit of the analysis: 1, or under the score objective the deal's
    multiplier without a capot."""
    start = analysis.start
    return deal_multiplier(start.profile, start.trump, start.pending_doubling) if analysis.objective == "score" else 1


def _small_limit(analysis: Analysis) -> int:
    """A small loss is less than the top card's worth (4 points in both games), in the analysis's unit."""
    return (max(analysis.profile.points) - 1) * _multiplier(analysis)


def _esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _card_html(card: str) -> str:
    suit = card[-1]
    colour = "red" if suit in RED_SUITS else "black"
    return f'<span class="cd {colour}">{_esc(card[:-1])}{SUIT_SYMBOLS[suit]}</span>'


def _card_text(card: str) -> str:
    return card[:-1] + SUIT_SYMBOLS[card[-1]]


def _hand_html(analysis: Analysis, seat: int) -> str:
    cards = analysis.start.hand(seat)
    rows = []
    for suit in SUITS:
        ranks = [c[:-1] for c in cards if c[-1] == suit]
        colour = "red" if suit in RED_SUITS else "black"
        trump = " trump" if analysis.start.trump == suit else ""
        rows.append(f'<div class="suit{trump}"><span class="sym {colour}">{SUIT_SYMBOLS[suit]}</span> '
                    f'{_esc(" ".join(ranks)) or "&mdash;"}</div>')
    summary = analysis.seats[SEATS[seat]]
    roles = []
    if seat == analysis.deal.dealer:
        roles.append("dealer")
    if seat == analysis.start.leader:
        roles.append("leads")
    role = f' <span class="role">{", ".join(roles)}</span>' if roles else ""
    cost = (f'<div class="seatcost {cost_class(summary.cost, _small_limit(analysis))}">cost {summary.cost} in '
            f'{summary.mistakes} mistake{"s" if summary.mistakes != 1 else ""}</div>') if summary.cards else ""
    return (f'<div class="hand seat-{SEATS[seat]}" data-seat="{SEATS[seat]}"><div class="seatname">{SEATS[seat]}'
            f'{role}</div>{"".join(rows)}{cost}</div>')


def _diagram(analysis: Analysis) -> str:
    trump = analysis.start.trump
    sym = SUIT_SYMBOLS.get(trump, "NT")
    colour = "red" if trump in RED_SUITS else "black"
    centre = (f'<div class="centre"><div>trump</div><div class="bigsym {colour}">{sym}</div>'
              f'<div>{_esc(SUIT_WORDS[trump])}</div></div>')
    cells = {s: _hand_html(analysis, SEATS.index(s)) for s in SEATS}
    return (f'<div class="diagram"><div></div>{cells["N"]}<div></div>{cells["W"]}{centre}{cells["E"]}'
            f'<div></div>{cells["S"]}<div></div></div>')


def _card_title(c: CardAnalysis, side: str, unit: str) -> str:
    best = ", ".join(_card_text(b) for b in c.best)
    if c.forced:
        head = f"{c.seat} played {_card_text(c.card)} (forced)"
    elif c.cost == 0:
        head = f"{c.seat} played {_card_text(c.card)}: optimal"
    else:
        head = f"{c.seat} played {_card_text(c.card)}: cost {c.cost}"
    if c.loses_capot:
        head += ", losing the capot"
    text = f"{head}. {side} {c.before} {unit} before, {c.after} after. Best: {best}"
    if c.single_dummy:   # analyze(..., single_dummy=N)
        sd = c.single_dummy
        text += (f". Single dummy over {sd['samples']} layouts: {sd['verdict']} "
                 f"({sd['loss']:g} points below the best on average)")
    return text


def _cost_mark(c: CardAnalysis) -> str:
    """What a card's button shows under it: its cost, or "capot" for a card that loses one at no cost."""
    if c.cost:
        return f"&minus;{c.cost}"
    return "capot" if c.loses_capot else "&nbsp;"


def _tricks_html(analysis: Analysis, deal_no: int) -> str:
    small = _small_limit(analysis)
    rows = []
    cards = analysis.cards
    for t, trick in enumerate(analysis.tricks):
        cells = []
        for j in range(len(trick.cards)):
            c = cards[4 * t + j]
            cls = cost_class(c.cost, small)
            win = " winner" if trick.winner == c.seat else ""
            cells.append(
                f'<button type="button" class="play {cls}{win}" data-deal="{deal_no}" data-index="{c.index}" '
                f'title="{_esc(_card_title(c, SIDE_NAMES[c.side], analysis.unit))}"><span class="who">{c.seat}</span>'
                f'{_card_html(c.card)}<span class="cost">{_cost_mark(c)}</span>'
                f'</button>')
        illegal = analysis.illegal
        if illegal is not None and illegal.index // 4 == t:
            cells.append(f'<span class="play illegal" data-index="{illegal.index}" '
                         f'title="{_esc(illegal.rule)}"><span class="who">{illegal.seat}</span>'
                         f'{_card_html(illegal.card)}<span class="cost">illegal</span></span>')
        winner = f"won by {trick.winner}" if trick.winner else "unfinished"
        rows.append(f'<li class="trick" data-trick="{t + 1}"><span class="tno">{t + 1}</span>'
                    f'<span class="cards">{"".join(cells)}</span>'
                    f'<span class="tres">{winner}<br><small>{trick.points} pts</small></span></li>')
    return f'<ol class="tricks">{"".join(rows)}</ol>'


def _result_html(analysis: Analysis) -> str:
    r = analysis.result
    ns, ew = SIDE_NAMES
    lines = []
    if r.score is not None:
        winner = r.score.winner
        scored = "nobody scores (tie)" if winner is None else f"{SIDE_NAMES[winner]} score {r.score.score[winner]}"
        extra = []
        if r.score.capot:
            extra.append("capot")
        if r.score.multiplier > 1 and winner is not None:   # a tie scores 0 whatever it is
            extra.append(f"x{r.score.multiplier}")
        scored += f" ({', '.join(extra)})" if extra else ""
        lines.append(f"<tr><th>Played</th><td>{ns} {r.points[0]} &ndash; {ew} {r.points[1]}</td>"
                     f"<td>{r.tricks[0]}&ndash;{r.tricks[1]} tricks</td><td>{_esc(scored)}</td></tr>")
    else:
        lines.append(f"<tr><th>So far</th><td>{ns} {r.points[0]} &ndash; {ew} {r.points[1]}</td>"
                     f"<td>{r.tricks[0]}&ndash;{r.tricks[1]} tricks</td><td>deal unfinished</td></tr>")
        lines.append(f"<tr><th>Projected</th><td>{ns} {r.projected[0]} &ndash; {ew} {r.projected[1]}</td>"
                     f"<td colspan=2>{analysis.unit}, perfect play from the last card</td></tr>")
    dd_winner = next((s for s in (0, 1) if r.dd_score[s]), None)
    dd_scored = "nobody scores" if dd_winner is None else f"{SIDE_NAMES[dd_winner]} score {r.dd_score[dd_winner]}"
    start = analysis.deal.start
    dd_extra = ["capot"] if r.dd_capot else []
    dd_multiplier = deal_multiplier(start.profile, start.trump, r.pending_doubling, r.dd_capot)
    if dd_multiplier > 1 and dd_winner is not None:
        dd_extra.append(f"x{dd_multiplier}")
    dd_scored += f" ({', '.join(dd_extra)})" if dd_extra else ""
    lines.append(f"<tr><th>Double dummy</th><td>{ns} {r.dd_points[0]} &ndash; {ew} {r.dd_points[1]}</td>"
                 f"<td>from the start</td><td>{_esc(dd_scored)}</td></tr>")
    seats = "".join(
        f'<tr><th>{s}</th><td>{analysis.seats[s].cards}</td><td>{analysis.seats[s].mistakes}</td>'
        f'<td class="{cost_class(analysis.seats[s].cost, _small_limit(analysis))}">{analysis.seats[s].cost}</td></tr>'
        for s in SEATS)
    notes = list(r.notes)
    if r.pending_doubling:
        notes.append("The previous deal was tied: this deal's score counts double.")
    if r.dealer_bonus:
        b = r.dealer_bonus
        notes.append(f"Dealer's bonus: {b['card']} shown, {counted(b['points'], 'point')} to {b['side']}, {b['rule']}.")
    if r.penalty:
        notes.append(r.penalty["text"])
    if analysis.illegal is not None:
        notes.insert(0, f"Illegal card: {analysis.illegal.rule}")
    notes_html = "".join(f"<li>{_esc(n)}</li>" for n in notes)
    return (f'<div class="results"><table class="result">{"".join(lines)}</table>'
            f'<table class="seats"><tr><th>seat</th><th>cards</th><th>mistakes</th><th>cost</th></tr>{seats}</table>'
            f'{f"<ul class=notes>{notes_html}</ul>" if notes else ""}</div>')


def _deal_data(analysis: Analysis) -> dict[str, Any]:
    """The deal's chart and card details for the script, in the analysis's unit: the chart's top,
    its grid step and its halfway line (None in match points) and the value at the start."""
    r = analysis.result
    profile = analysis.profile
    if analysis.objective == "score":
        top, half, start = plain_most(analysis.start) * profile.capot_multiplier, None, r.dd_score
    else:
        top, half, start = profile.total_points, profile.half, r.dd_points
    return {
        "total": top,
        "half": half,
        "step": 10 * _multiplier(analysis),
        "objective": analysis.objective,
        "unit": analysis.unit,
        "start": list(start),
        "small": _small_limit(analysis),
        "cards": [{"card": c.card, "seat": c.seat, "side": SIDE_NAMES[c.side], "before": c.before, "after": c.after,
                   "cost": c.cost, "best": list(c.best), "values": [[k, v] for k, v in c.values.items()],
                   "deal": list(c.deal_value()), "trick": c.trick + 1, "loses_capot": c.loses_capot}
                  for c in analysis.cards],
    }


def _deal_section(item: ReportItem, deal_no: int) -> str:
    if item.analysis is None:
        return (f'<section class="deal error" id="deal-{deal_no}"><h2>Line {item.line}</h2>'
                f'<p class="err">Not analysed: {_esc(item.error)}</p></section>')
    a = item.analysis
    trump = a.start.trump
    heading = (f"Deal {deal_no + 1} <small>line {item.line} &middot; {_esc(a.profile.name.capitalize())}, "
               f"trump {_esc(SUIT_WORDS[trump])}, dealer {_esc(a.result.dealer)}, {SEATS[a.start.leader]} leads, "
               f"{counted(len(a.cards), 'card')} analysed in {a.unit}</small>")
    chart = (f'<figure class="chartbox"><svg class="chart" data-deal="{deal_no}" viewBox="0 0 640 260" '
             f'role="img" aria-label="double-dummy value of the deal card by card"></svg>'
             f'<figcaption><span class="key ns"></span>N-S <span class="key ew"></span>E-W: '
             f'{a.unit} of the deal with perfect play from each card on</figcaption></figure>')
    detail = (f'<div class="detail" data-deal="{deal_no}" hidden></div>')
    return (f'<section class="deal" id="deal-{deal_no}" data-deal="{deal_no}"><h2>{heading}</h2>'
            f'<div class="top">{_diagram(a)}{chart}</div>{_result_html(a)}'
            f'<h3>The play <small>click a card for its alternatives</small></h3>{detail}'
            f'{_tricks_html(a, deal_no)}</section>')


def _summary(items: list[ReportItem]) -> str:
    totals = SummaryTotals.of([i.analysis for i in items if i.analysis is not None])
    rows = []
    for s in SEATS:
        cards, cost = totals.cards[s], totals.cost[s]
        rows.append(f"<tr><th>{s}</th><td>{cards}</td><td>{totals.mistakes[s]}</td><td>{cost}</td>"
                    f"<td>{cost / cards if cards else 0:.2f}</td></tr>")
    links = "".join(
        f'<li><a href="#deal-{k}">{"Deal " + str(k + 1) if i.analysis else "Line " + str(i.line) + " (error)"}</a></li>'
        for k, i in enumerate(items))
    return (f'<section class="summary"><table class="seats"><tr><th>seat</th><th>cards</th><th>mistakes</th>'
            f'<th>cost ({UNITS[totals.objective]})</th><th>per card</th></tr>{"".join(rows)}</table>'
            f'<div class="legend"><span class="play ok">optimal</span><span class="play small">small loss</span>'
            f'<span class="play big">big loss</span><span class="play illegal">illegal</span>'
            f'<span class="play ok winner">won the trick</span></div>'
            f'{f"<ol class=index>{links}</ol>" if len(items) > 1 else ""}</section>')


CSS = """
:root{--ok:#1b7f3b;--okb:#e6f4ea;--sm:#8a6d00;--smb:#fff4c2;--bg:#c5221f;--bgb:#fde2df;--ink:#1f2328;--mute:#667085;
--ns:#1a5fb4;--ew:#c64600;--line:#d0d7de}
*{box-sizing:border-box}body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);
margin:0;background:#f6f8fa}header{background:#24292f;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px}
header p{margin:2px 0 0;color:#c9d1d9;font-size:13px}main{max-width:1100px;margin:0 auto;padding:16px}
section{background:#fff;border:1px solid var(--line);border-radius:10px;padding:14px 18px;margin:0 0 18px}
h2{margin:0 0 10px;font-size:18px}h2 small,h3 small{color:var(--mute);font-weight:normal;font-size:13px}
h3{font-size:15px;margin:14px 0 6px}.top{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}
.diagram{display:grid;grid-template-columns:repeat(3,minmax(110px,auto));gap:6px;align-items:center}
.hand{border:1px solid var(--line);border-radius:8px;padding:6px 9px;background:#fbfcfd;min-width:120px}
.seatname{font-weight:700}.role{font-weight:normal;color:var(--mute);font-size:12px}
.suit{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:14px;white-space:nowrap}
.suit.trump{background:#f0f4ff;border-radius:4px}.sym{display:inline-block;width:1.1em}
.centre{text-align:center;color:var(--mute);font-size:12px}.bigsym{font-size:34px;line-height:1.1}
.red{color:#c5221f}.black{color:#1f2328}.seatcost{font-size:12px;margin-top:3px;border-radius:4px;padding:0 4px}
.chartbox{flex:1;min-width:320px;margin:0}.chart{width:100%;height:auto;background:#fbfcfd;border:1px solid var(--line);
border-radius:8px}figcaption{font-size:12px;color:var(--mute)}.key{display:inline-block;width:14px;height:3px;
vertical-align:middle;margin:0 4px 0 8px}.key.ns{background:var(--ns)}.key.ew{background:var(--ew)}
.results{display:flex;flex-wrap:wrap;gap:18px;margin-top:12px}table{border-collapse:collapse;font-size:14px}
td,th{padding:3px 9px;border-bottom:1px solid #eaeef2;text-align:left}.seats td{text-align:right}
.notes{margin:0;padding-left:18px;font-size:13px;color:#444;max-width:480px}
.tricks{list-style:none;padding:0;margin:0}.trick{display:flex;align-items:center;gap:10px;padding:5px 0;
border-bottom:1px solid #eaeef2}.tno{width:26px;text-align:right;color:var(--mute);font-weight:700}
.cards{display:flex;gap:6px;flex:1;flex-wrap:wrap}.tres{width:90px;font-size:13px;color:var(--mute)}
.play{display:inline-flex;flex-direction:column;align-items:center;min-width:54px;padding:3px 6px;border-radius:7px;
border:2px solid transparent;font:inherit;cursor:pointer;background:#eee}.play .who{font-size:11px;color:var(--mute)}
.play .cd{font-size:17px;font-weight:700}.play .cost{font-size:11px;font-weight:700}
.ok{background:var(--okb);color:var(--ok)}.small{background:var(--smb);color:var(--sm)}.big{background:var(--bgb);
color:var(--bg)}.play.winner{border-color:#8c959f}.play.illegal{background:#24292f;color:#fff;cursor:help}
.play.illegal .cd,.play.illegal .who{color:#fff;text-decoration:line-through}.play.sel{outline:3px solid #0969da}
.legend{display:flex;gap:8px;margin:8px 0}.legend .play{cursor:default;flex-direction:row;font-size:13px}
.detail{border:1px solid #0969da;background:#f3f8ff;border-radius:8px;padding:8px 12px;margin:6px 0 10px}
.detail table{margin-top:4px}.detail .isbest td{font-weight:700}.detail .played td{background:#fff}
.err{color:var(--bg)}.index{columns:4;font-size:13px}
"""

SCRIPT = r"""
(function () {
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var NS = 'http://www.w3.org/2000/svg';
  var SYM = {S: '\u2660', H: '\u2665', D: '\u2666', C: '\u2663'};
  function txt(card) { return card.slice(0, -1) + SYM[card.slice(-1)]; }
  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function drawChart(svg, deal) {
    var W = 640, H = 260, L = 42, R = 14, T = 14, B = 30;
    var n = deal.cards.length, total = deal.total;
    var xs = function (i) { return L + (W - L - R) * (n ? i / n : 0); };
    var ys = function (v) { return T + (H - T - B) * (1 - v / total); };
    var grid = el('g', {'class': 'grid'}, svg);
    for (var v = 0; v <= total; v += deal.step) {
      el('line', {x1: L, x2: W - R, y1: ys(v), y2: ys(v), stroke: '#eaeef2'}, grid);
      el('text', {x: L - 6, y: ys(v) + 4, 'text-anchor': 'end', 'font-size': 11, fill: '#667085'}, grid)
        .textContent = v;
    }
    if (deal.half !== null) el('line', {x1: L, x2: W - R, y1: ys(deal.half), y2: ys(deal.half), stroke: '#8c959f',
                                        'stroke-dasharray': '4 4'}, grid);
    for (var t = 0; 4 * t <= n; t++) {
      el('line', {x1: xs(4 * t), x2: xs(4 * t), y1: T, y2: H - B, stroke: '#eaeef2'}, grid);
      if (4 * t < n) el('text', {x: xs(4 * t + 2), y: H - B + 16, 'text-anchor': 'middle', 'font-size': 11,
                                 fill: '#667085'}, grid).textContent = 'T' + (t + 1);
    }
    var sides = [['ns', 0, '#1a5fb4'], ['ew', 1, '#c64600']];
    var points = 0;
    sides.forEach(function (s) {
      var vals = [deal.start[s[1]]].concat(deal.cards.map(function (c) { return c.deal[s[1]]; }));
      var d = vals.map(function (v, i) { return (i ? 'L' : 'M') + xs(i).toFixed(1) + ' ' + ys(v).toFixed(1); })
        .join(' ');
      el('path', {d: d, fill: 'none', stroke: s[2], 'stroke-width': 2.2, 'class': 'series ' + s[0],
                  'data-points': vals.length}, svg);
      vals.forEach(function (v, i) {
        var c = i ? deal.cards[i - 1] : null;
        var colour = !c || c.cost === 0 ? s[2] : (c.cost <= deal.small ? '#d4a100' : '#c5221f');
        var dot = el('circle', {cx: xs(i), cy: ys(v), r: c && c.cost ? 4 : 2.5, fill: colour,
                                'class': 'pt ' + s[0], 'data-index': i - 1}, svg);
        el('title', {}, dot).textContent = (c ? 'after ' + c.seat + ' ' + txt(c.card) +
          (c.cost ? ' (cost ' + c.cost + ')' : '') : 'start') + ': ' + (s[1] ? 'E-W ' : 'N-S ') + v;
        points++;
      });
    });
    svg.setAttribute('data-points', points);
    svg.setAttribute('data-drawn', 'true');
  }
  function showDetail(button) {
    var k = +button.getAttribute('data-deal'), i = +button.getAttribute('data-index');
    var deal = data.deals[k], c = deal.cards[i];
    var panel = document.querySelector('.detail[data-deal="' + k + '"]');
    var sel = document.querySelectorAll('.play.sel');
    for (var j = 0; j < sel.length; j++) sel[j].classList.remove('sel');
    button.classList.add('sel');
    var rows = c.values.map(function (cv) {
      var cls = (c.best.indexOf(cv[0]) >= 0 ? 'isbest' : '') + (cv[0] === c.card ? ' played' : '');
      return '<tr class="' + cls + '"><td>' + txt(cv[0]) + '</td><td>' + cv[1] + '</td><td>' +
        (c.before - cv[1] ? '&minus;' + (c.before - cv[1]) : 'best') + '</td><td>' +
        (cv[0] === c.card ? 'played' : '') + '</td></tr>';
    }).join('');
    var worth = deal.objective === 'score' ? '\'s deal score was ' + c.before + ' before it, ' :
      ' would take ' + c.before + ' of the remaining points before it, ';
    panel.innerHTML = '<strong>Trick ' + c.trick + ': ' + c.seat + ' played ' + txt(c.card) + '</strong> &mdash; ' +
      (c.cost ? 'cost ' + c.cost + ' ' + (c.cost === 1 ? deal.unit.slice(0, -1) : deal.unit) : 'optimal') +
      (c.loses_capot ? ', losing the capot' : '') + '. ' + c.side + worth + c.after + ' after it. Best: ' +
      c.best.map(txt).join(', ') + '.<table><tr><th>card</th><th>' + c.side + ' value</th><th>loss</th><th></th>' +
      '</tr>' + rows + '</table>';
    panel.hidden = false;
    var dots = document.querySelectorAll('svg.chart[data-deal="' + k + '"] circle.pt');
    for (var d = 0; d < dots.length; d++) {
      var on = +dots[d].getAttribute('data-index') === i;
      dots[d].setAttribute('stroke', on ? '#0969da' : 'none');
      dots[d].setAttribute('stroke-width', on ? 3 : 0);
    }
  }
  var charts = document.querySelectorAll('svg.chart');
  for (var c = 0; c < charts.length; c++) {
    drawChart(charts[c], data.deals[+charts[c].getAttribute('data-deal')]);
  }
  document.addEventListener('click', function (ev) {
    var b = ev.target.closest && ev.target.closest('button.play');
    if (!b) return;
    showDetail(b);
    if (history.replaceState) history.replaceState(null, '', '#deal-' + b.getAttribute('data-deal') + '-card-' +
                                                   b.getAttribute('data-index'));
  });
  var m = /^#deal-(\d+)-card-(\d+)$/.exec(location.hash);
  var linked = m && document.querySelector('button.play[data-deal="' + m[1] + '"][data-index="' + m[2] + '"]');
  if (linked) { showDetail(linked); linked.scrollIntoView({block: 'center'}); }
  document.body.setAttribute('data-ready', 'true');
})();
"""


def _json_for_script(obj: Any) -> str:
    """JSON that cannot end its <script> element early."""
    return json.dumps(obj, separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e") \
        .replace("&", "\\u0026")


def render_report(items: Iterable[ReportItem | Analysis], title: str = "Play analysis") -> str:
    """The page, as text: every deal of `items` (analyses of one objective, or report items with the input's
    line numbers)."""
    deals = []
    for k, item in enumerate(items):
        if not isinstance(item, (ReportItem, Analysis)):
            raise ValueError(f"items[{k}]: {quoted(item)} is not an Analysis or a ReportItem")
        deals.append(item if isinstance(item, ReportItem) else ReportItem(k + 1, item))
    data = {"deals": [_deal_data(i.analysis) if i.analysis is not None else {"cards": [], "error": i.error}
                      for i in deals]}
    sections = "".join(_deal_section(item, k) for k, item in enumerate(deals))
    count = sum(1 for i in deals if i.analysis is not None)
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,'
        f'initial-scale=1"><title>{_esc(title)}</title><style>{CSS}</style></head><body>'
        f'<header><h1>{_esc(title)}</h1><p>{counted(count, "deal")} analysed double dummy: each card coloured by what '
        f'it gave away; hover a card for its best alternatives, click it for every card\'s value.</p>'
        f'</header><main>{_summary(deals)}{sections}</main>'
        f'<script type="application/json" id="report-data">{_json_for_script(data)}</script>'
        f"<script>{SCRIPT}</script></body></html>\n")


def write_report(path: str | Path, items: Iterable[ReportItem | Analysis], title: str = "Play analysis") -> None:
    """Write `render_report`'s page to `path`."""
    write_file(path, render_report(items, title))
