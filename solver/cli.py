"""The `malilla-dd` command line: JSON lines in, JSON lines out."""
from __future__ import annotations

import argparse
import io
import json
import os
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TextIO

from . import __version__
from .cards import SEATS
from .checks import check_whole, parse_size
from .deal import deal
from .failures import ArgumentParser, flag_named, os_failure, parse_known, settle_stdout, write_file
from .jsonlines import blank_line, count_lines, input_file, input_lines, read_stdin_as_utf8, without_surrogates
from .perft import check_depth_option
from .position import Position
from .profiles import PROFILES, get_profile
from .puzzles import (ATTEMPTS_PER_PUZZLE, MARGIN, MAX_TRICKS, MIN_TRICKS, Puzzle, attempt_limit, check_options,
                      generate_attempts, mine, mined_shortfall, shortfall)
from .puzzles import pretty as pretty_puzzle
from .solve import (DEFAULT_MEMORY, MIN_MEMORY, MODES, OBJECTIVES, TARGET_MODES, SearchStopped, Solution, Solver,
                    check_memory, check_threads, check_timeout)
from .text import diagram, tricks_text

__all__ = ["main"]


def _json_lines(stream: TextIO, answer: Callable[[str], dict[str, Any]],
                out: TextIO) -> int:
    """Answer each non-blank line; a bad line gets {"error": ...} and the next goes on."""
    errors = 0
    for line in input_lines(stream):
        if blank_line(line):
            continue
        try:
            result = answer(line)
        except (ValueError, SearchStopped) as e:
            result = {"error": str(e)}
            errors += 1
        out.write(json.dumps(result) + "\n")
        out.flush()
    return errors


def cmd_legal(args: argparse.Namespace) -> int:
    def answer(line: str) -> dict[str, Any]:
        return {"legal": Position.from_json(line, strict=not args.lenient).legal_moves()}

    _json_lines(args.input, answer, sys.stdout)
    return 0


def cmd_perft(args: argparse.Namespace) -> int:
    solver = Solver(MIN_MEMORY)   # a count uses no table

    def answer(line: str) -> dict[str, Any]:
        return solver.perft(line, args.depth, args.timeout, strict=not args.lenient).to_json()

    _json_lines(args.input, answer, sys.stdout)
    return 0


def pretty(position: Position, solution: Solution, seconds: float) -> str:
    """A table of the cards and their margins for a person."""
    p = position.profile
    lines = [
        f"{p.name.capitalize()}, trump {position.trump}, {SEATS[position.to_move]} to move "
        f"({solution.side}), trick: {' '.join(position.to_json()['trick']) or '-'}",
        *diagram(position),
        "",
    ]
    unit = "score" if solution.objective == "score" else "points"
    if solution.mode in TARGET_MODES:
        verdict = "yes" if solution.reached else "no"
        cards = f" with {' or '.join(solution.best)}" if solution.cards else ""
        lines.append(f"Can {solution.side} take {solution.target} {unit}? {verdict}{cards}")
    else:
        lines.append(f"Value for {solution.side}: {solution.value} {unit}")
        lines.append(f"{'card':<6}{'value':>6}{'margin':>8}")
        for cv in solution.cards:
            mark = "  best" if cv.margin == 0 else ""
            lines.append(f"{cv.card:<6}{cv.value:>6}{cv.margin:>8}{mark}")
        alike = [" ".join(g) for g in solution.groups if len(g) > 1]
        if alike:
            lines.append("Equivalent: " + ", ".join(alike))
        lines.append("Line: " + tricks_text(solution.line, len(position.trick)))
    lines.append(f"{solution.nodes} nodes in {seconds * 1000:.1f} ms")
    return "\n".join(lines)


def cmd_solve(args: argparse.Namespace) -> int:
    solver = Solver(args.memory, args.threads)

    def run(position: Position) -> tuple[Solution, float]:
        start = time.perf_counter()
        sol = solver.solve(position, mode=args.mode, objective=args.objective, target=args.target,
                           timeout=args.timeout)
        return sol, time.perf_counter() - start

    if args.pretty:
        for line in input_lines(args.input):
            if blank_line(line):
                continue
            try:
                position = Position.from_json(line)
                sol, seconds = run(position)
                print(pretty(position, sol, seconds) + "\n", flush=True)
            except (ValueError, SearchStopped) as e:
                print(f"error: {e}\n", flush=True)
        return 0
    _json_lines(args.input, lambda line: run(Position.from_json(line))[0].to_json(), sys.stdout)
    return 0


