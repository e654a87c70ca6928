"""The solver object: the deal-score objective, threads, cancellation, the table."""
from __future__ import annotations

import copy
import itertools
import json
import pickle
import random
import threading
import time
from collections.abc import Iterator
from functools import lru_cache

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import assert_targets, helpers_left, helpers_running, played_deal
from solver import MANILLE, MALILLA, Position, PositionError, _core, get_profile
from solver.analysis import PlayedDeal, analyze
from solver.deal import deal, random_play
from solver.scoring import side_score
from solver.solve import TARGET_MODES, SearchStopped, SearchTimeout, Solution, Solver, solve


def played_out(profile, seed: int, tricks: int, cards: int = 0) -> Position:
    """A deal from `seed` after `tricks` tricks and `cards` more cards of random legal play
    (history known)."""
    position = Position.from_json(deal(profile, seed).to_position_json())
    for card in random_play(position, random.Random(seed), 4 * tricks + cards):
        position = position.play(card)
    return position


def brute_score(position: Position) -> int:
    """Signed deal score of the side to move under perfect play, by plain minimax."""
    profile = position.profile

    @lru_cache(maxsize=None)
    def value(p: Position) -> int:
        if p.is_over:
            points, tricks = p.points_won(), p.tricks_won()
            winner = 0 if points[0] > profile.half else 1
            capot = tricks[winner] == profile.tricks
            return side_score(profile, points[0], capot, p.trump)  # N-S's signed score
        scores = [value(p.play(c)) for c in p.legal_moves()]
        return max(scores) if p.to_move % 2 == 0 else min(scores)

    v = value(position)
    return v if position.to_move % 2 == 0 else -v


def capot_candidates(count: int) -> list[Position]:
    """Manille positions two tricks from the end where one side has taken every trick."""
    found = []
    seed = 0
    while len(found) < count:
        p = played_out(MANILLE, seed, 6)
        if 0 in p.tricks_won():
            found.append(p)
        seed += 1
    return found


def without_a_trick(profile, tricks: int, cards: int, count: int) -> list[Position]:
    """Positions `tricks` tricks and `cards` more cards into seeded deals where a side has taken no
    trick yet (a capot may still be made against it)."""
    found = []
    seed = 0
    while len(found) < count:
        p = played_out(profile, seed, tricks, cards)
        if 0 in p.tricks_won():
            found.append(p)
        seed += 1
    return found


class TestScoreObjective:
    @pytest.mark.parametrize("seed", range(12))
    def test_matches_brute_force(self, seed: int) -> None:
        position = played_out(MANILLE, seed, 5)
        solution = Solver().solve(position, objective="score")
        assert solution.value == brute_score(position)
        for card, v in solution.values.items():
            assert v == brute_score(position.play(card)) * (1 if position.play(card).to_move % 2 == position.to_move % 2 else -1)

    def test_capot_outranks_plain_win(self) -> None:
        for position in capot_candidates(6):
            solution = Solver().solve(position, objective="score")
            assert solution.value == brute_score(position)

    @pytest.mark.parametrize("cards", [0, 1, 2, 3])
    @pytest.mark.parametrize("tricks", [5, 6, 7])
    def test_a_capot_still_open_matches_brute_force(self, tricks: int, cards: int) -> None:
        """3, 2 and 1 tricks from the end, at a trick boundary and within a trick: where a side has
        no trick yet, each card's deal score is the plain minimax's, a capot made or prevented
        on the last card included."""
        for position in without_a_trick(MANILLE, tricks, cards, 6):
            solution = Solver().solve(position, objective="score")
            assert solution.value == brute_score(position), position.to_json()
            for card, v in solution.values.items():
                after = position.play(card)
                assert v == brute_score(after) * (1 if after.to_move % 2 == position.to_move % 2 else -1), card

    def test_malilla_score_is_the_excess(self) -> None:
        position = played_out(MALILLA, 3, 6)
        points = Solver().solve(position)
        score = Solver().solve(position, objective="score")
        won = position.points_won()[position.to_move % 2]
        assert score.value == won + points.value - MALILLA.half

    def test_needs_history(self) -> None:
        position = played_out(MANILLE, 1, 3)
        bare = Position.from_json({k: v for k, v in position.to_json().items() if k != "history"})
        with pytest.raises(PositionError) as e:
            Solver().solve(bare, objective="score")
        assert e.value.field == "history"

    @pytest.mark.parametrize("game", [MANILLE, MALILLA])
    def test_targets_agree_with_the_value(self, game) -> None:
        """Around the value and far below it, also where the side to move has already won more
        than half the points, or has lost a trick (a capot against it, or its own, is then out of
        the question, though the capot's formula gives a score)."""
        solver = Solver()
        for seed in range(40):
            position = played_out(game, seed, 3 + seed % 5, seed % 4)
            value = solver.solve(position, objective="score").value
            for target in range(value - 60, value + 3):
                assert solver.solve(position, mode="target", target=target, objective="score").reached == \
                    (target <= value), (seed, target, value)

    def test_a_pending_doubling_doubles_the_deal_score(self) -> None:
        position = played_out(MANILLE, 5, 3)
        doubled = Position.from_json({**position.to_json(), "pending_doubling": True})
        assert doubled.play(doubled.legal_moves()[0]).pending_doubling
        solver = Solver()
        plain, twice = solver.solve(position, objective="score"), solver.solve(doubled, objective="score")
        assert twice.value == 2 * plain.value
        assert twice.values == {card: 2 * v for card, v in plain.values.items()}
        assert solver.solve(doubled, mode="target", target=twice.value, objective="score").reached
        assert not solver.solve(doubled, mode="target", target=twice.value + 1, objective="score").reached
        assert solver.solve(doubled).values == solver.solve(position).values   # points are points

    def test_target_in_score_units(self) -> None:
        position = played_out(MANILLE, 7, 5)
        best = Solver().solve(position, objective="score").value
        solver = Solver()
        assert solver.solve(position, mode="target", target=best, objective="score").reached
        assert not solver.solve(position, mode="target", target=best + 1, objective="score").reached


