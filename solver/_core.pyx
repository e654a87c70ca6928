# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The search core: legal moves and alpha-beta with a transposition table.

The parts in ``core/`` (card masks, legal moves, the table, move ordering,
static bounds, the search, the root) are included into this one module, so
that the compiler sees the whole search at once; they run on C structs and
64-bit card masks without the GIL. This file holds their Python face. Card
``c`` is bit ``c`` of a hand (``suit * 16 + strength``). Values are N-S points
from the remaining play, the trick in progress included; E-W's are the
remaining total minus that.
"""
from libc.stdint cimport uint64_t, uint32_t, int8_t, uint8_t
from libc.stdlib cimport free
from libc.string cimport memcpy, memset
from posix.mman cimport mmap, munmap, PROT_READ, PROT_WRITE, MAP_PRIVATE, MAP_ANONYMOUS, MAP_FAILED
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC


cdef extern from "<stdlib.h>":
    void* aligned_alloc(size_t alignment, size_t size) nogil


cdef extern from *:
    """
    #include <sys/mman.h>
    static void malilla_large_pages(void* p, size_t n) {
    #ifdef MADV_HUGEPAGE
        madvise(p, n, MADV_HUGEPAGE);
    #endif
    }
    """
    void large_pages "malilla_large_pages"(void* p, size_t n) nogil


include "core/cards.pxi"
include "core/moves.pxi"
include "core/table.pxi"
include "core/ordering.pxi"
include "core/bounds.pxi"
include "core/search.pxi"
include "core/perft.pxi"
include "core/threads.pxi"
include "core/splits.pxi"
include "core/root.pxi"
include "core/scoring.pxi"
include "core/checks.pxi"


cdef void fill_slot_diff(RuleFlags* r, const int* points_by_strength) noexcept:
    """`slot_diff` for every two sets a, b of one suit's cards with points (bit
    j: strength nlow + j): card by card from the top, what a's cards are worth
    more than b's (low byte) and less (high byte), a worthless low card
    standing where a set has run out."""
    cdef const int* pts = points_by_strength + r.nlow
    cdef int a, b, i, j, d, more, less
    for a in range(1 << r.suit_high):
        for b in range(1 << r.suit_high):
            more = 0
            less = 0
            i = j = r.suit_high - 1
            while True:
                while i >= 0 and not (a >> i) & 1:
                    i -= 1
                while j >= 0 and not (b >> j) & 1:
                    j -= 1
                if i < 0 and j < 0:
                    break
                d = (pts[i] if i >= 0 else 0) - (pts[j] if j >= 0 else 0)
                if d > 0:
                    more += d
                else:
                    less -= d
                i -= 1
                j -= 1
            r.slot_diff[(a << r.suit_high) | b] = more + (less << 8)


cdef void fill_rules(RuleFlags* r, tuple points_by_strength, int trick_bonus, int step,
                     int protected_strength, bint undertrump_ban, bint capot):
    cdef int s, k, m, total
    cdef int n = len(points_by_strength)
    cdef int points[10]
    if n > 10:
        raise ValueError("at most 10 ranks per suit")
    for k in range(n):
        points[k] = points_by_strength[k]
    memset(r, 0, sizeof(RuleFlags))
    for s in range(4):
        for k in range(n):
            r.pts[s * 16 + k] = points[k]
    for m in range(1024):
        total = 0
        for k in range(n):
            if (m >> k) & 1:
                total += points[k]
        r.suit_pts[m] = total
    r.trick_bonus = trick_bonus
    r.step = step
    r.protected = 0
    if protected_strength >= 0:
        for s in range(4):
            r.protected |= bit(s * 16 + protected_strength)
    r.undertrump_ban = undertrump_ban
    r.capot = capot
    r.nlow = 0
    while r.nlow < n and points[r.nlow] == 0:
        r.nlow += 1
    if 0 < protected_strength < r.nlow - 1:
        # the key places a protected card among the worthless ones only at the run's bottom or top
        r.nlow = protected_strength + 1
    r.suit_high = n - r.nlow
    if 4 * r.suit_high > 64 - HOLDER_BITS:
        raise ValueError(f"at most {(64 - HOLDER_BITS) // 4} ranks above the worthless ones are supported")
    r.npoint_classes = max(points_by_strength) + 1
    r.monotone = all(points[k] <= points[k + 1] for k in range(n - 1))
    if r.npoint_classes > 8:
        raise ValueError("card points above 7 are not supported")
    if 4 * sum(points_by_strength) + n * trick_bonus > MAX_DEAL_POINTS:
        raise ValueError(f"a deal of more than {MAX_DEAL_POINTS} points is not supported")
    for s in range(4):
        for k in range(n):
            r.by_points[points[k]] |= bit(s * 16 + k)
            for m in range(3):
                if (points[k] >> m) & 1:
                    r.point_bits[m] |= bit(s * 16 + k)
            if k >= r.nlow:
                r.high |= bit(s * 16 + k)
    r.protected_high = pext64(r.protected, r.high)
    r.unled_key = 15 if r.protected & ~r.high else 0
    fill_slot_diff(r, points)
    # a quasi-symmetric position's cards play alike but for their points
    # only where the protected card, if any, is the top of its suit; and the
    # deal score's capot is not a sum of card points
    r.quasi = not capot and protected_strength in (-1, n - 1) and not r.protected & ~r.high


cdef class Rules:
    """The rule flags of one profile, as the core reads them."""
    cdef RuleFlags r

    def __init__(self, tuple points_by_strength, int trick_bonus, int step,
                 int protected_strength, bint undertrump_ban, bint capot=False):
        fill_rules(&self.r, points_by_strength, trick_bonus, step, protected_strength,
                   undertrump_ban, capot)


cdef int checked_cards(tuple trick, int most, int* cards) except -1:
    """Copies `trick` into `cards`, refusing more than `most` cards or a card outside 0..63."""
    cdef int i
    if len(trick) > most:
        raise ValueError(f"trick: {len(trick)} cards; at most {most} here")
    for i in range(len(trick)):
        cards[i] = trick[i]
        if not 0 <= cards[i] < 64:
            raise ValueError(f"trick[{i}]: {cards[i]} is not a card number (0 to 63)")
    return len(trick)


cdef void fill_state(State* st, tuple hands, int trump, int leader, tuple trick, int led, int won) except *:
    cdef int i
    if len(hands) != 4:
        raise ValueError(f"hands: {len(hands)} masks; expected four (N, E, S, W)")
    if not 0 <= leader < 4:
        raise ValueError(f"leader: {leader} is not a seat (0 to 3)")
    st.ntrick = checked_cards(trick, 3, st.trick)
    for i in range(4):
        st.hands[i] = hands[i]
    st.trump = trump
    st.leader = leader
    st.win = winner_index(st.trick, st.ntrick, trump)
    st.led = led
    st.won = won
    st.in_play = held(st)
    for i in range(st.ntrick):
        st.in_play |= bit(st.trick[i])


def legal_moves(Rules rules, tuple hands, int trump, int leader, tuple trick, int led):
    """(mask of legal cards, Reason code, winning card or -1) for the player to move."""
    cdef State st
    cdef int reason, winning
    cdef uint64_t m
    fill_state(&st, hands, trump, leader, trick, led, 0)
    m = legal_mask(&rules.r, &st, to_move(&rules.r, &st), &reason, &winning)
    return m, reason, winning


def extract_bits(uint64_t x, uint64_t mask, bint portable=False):
    """The bits of x under mask, packed at the bottom (what table keys are
    built with): the CPU's instruction when built with it, or the portable
    loop."""
    return pext64_portable(x, mask) if portable else pext64(x, mask)


def deposit_bits(uint64_t x, uint64_t mask, bint portable=False):
    """The bottom bits of x spread to the places of mask's bits, lowest first
    (what runs of adjacent cards are found with): the CPU's instruction when
    built with it, or the portable loop."""
    return pdep64_portable(x, mask) if portable else pdep64(x, mask)


def trick_winner(tuple trick, int trump):
    """Index in `trick` of the card winning it so far."""
    cdef int cards[4]
    if not trick:
        raise ValueError("trick: no cards, so no winner")
    return winner_index(cards, checked_cards(trick, 4, cards), trump)


def cards_mask(tuple trick, tuple history):
    """The mask of the cards of `trick` and of `history`'s tricks (tuples), or -1
    when one is not an int from 0 to 63 or comes twice."""
    cdef uint64_t mask = 0
    cdef object card, t
    cdef long long c
    for t in (trick,) + history:
        for card in <tuple>t:
            if type(card) is not int:
                return -1
            try:
                c = card
            except OverflowError:
                return -1
            if c < 0 or c > 63 or (mask >> c) & 1:
                return -1
            mask |= bit(<int>c)
    return mask


def replay(Rules rules, tuple hands, int trump, int leader, int led, tuple cards):
    """How many of `cards` (ints), played in order from a trick boundary
    (`hands`, `leader` to lead, the suits `led` so far), are each held by the
    player to move and legal there: len(cards) when every one is."""
    cdef State st
    cdef Undo u
    cdef int i, c, reason, winning
    fill_state(&st, hands, trump, leader, (), led, 0)
    for i in range(len(cards)):
        c = cards[i]
        if not 0 <= c < 64 or not (legal_mask(&rules.r, &st, to_move(&rules.r, &st), &reason, &winning) >> c) & 1:
            return i
        play_card(&rules.r, &st, c, &u)
    return len(cards)


cdef extern from "Python.h":
    int check_signals "PyErr_CheckSignals"()   # -1, with the error set, when a handler raised


cdef bint signal_raised() noexcept nogil:
    """Did a signal handler raise (Ctrl-C)? Its error is then pending, for `raise_pending`."""
    with gil:
        return check_signals() == -1


cdef int raise_pending() except -1:
    """Raise the error a signal handler left pending."""
    return -1


def equivalence_groups(Rules rules, uint64_t moves, uint64_t present):
    """Runs of equivalent cards among `moves`, each highest first."""
    cdef dict groups = {}
    cdef uint64_t rest = moves
    cdef int c
    while rest:
        c = highest(rest)
        rest &= ~bit(c)
        groups.setdefault(group_head(&rules.r, moves, present, c), []).append(c)
    return list(groups.values())


MAX_THREADS = THREAD_LIMIT


class SearchStopped(RuntimeError):
    """The search was cancelled or ran past its deadline."""


cdef class Core:
    """A search context with its own transposition table.

    Stored bounds stay valid across the positions of one deal; `solve`
    clears the table when the rules, the trump or the deal change. A Core
    runs one search or count at a time: `solver.Solver` serialises the
    calls that several threads make.
    """
    cdef Ctx* X
    cdef object signature
    cdef bint cleared       # nothing was searched since the last clear
    cdef readonly size_t memory

    def __cinit__(self, size_t memory=256 * 1024 * 1024):
        cdef uint64_t most = memory // BUCKET_BYTES, nb, initial
        cdef void* mem
        if most == 0:
            raise MemoryError(f"a {memory}-byte table holds no bucket")
        nb = most if most < FIRST_BUCKETS else FIRST_BUCKETS
        initial = nb
        while nb * 2 <= most:
            nb *= 2
        # page-aligned, so the search's fields sit at the same cache-line and
        # page offsets in every process
        self.X = <Ctx*>aligned_alloc(4096, (sizeof(Ctx) + 4095) // 4096 * 4096)
        if self.X == NULL:
            raise MemoryError()
        memset(self.X, 0, sizeof(Ctx))
        self.X.halt = &self.X.stop
        # pages are mapped on first touch, so the table costs only what it uses
        mem = mmap(NULL, nb * BUCKET_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        if mem == MAP_FAILED:
            free(self.X)
            self.X = NULL
            raise MemoryError(f"cannot map a {memory}-byte table")
        # large pages, where the system has them, spare the search most TLB misses
        large_pages(mem, nb * BUCKET_BYTES)
        self.X.tt.buckets = <Bucket*>mem
        self.X.tt.nbuckets = nb
        self.X.tt.initial = initial
        self.X.static_bounds = 1
        self.X.helpers_after = HELPERS_AFTER
        self.X.split_from = SPLIT_FROM
        self.memory = nb * BUCKET_BYTES
        self.signature = None
        self.clear()

    def __dealloc__(self):
        if self.X != NULL:
            munmap(self.X.tt.buckets, self.memory)
            free(self.X)

    def clear(self):
        """Forget every stored bound and killer move (only the buckets a
        cleared table starts with are emptied now, the others as it grows)."""
        memset(self.X.tt.buckets, 0, self.X.tt.initial * BUCKET_BYTES)
        memset(self.X.tt.holders, 0, sizeof(self.X.tt.holders))
        memset(self.X.killers, 0xFF, sizeof(self.X.killers))   # -1: none
        memset(self.X.sides, 0, sizeof(self.X.sides))
        self.X.tt.used = 0
        self.X.tt.active = self.X.tt.initial
        self.cleared = True

    def cancel(self):
        """Stop the search or count running in another thread soon or, when none is, the next
        one to start (see `withdraw_cancel`)."""
        self.X.stop = 1

    def withdraw_cancel(self):
        """Drop a cancel that no search or count has taken."""
        self.X.stop = 0

    cdef int stopped(self, str work, str when) except -1:
        """Raise SearchStopped: the search or count (`work`) was stopped `when`. The cancel
        that stopped it, if one did, is taken."""
        self.X.stop = 0
        raise SearchStopped(f"the {work} was stopped {when}")

    def count(self, Rules rules, tuple hands, int trump, int leader, tuple trick, int led, int depth,
              double timeout=0.0):
        """[(card, the legal sequences of `depth` cards, at least 1, that begin with it)] for each
        legal card of the player to move, `depth` at most the cards left. Raises SearchStopped
        once cancelled (`cancel`, as a search) or past `timeout` seconds (0: no limit), and what
        a signal handler raises (KeyboardInterrupt)."""
        cdef State st
        cdef Count n
        cdef uint64_t moves, before
        cdef int c
        cdef Undo u
        cdef list out = []
        if self.X.stop:   # a cancel before this count
            self.stopped("count", "before it started")
        fill_state(&st, hands, trump, leader, trick, led, 0)
        memset(&n, 0, sizeof(Count))
        n.stop = &self.X.stop
        n.deadline_ns = now_ns() + <long long>(timeout * 1e9) if timeout > 0 else 0
        moves = legal_cards(&rules.r, &st, to_move(&rules.r, &st), NULL)
        while moves:
            c = ctz64(moves)
            moves &= moves - 1
            before = n.leaves
            if depth == 1:
                n.leaves += 1
            else:
                play_card(&rules.r, &st, c, &u)
                with nogil:
                    count_leaves(&rules.r, &st, depth - 1, &n)
                st = u.before
            if n.stopped == INTERRUPTED:
                raise_pending()
            if n.stopped:
                self.stopped("count", "before it finished")
            out.append((c, n.leaves - before))
        return out

    @property
    def static_bounds(self):
        """Whether trick boundaries use the sure-points bounds (cashed top
        cards, master trumps, a crossing to the partner). Off, the search
        bounds a position by the table and the points left only: slower, and
        a check that the bounds never change a value."""
        return bool(self.X.static_bounds)

    @static_bounds.setter
    def static_bounds(self, bint on):
        self.X.static_bounds = on

    @property
    def helpers_after(self):
        """The nodes a search runs alone before the helper threads `solve` is
        given join it (default 1024, about what starting a thread costs; 16
        times as many where the search is mostly short or their work may go
        unused: the value's probes, the checks, and every card when all are
        of one suit; 0: they join at once; at most 2**50, more than any
        search runs)."""
        return self.X.helpers_after

    @helpers_after.setter
    def helpers_after(self, long long nodes):
        if not 0 <= nodes <= MOST_NODES:
            raise ValueError(f"helpers_after: {nodes} is not a node count from 0 to {MOST_NODES}")
        self.X.helpers_after = nodes

    @property
    def split_from(self):
        """The fewest cards in the hands at a node whose other moves a search
        may share with idle helpers once its first move is searched (default
        24: high in the tree, where a move's search outweighs the sharing)."""
        return self.X.split_from

    @split_from.setter
    def split_from(self, int cards):
        if cards < 0:
            raise ValueError(f"split_from: {cards} is not a card count")
        self.X.split_from = cards

    @property
    def stats(self):
        """Counters since the table was made (nodes, trick-boundary nodes,
        cutoffs by a boundary's own entry and by entries of quasi-symmetric
        positions) and the table's fill: entries stored since the last
        clear, slots and bytes in use now (the table doubles as it fills)
        and the most slots the memory bound allows."""
        return {"nodes": self.X.nodes, "boundary_nodes": self.X.boundary_nodes,
                "table_cutoffs": self.X.table_cutoffs, "quasi_cutoffs": self.X.quasi_cutoffs,
                "entries": self.X.tt.used,
                "slots_in_use": self.X.tt.active * BUCKET, "bytes_in_use": self.X.tt.active * BUCKET_BYTES,
                "slots": self.X.tt.nbuckets * BUCKET}

    def solve(self, Rules rules, object signature, tuple hands, int trump, int leader, tuple trick,
              int led, int won, str mode, int target=0, double timeout=0.0, int threads=1):
        """Search one state.

        mode: "best", "optimal", "all", "target" or "targets" (see solver.solve).
        threads: how many threads search (this one and helpers sharing the
        table): they score the cards in "all" mode and check them against
        the value or the target, and share the moves of nodes high in the
        tree (see `helpers_after` and `split_from`).
        Returns (value, [(card, val)], line, nodes, total): in "target" and
        "targets" mode value is 1 or 0 and val 1 for a card that reaches the
        target ("target": the list ends at the first that does); in
        "optimal"/"best" val is 1 for optimal cards; in "all" it is the N-S
        value. Otherwise values are N-S points. Raises SearchStopped.
        """
        cdef Ctx* X = self.X
        cdef RootResult out
        cdef int m = {"best": MODE_BEST, "optimal": MODE_OPTIMAL, "all": MODE_ALL, "target": MODE_TARGET,
                      "targets": MODE_TARGETS}[mode]
        cdef long long start
        cdef int i
        memset(&out, 0, sizeof(RootResult))   # a search stopped early leaves values unwritten
        X.rules = rules.r
        fill_state(&X.st, hands, trump, leader, trick, led, won)
        if signature != self.signature or other_deal(X):
            if not self.cleared:
                self.clear()
            self.signature = signature
        self.cleared = False
        if X.tt.used == 0:
            tt_reserve(&X.tt, popcount64(held(&X.st)))
        for i in range(4):
            X.tt.holders[i] |= X.st.hands[i] & X.rules.high
        if X.stop:   # a cancel before this search
            self.stopped("search", "before it started")
        X.stopped = 0
        X.check_at = X.nodes + 1024
        X.deadline_ns = now_ns() + <long long>(timeout * 1e9) if timeout > 0 else 0
        start = X.nodes
        with nogil:
            run_root(X, m, target, threads, &out)
        if X.stopped:
            self.stopped("search", "before it finished")
        return (out.value, [(out.cards[i], out.vals[i]) for i in range(out.n)],
                [out.line[i] for i in range(out.nline)], X.nodes - start, out.total)