def demo_positions() -> Iterable[Position]:
    """The embedded default: one seeded deal of each game."""
    for name in PROFILES:
        yield Position.from_json(deal(get_profile(name), seed=2026).to_position_json())


def cmd_demo(args: argparse.Namespace) -> int:
    solver = Solver(args.memory, args.threads)
    for position in demo_positions():
        start = time.perf_counter()
        sol = solver.solve(position)
        print(pretty(position, sol, time.perf_counter() - start) + "\n")
    return 0


def escape_what_stdout_cannot_encode() -> None:
    """Standard output writes a character its encoding lacks as a backslash escape, as standard
    error does, rather than stopping the run: the JSON lines are ASCII, only text for people is not."""
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="backslashreplace")


def _check_writable(path: str, option: str, source: TextIO | None = None) -> None:
    """A file `option` will write: refused now, before the work, if it cannot be written or is
    the input `source` (read while written, a batch's output would feed on itself)."""
    if not path:
        raise ValueError(f"{option}: an empty file name")
    target = Path(path)
    if target.is_dir():
        raise ValueError(f"{option}: {path} is a directory")
    if not target.parent.is_dir():
        raise ValueError(f"{option}: {target.parent} is not a directory")
    if not os.access(target.parent, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise ValueError(f"{option}: {path} is not writable")
    if source is not None and target.exists() and os.path.samestat(os.fstat(source.fileno()), target.stat()):
        raise ValueError(f"{option}: {path} is the input file")


def cmd_analyze(args: argparse.Namespace) -> int:
    """Played deals in, one analysis per line out; the summary and the progress bar on stderr."""
    from .analysis import SummaryTotals, analyze
    from .report import ReportItem, write_report

    if args.html is not None:
        _check_writable(args.html, "--html", args.input)
    solver = Solver(args.memory, args.threads)
    totals = SummaryTotals(args.objective)
    items: list[ReportItem] = []
    show = args.progress or sys.stderr.isatty()
    bar = None
    if show:
        from tqdm import tqdm
        bar = tqdm(total=count_lines(args.input), unit="deal", file=sys.stderr, delay=0 if args.progress else 0.5,
                   dynamic_ncols=True)
    number = 0
    try:
        for number, line in enumerate(input_lines(args.input), 1):
            if blank_line(line):
                continue
            try:
                analysis = analyze(line, solver, timeout=args.timeout, single_dummy=args.single_dummy,
                                   seed=args.seed or 0, objective=args.objective)
            except (ValueError, SearchStopped) as e:
                totals.errors += 1
                sys.stdout.write(json.dumps({"error": str(e)}) + "\n")
                if args.html:
                    items.append(ReportItem(number, error=str(e)))
            else:
                totals.add(analysis)
                sys.stdout.write(json.dumps(analysis.to_json()) + "\n")
                if args.html:
                    items.append(ReportItem(number, analysis))
            sys.stdout.flush()
            if bar is not None:
                bar.update()
    finally:
        if bar is not None:
            bar.close()
    if args.html:
        name = without_surrogates(str(getattr(args.input, "name", "stdin")))   # a file name need not be UTF-8
        write_report(args.html, items, f"Play analysis: {name if name != '<stdin>' else 'stdin'}")
    print(totals.format(), file=sys.stderr)
    return 0


def cmd_table(args: argparse.Namespace) -> int:
    """Full deals in, the double-dummy table under every trump (or those of --trumps) and leader, and par, out."""
    from .table import table_of

    solver = Solver(args.memory, args.threads)
    if not args.pretty:
        _json_lines(args.input, lambda line: table_of(line, solver, args.timeout, args.trumps).to_json(), sys.stdout)
        return 0
    for line in input_lines(args.input):
        if blank_line(line):
            continue
        try:
            start = time.perf_counter()
            table = table_of(line, solver, args.timeout, args.trumps)
            print(table.pretty() + f"\n{table.nodes} nodes in {(time.perf_counter() - start) * 1000:.1f} ms\n",
                  flush=True)
        except (ValueError, SearchStopped) as e:
            print(f"error: {e}\n", flush=True)
    return 0


def cmd_puzzles(args: argparse.Namespace) -> int:
    """Puzzles as JSON lines (or, with --pretty, for a person), from random deals or played deals."""

    check_options(args.min_tricks, args.max_tricks, args.margin,
                  None if args.source is not None else get_profile(args.game or "malilla"), args.count)
    _refuse_unused(args, {"--game": "game", "--seed": "seed", "--max-attempts": "max_attempts",
                          "--progress": "progress"}, args.source is not None, "--from FILE")
    solver = Solver(args.memory, args.threads)

    def emit(text: str) -> None:
        sys.stdout.write(text)
        sys.stdout.flush()

    def emit_puzzle(puzzle: Puzzle) -> None:
        emit(pretty_puzzle(puzzle) + "\n\n" if args.pretty else json.dumps(puzzle.to_json()) + "\n")

    if args.source is None:
        steps = generate_attempts(get_profile(args.game or "malilla"), args.count, args.seed or 0, args.min_tricks,
                                  args.max_tricks, args.margin, solver, args.max_attempts)
        limit = attempt_limit(args.count, args.max_attempts)
        bar = None
        if args.progress or sys.stderr.isatty():
            from tqdm import tqdm
            bar = tqdm(total=limit, unit="attempt", file=sys.stderr, delay=0 if args.progress else 0.5,
                       dynamic_ncols=True)
        attempts = found = 0
        try:
            for attempts, found, puzzle in steps:
                if puzzle is not None:
                    emit_puzzle(puzzle)
                if bar is not None:
                    bar.update()
                    bar.set_postfix(found=found, refresh=False)
        finally:
            if bar is not None:
                bar.close()
        if found < args.count:
            print(f"{args.command_parser.prog}: {shortfall(found, args.count, attempts, args.max_attempts)}",
                  file=sys.stderr)
        return 0
    found = deals = 0
    for line in input_lines(args.source):
        if blank_line(line):
            continue
        try:
            for puzzle in mine(line, args.min_tricks, args.max_tricks, args.margin, solver):
                emit_puzzle(puzzle)
                found += 1
                if found >= args.count:
                    return 0   # the rest of the input is not read
            deals += 1
        except ValueError as e:
            emit(f"error: {e}\n\n" if args.pretty else json.dumps({"error": str(e)}) + "\n")
    print(f"{args.command_parser.prog}: {mined_shortfall(found, args.count, deals)}", file=sys.stderr)
    return 0


def cmd_batch(args: argparse.Namespace) -> int:
    """A job over many deals on a Dask cluster (embedded or at --address), JSON lines out, resumable."""
    from .batch import run_batch
    from .batch_stats import BatchStats

    for path, option in ((args.output, "--output"), (args.stats_file, "--stats-file")):
        if path is not None:
            _check_writable(path, option, args.input)
    if args.output and args.stats_file and os.path.abspath(args.output) == os.path.abspath(args.stats_file):
        raise ValueError(f"--stats-file: {args.stats_file} is the --output file")
    _refuse_unused(args, {"--game": "game", "--seed": "seed"}, args.input is not None, "an input file")
    _refuse_unused(args, {"--mode": "mode"}, args.job != "solve", f"batch {args.job}")
    _refuse_unused(args, {"--objective": "objective"}, args.job not in ("solve", "analyze"), f"batch {args.job}")
    _refuse_unused(args, {"--min-tricks": "min_tricks", "--max-tricks": "max_tricks", "--margin": "margin"},
                   args.job != "puzzles", f"batch {args.job}")
    _refuse_unused(args, {"--trumps": "trumps"}, args.job != "table", f"batch {args.job}")
    _refuse_unused(args, {"--timeout": "timeout"}, args.job == "puzzles",
                   "batch puzzles (its searches run to their end)")
    given = {"memory": args.memory, "timeout": args.timeout, "mode": args.mode, "objective": args.objective,
             "target": args.target, "min_tricks": args.min_tricks, "max_tricks": args.max_tricks,
             "margin": args.margin, "trumps": args.trumps}
    options = {name: value for name, value in given.items() if value is not None}   # the jobs' defaults otherwise
    stats = BatchStats() if (args.stats or args.stats_file) else None
    try:
        summary = run_batch(args.job, args.output, address=args.address, workers=args.workers, source=args.input,
                            game=args.game or "malilla", deals=args.deals, seed=args.seed or 0, chunk=args.chunk,
                            options=options, progress=args.progress or sys.stderr.isatty(), stats=stats)
    except KeyboardInterrupt:
        if args.output and os.path.exists(args.output):
            print(f"the items done are in {args.output}; the same command goes on from them", file=sys.stderr)
        raise
    print(f"{summary['done']} items done, {summary['skipped']} skipped (finished before), "
          f"{summary['total']} in all", file=sys.stderr)
    if stats is not None:
        if args.stats:
            print(stats.format(), file=sys.stderr)
        if args.stats_file:
            write_file(args.stats_file, json.dumps(stats.to_json(), indent=1))
    return 0


def cmd_advise(args: argparse.Namespace) -> int:
    """Views (one seat's hand plus the play) in, single-dummy advice per line out; a progress bar on stderr."""
    from .advice import advise

    solver = Solver(args.memory, args.threads)
    show = args.progress or sys.stderr.isatty()
    for line in input_lines(args.input):
        if blank_line(line):
            continue
        bar = None
        if show:
            from tqdm import tqdm
            bar = tqdm(total=args.samples, unit="layout", file=sys.stderr, delay=0 if args.progress else 0.5,
                       dynamic_ncols=True)
        try:
            result = advise(line, args.samples, args.seed, args.goal, solver,
                            progress=(lambda n: bar.update(n - bar.n)) if bar is not None else None,
                            timeout=args.timeout).to_json()
        except (ValueError, SearchStopped) as e:
            result = {"error": str(e)}
        finally:
            if bar is not None:
                bar.close()
        sys.stdout.write(json.dumps(result) + "\n")
        sys.stdout.flush()
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """The gRPC service (server.main) until SIGTERM or SIGINT."""
    from server.config import config_from_args
    from server.main import serve

    return serve(config_from_args(args))


def _size(text: str) -> int:
    """The --memory type: bytes by `parse_size`, whose refusal is the usage error."""
    try:
        return parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _add_memory(parser: argparse.ArgumentParser, default: int = DEFAULT_MEMORY, per: str = "") -> None:
    """The --memory flag: the transposition table's bound (`per`: " per worker")."""
    parser.add_argument("--memory", type=_size, default=default, metavar="BYTES",
                        help=f"transposition table{per}, bytes or 256M / 1G (default {default >> 20}M)")


def _add_threads(parser: argparse.ArgumentParser) -> None:
    """The --threads flag: the most threads one search uses."""
    parser.add_argument("--threads", type=int, default=1, metavar="N",
                        help="threads one search uses, once it is long enough to gain from them (default 1)")


def _add_legal(sub: Any) -> None:
    """The subcommand `legal`: the legal cards of positions."""
    legal = sub.add_parser("legal", help="legal cards of each position (JSON lines)")
    legal.add_argument("input", nargs="?", type=input_file, default=sys.stdin,
                       help="positions as JSON lines (default: stdin)")
    legal.add_argument("--lenient", action="store_true",
                       help="do not check hand sizes against each other (abstract positions)")
    legal.set_defaults(func=cmd_legal)


def _add_perft(sub: Any) -> None:
    """The subcommand `perft`: the legal sequences of cards from positions, counted."""
    perft = sub.add_parser("perft", help="count the legal ways to play the next cards, by first card (JSON lines)")
    perft.add_argument("input", nargs="?", type=input_file, default=sys.stdin,
                       help="positions as JSON lines (default: stdin)")
    perft.add_argument("--depth", type=int, required=True, metavar="N",
                       help="cards to play: 1 up to the cards left (the count grows about fivefold a card)")
    perft.add_argument("--timeout", type=float, help="seconds allowed per position")
    perft.add_argument("--lenient", action="store_true",
                       help="do not check hand sizes against each other (abstract positions)")
    perft.set_defaults(func=cmd_perft)


def _add_solve(sub: Any) -> None:
    """The subcommand `solve`: double-dummy values of positions."""
    solve = sub.add_parser("solve", help="double-dummy values of each position (JSON lines)")
    solve.add_argument("input", nargs="?", type=input_file, default=sys.stdin,
                       help="positions as JSON lines (default: stdin)")
    solve.add_argument("--mode", choices=MODES, default="all",
                       help="all: every card scored; optimal: every best card; best: one best card; "
                            "target: can the side to move reach --target; targets: every card that does")
    solve.add_argument("--objective", choices=OBJECTIVES, default="points",
                       help="points, or the signed deal score (a capot outranks a plain win)")
    solve.add_argument("--target", type=int, help="points (or score) asked for in --mode target or targets")
    solve.add_argument("--timeout", type=float, help="seconds allowed per search")
    _add_memory(solve)
    _add_threads(solve)
    solve.add_argument("--pretty", action="store_true", help="a readable table per position")
    solve.set_defaults(func=cmd_solve)


def _add_demo(sub: Any) -> None:
    """The subcommand `demo`: the embedded deals solved."""
    demo = sub.add_parser("demo", help="solve an embedded deal of each game and print the tables")
    _add_memory(demo)
    _add_threads(demo)
    demo.set_defaults(func=cmd_demo)


def _add_analyze(sub: Any) -> None:
    """The subcommand `analyze`: played deals card by card."""
    analyze = sub.add_parser("analyze", help="the double-dummy cost of every card of played deals (JSON lines)")
    analyze.add_argument("input", nargs="?", type=input_file, default=sys.stdin,
                         help="played deals: the start position JSON plus 'play' (default: stdin)")
    analyze.add_argument("--objective", choices=OBJECTIVES, default="points",
                         help="the unit of the values and costs: points, or the signed deal score of the seat's "
                              "side (a capot outranks a plain win)")
    analyze.add_argument("--html", metavar="OUT.html", help="also write a self-contained report page")
    _add_memory(analyze)
    _add_threads(analyze)
    analyze.add_argument("--timeout", type=float, help="seconds allowed per search")
    analyze.add_argument("--progress", action="store_true",
                         help="show the progress bar even when stderr is not a terminal")
    analyze.add_argument("--single-dummy", type=int, default=0, metavar="N",
                         help="add each card's single-dummy verdict from N sampled layouts (good, unlucky, "
                              "mistake, lucky)")
    analyze.add_argument("--seed", type=int, help="the seed of the single-dummy sampling (default 0)")
    analyze.set_defaults(func=cmd_analyze)


def comma_separated(text: str) -> list[str]:
    """The names of a list option: ``D,NT`` (spaces around a name dropped)."""
    return [name.strip() for name in text.split(",")]


def add_trumps(parser: argparse.ArgumentParser, job: str = "") -> None:
    """The --trumps flag of the table (`job`: "table: " where other commands share the parser)."""
    parser.add_argument("--trumps", type=comma_separated, metavar="T,T",
                        help=f"{job}solve only these trumps, e.g. D,NT; par picks among them (default: every "
                             "trump the game allows)")


def _add_table(sub: Any) -> None:
    """The subcommand `table`: every trump and leader, and par."""
    table = sub.add_parser("table", help="double-dummy values under every trump and leader, and par (JSON lines)")
    table.add_argument("input", nargs="?", type=input_file, default=sys.stdin,
                       help="full deals as position JSON; trump and leader optional (default: stdin)")
    add_trumps(table)
    table.add_argument("--pretty", action="store_true", help="a readable grid per deal")
    _add_memory(table)
    _add_threads(table)
    table.add_argument("--timeout", type=float, help="seconds allowed per search")
    table.set_defaults(func=cmd_table)


def _add_puzzles(sub: Any) -> None:
    """The subcommand `puzzles`: generated or mined puzzles."""
    puzzles = sub.add_parser("puzzles", help="positions with one winning line, rated and tagged (JSON lines)")
    puzzles.add_argument("--game", choices=sorted(PROFILES), help="game of the random deals (default malilla)")
    puzzles.add_argument("--count", type=int, default=10, help="puzzles to write (default 10)")
    puzzles.add_argument("--seed", type=int, help="the seed of the random deals (default 0)")
    puzzles.add_argument("--min-tricks", type=int, default=MIN_TRICKS, help=f"fewest tricks left (default {MIN_TRICKS})")
    puzzles.add_argument("--max-tricks", type=int, default=MAX_TRICKS, help=f"most tricks left (default {MAX_TRICKS})")
    puzzles.add_argument("--margin", type=int, default=MARGIN,
                         help=f"points every other card must fall short by (default {MARGIN})")
    puzzles.add_argument("--from", dest="source", type=input_file, metavar="FILE",
                         help="mine played deals (start position JSON plus 'play') instead of random deals")
    puzzles.add_argument("--pretty", action="store_true", help="print each puzzle for a person")
    puzzles.add_argument("--max-attempts", type=int, metavar="N",
                         help=f"positions of random deals to check at the most (default {ATTEMPTS_PER_PUZZLE} a puzzle)")
    puzzles.add_argument("--progress", action="store_true", default=None,
                         help="show the progress bar of the attempts even when stderr is not a terminal")
    _add_memory(puzzles, 64 << 20)
    _add_threads(puzzles)
    puzzles.set_defaults(func=cmd_puzzles)


def _add_batch(sub: Any) -> None:
    """The subcommand `batch`: a job over many deals on a cluster."""
    batch = sub.add_parser("batch", help="solve, table, analyze or puzzles over many deals on a Dask cluster")
    batch.add_argument("job", choices=("solve", "table", "analyze", "puzzles"))
    batch.add_argument("input", nargs="?", type=input_file,
                       help="JSON lines: the input of the single-machine command (or use --deals)")
    batch.add_argument("--game", choices=sorted(PROFILES), help="game of generated deals (default malilla)")
    batch.add_argument("--deals", type=int, help="generate this many deals instead of reading a file")
    batch.add_argument("--seed", type=int, help="seed of the generated deals (default 0)")
    batch.add_argument("-o", "--output", metavar="FILE",
                       help="append to FILE, skipping the items it already holds (default: stdout)")
    batch.add_argument("--address", help="scheduler address of an existing Dask cluster (default: an embedded "
                                         "local cluster)")
    batch.add_argument("--workers", type=int, help="local worker processes (default: one per core)")
    batch.add_argument("--chunk", type=int, default=8, help="items per task (default 8)")
    batch.add_argument("--mode", choices=MODES, help="solve: the search mode (default all)")
    batch.add_argument("--objective", choices=OBJECTIVES, help="solve and analyze: the objective (default points)")
    batch.add_argument("--target", type=int, help="solve: the target of --mode target or targets")
    batch.add_argument("--min-tricks", type=int, help=f"puzzles: fewest tricks left (default {MIN_TRICKS})")
    batch.add_argument("--max-tricks", type=int, help=f"puzzles: most tricks left (default {MAX_TRICKS})")
    batch.add_argument("--margin", type=int, help=f"puzzles: shortfall of every other card (default {MARGIN})")
    add_trumps(batch, "table: ")
    _add_memory(batch, per=" per worker")
    batch.add_argument("--timeout", type=float, help="seconds allowed per search (not for puzzles)")
    batch.add_argument("--progress", action="store_true", help="progress even when stderr is not a terminal")
    batch.add_argument("--stats", action="store_true", help="print aggregate statistics to stderr at the end")
    batch.add_argument("--stats-file", metavar="FILE", help="write aggregate statistics as JSON")
    batch.set_defaults(func=cmd_batch)


def _add_advise(sub: Any) -> None:
    """The subcommand `advise`: single-dummy advice."""
    advise = sub.add_parser("advise", help="single-dummy advice: the best card from one seat's view (JSON lines)")
    advise.add_argument("input", nargs="?", type=input_file, default=sys.stdin,
                        help="views: game, trump, seat, hand, leader (the first leader), play; optional "
                             "dealer and shown (default: stdin)")
    advise.add_argument("--samples", type=int, default=100, help="layouts of the hidden cards to solve (default 100)")
    advise.add_argument("--seed", type=int, default=0, help="the seed of the sampling")
    advise.add_argument("--goal", type=int, help="also report how often each card takes at least this many points")
    _add_memory(advise)
    _add_threads(advise)
    advise.add_argument("--timeout", type=float, help="seconds allowed per search")
    advise.add_argument("--progress", action="store_true",
                        help="show the progress bar even when stderr is not a terminal")
    advise.set_defaults(func=cmd_advise)


def build_parser() -> argparse.ArgumentParser:
    """The parser of `malilla-dd` and its subcommands."""
    parser = ArgumentParser(prog="malilla-dd", description=__doc__)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_legal(sub)
    _add_perft(sub)
    _add_solve(sub)
    _add_demo(sub)
    _add_analyze(sub)
    _add_table(sub)
    _add_puzzles(sub)
    _add_batch(sub)
    _add_advise(sub)

    from server.config import add_arguments as add_serve_arguments

    serve = sub.add_parser("serve", help="the gRPC service malilla.dd.v1.DoubleDummy (default 127.0.0.1:50051)")
    add_serve_arguments(serve)
    serve.set_defaults(func=cmd_serve)
    for command in sub.choices.values():
        command.set_defaults(command_parser=command)
    return parser


def _refuse_unused(args: argparse.Namespace, options: dict[str, str], unused: bool, where: str) -> None:
    """A usage error for an option given where it has no effect (`unused`), rather than ignoring it."""
    given = [flag for flag, dest in options.items() if getattr(args, dest) is not None]
    if unused and given:
        raise ValueError(f"{', '.join(given)}: no effect with {where}")


def _check_options(args: argparse.Namespace) -> None:
    """The options that every input line would be refused for, before any input is read: the table
    size, the time per search, the trumps of a table and the sample counts (serve's own flags are
    checked by its `Config`)."""
    if args.command == "serve":
        return
    if getattr(args, "memory", None) is not None:
        check_memory(args.memory)
    if getattr(args, "threads", None) is not None:
        check_threads(args.threads)
    check_timeout(getattr(args, "timeout", None))
    if getattr(args, "trumps", None) is not None:
        from .table import table_trumps
        table_trumps(args.trumps)   # a trump of some game, none twice: each deal's game is checked with the deal
    if args.command == "analyze":
        check_whole("--single-dummy", args.single_dummy, 0)
        _refuse_unused(args, {"--seed": "seed"}, not args.single_dummy, "--single-dummy 0 (the default)")
    if args.command == "perft":
        check_depth_option(args.depth, "--depth")
    if args.command == "advise":
        check_whole("--samples", args.samples, 1)
        if args.goal is not None:
            check_whole("--goal", args.goal, 0)


def main(argv: list[str] | None = None) -> int:
    """`malilla-dd`: run the subcommand of `argv` (default: the process's arguments); the exit status."""
    read_stdin_as_utf8()
    escape_what_stdout_cannot_encode()
    top = build_parser()
    args, extra = parse_known(top, argv)
    parser: argparse.ArgumentParser = args.command_parser
    if args.command == "batch" and args.input is None and len(extra) == 1 and (extra[0] == "-" or
                                                                               not extra[0].startswith("-")):
        # argparse reads `batch JOB [input]` as one run of positionals: an input after an option is left over
        try:
            args.input = input_file(extra.pop())
        except argparse.ArgumentTypeError as e:
            parser.error(f"argument input: {e}")
    if extra:
        top.error(f"unrecognized arguments: {' '.join(extra)}")
    if sys.stdout is None:   # closed by the caller (`>&-`): nowhere to answer
        print(f"{parser.prog}: standard output is closed", file=sys.stderr)
        return 1
    if args.command != "batch" and getattr(args, "input", "") is None:   # batch reads no input with --deals
        parser.error("input: standard input is closed: give an input file")
    if getattr(args, "mode", None) in TARGET_MODES and args.target is None:
        parser.error(f"--mode {args.mode} needs --target")
    if getattr(args, "target", None) is not None and args.mode not in TARGET_MODES:
        parser.error("--target goes with --mode target or targets")
    try:
        _check_options(args)
        status: int = args.func(args)
        sys.stdout.flush()   # a failure is this command's, not left to the exit
        return status
    except BrokenPipeError:
        settle_stdout()
        return 0
    except KeyboardInterrupt:
        print(f"{parser.prog}: interrupted", file=sys.stderr)
        return 130
    except OSError as e:   # an output that cannot be written (a full disk) or an input that cannot be read
        settle_stdout()
        print(f"{parser.prog}: {os_failure(e)}", file=sys.stderr)
        return 1
    except ValueError as e:   # an option the command cannot take; each input line's own errors are answered
        parser.error(flag_named(parser, str(e)))


if __name__ == "__main__":
    sys.exit(main())