class TestEveryCardReachingTheTarget:
    """"targets" mode: each card checked against the target alone gives the cards whose values
    in "all" mode reach it."""

    @pytest.mark.parametrize("objective", ["points", "score"])
    @pytest.mark.parametrize("threads", [1, 2])
    @pytest.mark.parametrize("profile", [MALILLA, MANILLE], ids=lambda p: p.name)
    def test_the_cards_whose_values_reach_it(self, profile, threads: int, objective: str) -> None:
        """Positions from 8 tricks left to 2, at and within trick boundaries; targets at, just
        above and just below every card's value, and beyond any. Two threads' helper joins every
        search at once and shares moves down to the last two tricks."""
        values_of, asked = Solver(), Solver(threads=threads)
        if threads > 1:
            asked._core.helpers_after = 0
            asked._core.split_from = 8
        for seed in range(28):
            position = played_out(profile, 900 + seed, profile.tricks - 8 + seed % 7, seed % 4)
            values = values_of.solve(position, objective=objective).values
            targets = {v + d for v in values.values() for d in (-1, 0, 1)} | {-10 ** 6, 10 ** 6}
            for target in sorted(targets):
                assert_targets(asked.solve(position, "targets", objective, target), position, values, target)

    def test_a_solution_of_cards_and_no_values(self) -> None:
        """The answer is the cards, equivalent ones included, by suit and high cards first, valued
        0 with no margin as in "target" mode, with no value or line, and the groups of every mode."""
        position = played_out(MALILLA, 3, 2)
        every = Solver().solve(position)
        assert every.values == {"KS": 44, "5C": 40, "4C": 40, "4D": 39, "3D": 39, "AH": 36, "KD": 36, "3H": 30}
        assert {g for g in every.groups if len(g) > 1} == {("4D", "3D"), ("5C", "4C")}
        s = Solver().solve(position, "targets", target=39)
        assert s.best == ["KS", "4D", "3D", "5C", "4C"] and {(cv.value, cv.margin) for cv in s.cards} == {(0, 0)}
        assert (s.value, s.line, s.reached, s.target, s.mode) == (None, (), True, 39, "targets")
        assert s.groups == every.groups and s.nodes > 0


class TestThreads:
    def test_search_releases_the_gil(self) -> None:
        """While a long search runs in a thread, Python code keeps running here."""
        position = Position.from_json(deal(MALILLA, 11).to_position_json())
        done = threading.Event()
        result = []

        def work() -> None:
            result.append(Solver().solve(position))
            done.set()

        thread = threading.Thread(target=work)
        thread.start()
        spins = 0
        while not done.is_set():
            spins += 1
        thread.join()
        assert result and result[0].value is not None
        assert spins > 1000

    def test_two_threads_give_the_same_answers(self) -> None:
        positions = [Position.from_json(deal(MANILLE, s).to_position_json()) for s in range(6)]
        expected = [Solver().solve(p).values for p in positions]
        got: dict[int, dict] = {}

        def work(indices: list[int]) -> None:
            solver = Solver()
            for i in indices:
                got[i] = solver.solve(positions[i]).values

        threads = [threading.Thread(target=work, args=(list(range(k, 6, 2)),)) for k in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert [got[i] for i in range(6)] == expected

    def test_threads_sharing_one_solver_take_turns(self) -> None:
        """Two threads solving other deals, and clearing, on one solver: each gets its own answers."""
        positions = [Position.from_json(deal(MALILLA, 100 + s).to_position_json()) for s in range(12)]
        expected = [Solver().solve(p).values for p in positions]
        shared = Solver()
        got: dict[int, list] = {i: [] for i in range(12)}

        def work(indices: list[int]) -> None:
            for _ in range(2):
                for i in indices:
                    got[i].append(shared.solve(positions[i]).values)
                    shared.clear()

        threads = [threading.Thread(target=work, args=(list(range(k, 12, 2)),)) for k in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert [got[i] for i in range(12)] == [[v, v] for v in expected]


def one_above(position: Position) -> int:
    """A target one point above the position's value: a question that checks every card."""
    return Solver().solve(position, "best").value + 1


class TestHelperThreads:
    """`Solver(threads=N)`: one search runs on N threads, in every mode."""

    def test_the_same_answers_as_one_thread(self) -> None:
        """Whole deals and positions along their play, on warm and cold tables."""
        positions = [played_out(profile, seed, tricks, cards) for profile in (MALILLA, MANILLE)
                     for seed in range(4) for tricks, cards in ((0, 0), (0, 2), (1, 1), (2, 0), (3, 3))]
        one, helped = Solver(), Solver(threads=2)
        for i, position in enumerate(positions):
            one.clear()
            if i % 2:
                helped.clear()
            expected = one.solve(position)
            argmax = set(expected.best)
            got = helped.solve(position)
            assert (got.value, got.values) == (expected.value, expected.values)
            optimal, best = helped.solve(position, mode="optimal"), helped.solve(position, mode="best")
            assert (optimal.value, set(optimal.best)) == (expected.value, argmax)
            assert best.value == expected.value and best.best[0] in argmax
            reached = helped.solve(position, mode="target", target=expected.value)
            assert reached.reached and reached.best[0] in argmax
            assert not helped.solve(position, mode="target", target=expected.value + 1).reached
            for solution in (got, optimal, best):
                assert solution.line[0] in solution.best
                p = position
                for card in solution.line:
                    p = p.play(card)
                side = position.to_move % 2
                assert p.points_won()[side] - position.points_won()[side] == expected.value

    @pytest.mark.parametrize("mode", ["all", "best", "optimal", "target", "targets"])
    def test_helpers_run_beside_the_search(self, mode: str) -> None:
        """A whole deal's search on N threads runs N - 1 helpers beside its own, which end with it
        (the target questions are one point above the value: every card is checked)."""
        position = Position.from_json(deal(MALILLA, 11875).to_position_json())   # a search of about 0.4 s
        target = one_above(position) if mode in TARGET_MODES else None
        most = {}
        for threads in (1, 2, 3):
            thread = threading.Thread(target=Solver(threads=threads).solve, args=(position, mode),
                                      kwargs={"target": target})
            thread.start()
            most[threads] = 0
            while thread.is_alive():
                most[threads] = max(most[threads], helpers_running())
            thread.join()
            assert helpers_left() == 0
        assert most == {1: 0, 2: 1, 3: 2}

    @pytest.mark.parametrize("mode, after", [("all", 1024), ("best", 16 * 1024), ("optimal", 16 * 1024)])
    def test_short_searches_stay_on_one_thread(self, mode: str, after: int) -> None:
        """Helpers join a search once it has run `helpers_after` nodes (default 1024), 16
        times as many for the probes and the checks: a shorter search takes exactly one
        thread's nodes, and so does a whole deal's search under a bound it never reaches."""
        assert Solver(threads=2)._core.helpers_after == 1024
        short = [p for p in (played_out(MALILLA, 7, tricks) for tricks in range(5, 9))
                 if Solver().solve(p, mode).nodes < after]
        assert short
        for position in short:
            assert Solver(threads=2).solve(position, mode).nodes == Solver().solve(position, mode).nodes
        whole = Position.from_json(deal(MALILLA, 3).to_position_json())
        alone = Solver(threads=2)
        alone._core.helpers_after = 10 ** 12
        assert alone.solve(whole, mode).nodes == Solver().solve(whole, mode).nodes

    def test_cards_of_one_suit_share_moves_from_later_on(self) -> None:
        """In "all" mode a card waits for the cards of its suit before it, so when every legal
        card is of one suit, as a follower's often are, helpers can only share moves deeper
        down: they join as late as for the probes, and the answer is one thread's."""
        position = played_out(MALILLA, 3, 0, 1)
        assert len(position.legal_moves()) == 4 and len({card[-1] for card in position.legal_moves()}) == 1
        one = Solver().solve(position)
        late = Solver(threads=2)
        late._core.helpers_after = one.nodes // 16 + 1     # 1 to 15 times would be soon enough
        assert late.solve(position).nodes == one.nodes
        helped = Solver(threads=2)
        got: list = []
        thread = threading.Thread(target=lambda: got.append(helped.solve(position)))
        most = 0
        thread.start()
        while thread.is_alive():
            most = max(most, helpers_running())
        thread.join()
        assert most == 1 and got[0].values == one.values
        assert got[0].nodes != one.nodes   # the helper searched

    @pytest.mark.parametrize("nodes", [-1, -10 ** 6, 2 ** 50 + 1, 2 ** 62])
    def test_helpers_after_is_a_node_count(self, nodes: int) -> None:
        with pytest.raises(ValueError, match=rf"^helpers_after: {nodes} is not a node count from 0 to {2 ** 50}$"):
            Solver(threads=2)._core.helpers_after = nodes

    @pytest.mark.parametrize("cards", [-1, -40])
    def test_split_from_is_a_card_count(self, cards: int) -> None:
        with pytest.raises(ValueError, match=rf"^split_from: {cards} is not a card count$"):
            Solver(threads=2)._core.split_from = cards

    def test_nodes_count_every_thread(self) -> None:
        position = Position.from_json(deal(MALILLA, 3).to_position_json())
        solver = Solver(threads=2)
        solution = solver.solve(position)
        assert solution.nodes == solver.stats["nodes"] > 0

    @pytest.mark.parametrize("mode", ["all", "best", "optimal", "target", "targets"])
    def test_a_timeout_stops_every_thread(self, mode: str) -> None:
        position = Position.from_json(deal(MALILLA, 11875).to_position_json())
        solver = Solver(threads=2)
        target = one_above(position) if mode in TARGET_MODES else None
        with pytest.raises(SearchTimeout):
            solver.solve(position, mode, target=target, timeout=0.01)
        assert helpers_left() == 0
        assert solver.solve(position).values == Solver().solve(position).values

    @pytest.mark.parametrize("threads, message", [
        (0, "threads: 0 must be at least 1"),
        (17, "threads: 17 is more than the 16 a search can use"),
        ("2", "threads: '2' is not a whole number"),
        (2.0, "threads: 2.0 is not a whole number"),
        (True, "threads: True is not a whole number"),
    ])
    def test_threads_must_be_a_count_a_search_can_use(self, threads, message) -> None:
        with pytest.raises(ValueError) as err:
            Solver(threads=threads)
        assert str(err.value) == message


class TestCopies:
    @pytest.mark.parametrize("copy_of", [lambda s: pickle.loads(pickle.dumps(s)), copy.copy, copy.deepcopy])
    def test_a_copy_has_the_same_bound_and_an_empty_table(self, copy_of) -> None:
        position = Position.from_json(deal(MANILLE, 3).to_position_json())
        solver = Solver(1 << 20, threads=2)
        solved = solver.solve(position)
        twin = copy_of(solver)
        assert twin is not solver and (twin.memory, twin.threads) == (1 << 20, 2) and twin.stats["entries"] == 0
        assert twin.solve(position).values == solved.values
        assert solver.stats["entries"] > 0


def test_solutions_compare_by_their_answers_not_the_nodes():
    position = Position.from_json(deal(MANILLE, 3).to_position_json())
    solver = Solver(1 << 20)
    cold, warm = solver.solve(position), solver.solve(position)
    assert cold.nodes > warm.nodes and cold == warm
    assert cold != solver.solve(position, mode="best")


def test_repr_names_the_bound_and_threads():
    assert repr(Solver(1 << 20)) == "Solver(memory=1048576, threads=1)"
    assert repr(Solver(1 << 20, threads=2)) == "Solver(memory=1048576, threads=2)"


class TestStopping:
    def test_timeout_raises(self) -> None:
        position = Position.from_json(deal(MALILLA, 5).to_position_json())
        with pytest.raises(SearchTimeout, match=r"^timeout: the search took more than the 1e-06 s allowed$") as info:
            Solver().solve(position, timeout=1e-6)
        assert isinstance(info.value, SearchStopped) and isinstance(info.value, TimeoutError)

    @pytest.mark.parametrize("timeout", [1e9, 1e12, 1e300])
    def test_a_timeout_of_centuries_is_no_limit(self, timeout) -> None:
        position = Position.from_json(deal(MANILLE, 5).to_position_json())
        assert Solver().solve(position, timeout=timeout).values == Solver().solve(position).values

    def test_cancel_from_another_thread(self) -> None:
        """A cancel stops one search: the one running, or else the next to start."""
        position = Position.from_json(deal(MALILLA, 2).to_position_json())
        solver = Solver()
        errors = []

        def work() -> None:
            try:
                solver.solve(position)
                solver.clear()
                solver.solve(position)
            except SearchStopped as e:
                errors.append(e)

        thread = threading.Thread(target=work)
        thread.start()
        solver.cancel()
        thread.join()
        try:
            later = solver.solve(position)
        except SearchStopped as e:   # the cancel came after both searches
            errors.append(e)
            later = solver.solve(position)
        assert len(errors) == 1 and not isinstance(errors[0], SearchTimeout)
        assert later.value == Solver().solve(position).value

    def test_a_cancel_before_a_search_stops_it_unless_withdrawn(self) -> None:
        position = Position.from_json(deal(MANILLE, 3).to_position_json())
        solver = Solver()
        solver.cancel()
        with pytest.raises(SearchStopped, match="before it started"):
            solver.solve(position)
        solver.cancel()
        solver.withdraw_cancel()
        assert solver.solve(position).values == Solver().solve(position).values

    def test_a_cancel_between_the_searches_of_an_analysis_stops_it(self) -> None:
        """Wherever a cancel lands in a call of many searches, no cancel is lost: the call
        stops, or, when the cancel came after its last search, the next search does."""
        played = PlayedDeal.from_json(played_deal("manille", 4))
        solver = Solver()
        start = time.monotonic()
        analyze(played, solver)
        took = time.monotonic() - start   # the cancels land over about as long as the call runs
        rng = random.Random(4)
        stopped = 0
        for _ in range(40):
            solver.clear()
            timer = threading.Timer(rng.uniform(0, took), solver.cancel)
            timer.start()
            try:
                analyze(played, solver)
            except SearchStopped:
                stopped += 1
                timer.join()
                continue
            timer.join()
            with pytest.raises(SearchStopped):
                solver.solve(played.start)
        assert stopped > 0

    @pytest.mark.parametrize("threads, mode", [(1, "all"), (2, "all"), (2, "best"), (2, "optimal"), (2, "target"),
                                               (2, "targets")])
    def test_a_cancel_with_time_left_is_not_a_timeout(self, threads: int, mode: str) -> None:
        """A cancel stops the search and its helper threads (in "all" mode they see it
        themselves, in the others it reaches them through the search they help), and the
        solver works after it."""
        position = Position.from_json(deal(MALILLA, 11875).to_position_json())   # a search of about 0.4 s
        solver = Solver(threads=threads)
        target = one_above(position) if mode in TARGET_MODES else None
        errors: list[Exception] = []

        def work() -> None:
            try:
                solver.solve(position, mode, target=target, timeout=60)
            except SearchStopped as e:
                errors.append(e)

        thread = threading.Thread(target=work)
        thread.start()
        while solver.stats["nodes"] < 10_000 and thread.is_alive():   # the search and its helpers run
            thread.join(0.001)
        solver.cancel()
        thread.join()
        assert [type(e) for e in errors] == [SearchStopped]
        assert helpers_left() == 0
        assert solver.solve(position).values == Solver().solve(position).values

    @pytest.mark.parametrize("mode", ["all", "best", "optimal", "target", "targets"])
    def test_cancels_at_any_moment_leave_the_table_sound(self, mode: str) -> None:
        """Cancels that land anywhere in searches whose threads (two or three) share moves
        down to two tricks: whatever each thread was searching when it stopped, nothing
        unfinished is kept, so the table the solver keeps still gives one thread's answers."""
        rng = random.Random(mode)
        for seed, position, expected, target, scale in self.long_searches(mode, 5):
            solver = Solver(threads=2 + seed % 2)
            solver._core.helpers_after = 0
            solver._core.split_from = 8
            tries = stopped = 0
            # the cancel comes at a node count, whatever the load; one that comes late is tried again
            while tries < 12 or (not stopped and tries < 300):
                tries += 1
                solver.clear()
                ended = threading.Event()
                watcher = threading.Thread(target=self.cancel_at,
                                           args=(solver, solver.stats["nodes"] + rng.randrange(scale), ended))
                watcher.start()
                try:
                    solver.solve(position, mode, target=target)
                except SearchStopped:
                    stopped += 1
                ended.set()
                watcher.join()
                solver.withdraw_cancel()   # one that came after the search
                assert solver.solve(position).values == expected.values
            assert stopped > 0

    @staticmethod
    def long_searches(mode: str, count: int) -> Iterator[tuple[int, Position, Solution, int | None, int]]:
        """(seed, position, its every-card solution, the target of `mode` or None, the nodes of its
        search in `mode` on one thread) for `count` Malilla deals of the first seeds, each up to two
        tricks into its play, as far in as leaves a search of 30,000 nodes or more: a watcher
        polling the node count then has time to cancel it before it ends, on a fast machine too."""
        found = 0
        for seed in itertools.count():
            for tricks in (2, 1, 0):
                position = played_out(MALILLA, seed, tricks)
                expected = Solver().solve(position)
                target = expected.value + 1 if mode in TARGET_MODES else None
                scale = Solver().solve(position, mode, target=target).nodes
                if scale >= 30_000:
                    yield seed, position, expected, target, scale
                    found += 1
                    break
            if found == count:
                return

    @staticmethod
    def cancel_at(solver: Solver, nodes: int, ended: threading.Event) -> None:
        """Cancel the search of `solver` once its node count reaches `nodes`, unless it ends first."""
        while solver.stats["nodes"] < nodes:
            if ended.wait(0.0001):
                return
        solver.cancel()

    def test_solver_usable_after_timeout(self) -> None:
        position = Position.from_json(deal(MALILLA, 9).to_position_json())
        solver = Solver()
        with pytest.raises(SearchStopped):
            solver.solve(position, timeout=1e-6)
        assert solver.solve(position).values == Solver().solve(position).values


class TestTable:
    def test_reuse_across_positions_of_a_deal(self) -> None:
        position = Position.from_json(deal(MALILLA, 4).to_position_json())
        solver = Solver()
        first = solver.solve(position)
        after = position.play(first.line[0])
        warm = solver.solve(after)
        cold = Solver().solve(after)
        assert warm.values == cold.values
        assert warm.nodes < cold.nodes

    def test_another_deal_does_not_reuse_it(self) -> None:
        """Keys leave out who holds the cards with points; a deal where two of them swapped
        hands (every key of the first deal fits it too) starts from an empty table."""
        position = Position.from_json(deal(MALILLA, 4).to_position_json())
        obj = position.to_json()
        north, east = obj["hands"]["N"].split(), obj["hands"]["E"].split()
        north[north.index("AS")], east[east.index("QS")] = "QS", "AS"
        obj["hands"]["N"], obj["hands"]["E"] = " ".join(north), " ".join(east)
        swapped = Position.from_json(obj)
        solver = Solver()
        solver.solve(position)
        warm = solver.solve(swapped)
        cold = Solver().solve(swapped)
        assert warm.values == cold.values
        assert warm.nodes == cold.nodes
        assert solver.solve(position).nodes == Solver().solve(position).nodes

    @pytest.mark.parametrize("seed, one, other", [
        (5, "QD 10S JD KD 9D 10D 7S 8C", "10D 10S JD KD QD 7S 8C 9D"),
        (56, "10C KC QC AC JC JD 8C 7C", "JC KC QC AC 7C 10C JD 8C"),
        (221, "9S QS KH 7S 8S KC JH AS", "AS QS KC 7S 9S 8S KH JH"),
        (299, "7S 10H AD 9H 8H QD KC 9D", "8H 10H KC 9H QD AD 9D 7S"),
    ])
    def test_the_same_cards_left_after_tricks_won_by_other_sides(self, seed: int, one: str, other: str) -> None:
        """Two tricks played two ways from the same position leave the same cards with the same
        leader, but one way a side has taken no trick and the other way both have: the capot
        open in one is not in the other, so under the deal score one solver gives each position
        its own value (a "best" search, whose answer the table keeps for the position itself)
        and its own cards' values, in either order."""
        base = played_out(MANILLE, seed, 4)
        twins = []
        for cards in (one, other):
            p = base
            for card in cards.split():
                p = p.play(card)
            twins.append(p)
        assert twins[0].hands == twins[1].hands and twins[0].leader == twins[1].leader
        assert twins[0].tricks_won() != twins[1].tricks_won() and 0 in twins[0].tricks_won() + twins[1].tricks_won()
        for order in (twins, twins[::-1]):
            solver = Solver()
            for p in order:
                assert solver.solve(p, mode="best", objective="score").value == brute_score(p), p.to_json()
                solution = solver.solve(p, objective="score")
                assert solution.value == brute_score(p), p.to_json()
                for card, v in solution.values.items():
                    after = p.play(card)
                    assert v == brute_score(after) * (1 if after.to_move % 2 == p.to_move % 2 else -1), card

    def test_clear_forgets(self) -> None:
        position = Position.from_json(deal(MANILLE, 4).to_position_json())
        solver = Solver()
        cold = solver.solve(position).nodes
        warm = solver.solve(position).nodes
        solver.clear()
        again = solver.solve(position).nodes
        assert warm < cold and again == cold

    def test_table_is_kept_across_objectives_only_where_the_flags_agree(self) -> None:
        """Malilla's deal score searches as its points do, so it reuses their table;
        Manille's ranks a capot apart, so its table starts afresh."""
        for profile, kept in ((MALILLA, True), (MANILLE, False)):
            position = Position.from_json(deal(profile, 4).to_position_json())
            solver = Solver()
            solver.solve(position)
            after_points = solver.solve(position, objective="score")
            cold = Solver().solve(position, objective="score")
            assert after_points.values == cold.values
            assert (after_points.nodes < cold.nodes) if kept else (after_points.nodes == cold.nodes)

    def test_table_grows_and_keeps_entries(self) -> None:
        position = Position.from_json(deal(MALILLA, 3).to_position_json())
        solver = Solver(1 << 25)
        first_slots = solver.stats["slots_in_use"]
        cold = solver.solve(position)
        grown = solver.stats
        assert first_slots < grown["slots_in_use"] <= grown["slots"] and solver.memory <= 1 << 25
        warm = solver.solve(position)
        assert warm.values == cold.values
        assert warm.nodes * 20 < cold.nodes
        solver.clear()
        assert solver.stats["slots_in_use"] == first_slots and solver.stats["entries"] == 0

    @pytest.mark.parametrize(("profile", "cards_played", "start"),
                             [(MALILLA, 0, 8), (MALILLA, 1, 4), (MALILLA, 2, 2), (MALILLA, 3, 1), (MANILLE, 0, 1)],
                             ids=["malilla-40", "malilla-39", "malilla-38", "malilla-37", "manille-32"])
    def test_an_empty_table_starts_at_the_size_of_the_search(self, profile, cards_played, start) -> None:
        """A search of more than 37 cards in the hands starts an empty table twice as large
        for each card above 37 (a whole Malilla deal at 8 times the cleared size), within
        the table's bound; a smaller search after it leaves the table as large."""
        position = played_out(profile, 5, 0, cards_played)
        solver = Solver(1 << 25)
        cleared = solver.stats["slots_in_use"]
        reached = solver.solve(position, mode="target", target=0)   # a question of a handful of nodes
        assert reached.reached and reached.nodes < 100
        assert solver.stats["slots_in_use"] == start * cleared
        solver.solve(position.play(position.legal_moves()[0]), mode="target", target=0)
        assert solver.stats["slots_in_use"] == start * cleared
        small = Solver(1 << 20)
        small.solve(position, mode="target", target=0)
        assert small.stats["slots_in_use"] == min(start * cleared, small.stats["slots"])

    def test_quasi_symmetric_bounds_only_where_sound(self) -> None:
        """Entries of quasi-symmetric positions answer boundaries when points are the objective,
        never under the deal score, where a capot is not a sum of card points."""
        position = Position.from_json(deal(MANILLE, 3).to_position_json())
        points, score = Solver(), Solver()
        points.solve(position)
        score.solve(position, objective="score")
        assert points.stats["quasi_cutoffs"] > 0 and score.stats["quasi_cutoffs"] == 0

    @given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1))
    def test_key_packing_matches_on_every_build(self, x: int, mask: int) -> None:
        under_mask = [b for b in range(64) if mask >> b & 1]
        expected = sum(1 << i for i, b in enumerate(under_mask) if x >> b & 1)
        assert _core.extract_bits(x, mask) == _core.extract_bits(x, mask, portable=True) == expected

    @given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1))
    def test_run_finding_matches_on_every_build(self, x: int, mask: int) -> None:
        under_mask = [b for b in range(64) if mask >> b & 1]
        expected = sum(1 << b for i, b in enumerate(under_mask) if x >> i & 1)
        assert _core.deposit_bits(x, mask) == _core.deposit_bits(x, mask, portable=True) == expected

    def test_memory_bound(self) -> None:
        assert Solver(1 << 20).memory <= 1 << 20
        with pytest.raises(ValueError, match="memory"):
            Solver(100)
        for memory in (1 << 62, 1 << 64, 10 ** 20):   # no MemoryError or OverflowError from the core
            with pytest.raises(ValueError, match=f"^memory: {memory} bytes is more than this machine's .* GiB$"):
                Solver(memory)

    @pytest.mark.parametrize("timeout", [0, -1, float("nan"), float("inf")])
    def test_a_timeout_must_be_positive_seconds(self, timeout: float) -> None:
        position = Position.from_json(deal(MANILLE, 8).to_position_json())
        with pytest.raises(ValueError, match=r"timeout: .* is not a positive number of seconds"):
            Solver().solve(position, timeout=timeout)

    def test_default_solve_function(self) -> None:
        import solver
        position = Position.from_json(deal(MANILLE, 8).to_position_json())
        assert solver.solve(position) == solve(position) == Solver().solve(position)
        assert solver.solve(position.to_json(), mode="best").value == Solver().solve(position).value


class TestStaticBounds:
    """The sure-points bounds at trick boundaries only prune: on positions too large for the
    minimax reference, values with them equal values from the search without them."""

    @pytest.mark.parametrize("profile", [MALILLA, MANILLE], ids=lambda p: p.name)
    def test_values_equal_the_search_without_them(self, profile) -> None:
        bounded, plain = Solver(1 << 24), Solver(1 << 24)
        plain._core.static_bounds = False
        nodes = {"bounded": 0, "plain": 0}
        for seed in range(150):
            # from a whole deal down to three tricks left, at and within trick boundaries
            position = played_out(profile, 500 + seed, seed % (profile.tricks - 2), seed // 3 % 4)
            bounded.clear()
            plain.clear()
            with_bounds, without = bounded.solve(position), plain.solve(position)
            assert with_bounds.values == without.values, position.to_json()
            nodes["bounded"] += with_bounds.nodes
            nodes["plain"] += without.nodes
        assert nodes["bounded"] < nodes["plain"]
        assert plain._core.static_bounds is False and bounded._core.static_bounds is True


class TestArguments:
    start = Position.from_json(deal(MANILLE, 3).to_position_json())
    position = start.play(start.legal_moves()[0])

    def test_a_position_or_its_json(self) -> None:
        expected = Solver(1 << 20).solve(self.position).to_json()
        assert Solver(1 << 20).solve(self.position.to_json()).to_json() == expected
        assert Solver(1 << 20).solve(json.dumps(self.position.to_json())).to_json() == expected
        with pytest.raises(PositionError, match="^position: expected a JSON object$"):
            Solver(1 << 20).solve(None)

    def test_targets_beyond_the_points_there_are(self) -> None:
        solver = Solver(1 << 20)
        total = MANILLE.total_points
        legal = set(self.position.legal_moves())
        for target, reached in [(total + 1, False), (10 ** 30, False), (0, True), (-(10 ** 30), True)]:
            s = solver.solve(self.position, mode="target", target=target)
            assert (s.target, s.reached) == (target, reached)
            every = solver.solve(self.position, mode="targets", target=target)
            assert (every.target, every.reached, set(every.best)) == (target, reached, legal if reached else set())

    @pytest.mark.parametrize("game, trumps", [("manille", "10S AS KS QS JS 9S 8S 7S"),
                                              ("malilla", "7S AS KS QS JS 6S 5S 4S 3S 2S")])
    def test_every_point_is_in_reach_and_one_more_is_not(self, game: str, trumps: str) -> None:
        """N holds every trump and leads: each lead of a trump wins its trick, so N-S take every
        point of the deal and not one more."""
        profile = get_profile(game)
        rest = [r + s for s in "HDC" for r in profile.ranks]
        position = Position.from_json({"game": game, "trump": "S", "leader": "N", "trick": [],
                                       "hands": {"N": trumps, "E": " ".join(rest[0::3]),
                                                 "S": " ".join(rest[1::3]), "W": " ".join(rest[2::3])}})
        total = profile.total_points
        solver = Solver(1 << 20)
        assert solver.solve(position, mode="best").value == total
        for mode in ("target", "targets"):
            assert solver.solve(position, mode=mode, target=total).reached
            assert not solver.solve(position, mode=mode, target=total + 1).reached

    @pytest.mark.parametrize("kwargs, message", [
        ({"timeout": "1"}, "timeout: '1' is not a positive number of seconds"),
        ({"timeout": True}, "timeout: True is not a positive number of seconds"),
        ({"mode": "target", "target": 2.5}, "target: 2.5 is not a whole number"),
        ({"mode": "targets", "target": "3"}, "target: '3' is not a whole number"),
        ({"mode": "targets"}, "target: give a target exactly when mode is 'target' or 'targets'"),
        ({"mode": "optimal", "target": 3}, "target: give a target exactly when mode is 'target' or 'targets'"),
    ])
    def test_arguments_of_the_wrong_type(self, kwargs, message) -> None:
        with pytest.raises(ValueError) as err:
            Solver(1 << 20).solve(self.position, **kwargs)
        assert str(err.value) == message

    @pytest.mark.parametrize("memory", ["1M", None, 1.5e6, True])
    def test_a_memory_that_is_no_whole_number(self, memory) -> None:
        with pytest.raises(ValueError) as err:
            Solver(memory)
        assert str(err.value) == f"memory: {memory!r} is not a whole number"


def test_the_package_names_the_solver():
    import sys

    import solver
    module = sys.modules["solver.solve"]
    assert (solver.solve, solver.Solver, solver.Solution, solver.SearchStopped) == \
        (module.solve, module.Solver, module.Solution, module.SearchStopped)
    assert {"solve", "Solver", "Solution", "SearchStopped"} <= set(solver.__all__)


class TestSolution:
    def test_margins_and_groups(self) -> None:
        position = Position.from_json(deal(MALILLA, 21).to_position_json())
        s = Solver().solve(position)
        assert s.value == max(s.values.values())
        assert all(cv.margin == s.value - cv.value for cv in s.cards)
        assert set(s.values) == set(position.legal_moves())
        for group in s.groups:
            assert len({s.values[c] for c in group}) == 1
        assert sorted(c for g in s.groups for c in g) == sorted(position.legal_moves())

    def test_line_reaches_the_value(self) -> None:
        position = Position.from_json(deal(MANILLE, 30).to_position_json())
        s = Solver().solve(position, mode="best")
        p = position
        for card in s.line:
            p = p.play(card)
        assert p.is_over
        assert p.points_won()[position.to_move % 2] == s.value

    @pytest.mark.parametrize("mode", ["all", "optimal", "best"])
    def test_line_opens_with_a_reported_best_card(self, mode: str) -> None:
        solver = Solver()
        for seed in range(6):
            # a warm table must not let the line open with another optimal card
            for profile in (MALILLA, MANILLE):
                s = solver.solve(Position.from_json(deal(profile, seed).to_position_json()), mode=mode)
                assert s.line[0] in s.best

    @pytest.mark.parametrize("bad", [{"mode": "fast"}, {"objective": "tricks"}, {"mode": "target"},
                                     {"mode": "targets"}, {"target": 3}])
    def test_bad_options(self, bad: dict) -> None:
        position = Position.from_json(deal(MANILLE, 1).to_position_json())
        with pytest.raises(ValueError):
            Solver().solve(position, **bad)
