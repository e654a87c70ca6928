# Counting the legal ways to play on (perft): an anchor for any program's
# legal-move routine, which must count the same.


cdef enum:                  # why a count stopped
    PAST_DEADLINE = 1
    INTERRUPTED = 2         # a signal handler raised (Ctrl-C): its error is pending


cdef struct Count:
    uint64_t leaves         # the sequences of `depth` legal cards
    long long deadline_ns   # 0: none
    uint64_t checked        # leaves at the last look at the clock and the signals
    int stopped             # 0 while it runs, or why it stopped


cdef void count_leaves(const RuleFlags* r, State* st, int depth, Count* n) noexcept nogil:
    """Add to n.leaves the legal sequences of `depth` more cards (at least 1)."""
    cdef uint64_t moves = legal_cards(r, st, to_move(r, st), NULL)
    cdef int c
    cdef Undo u
    if depth == 1:
        n.leaves += popcount64(moves)
        if n.leaves - n.checked >= 1 << 22:
            n.checked = n.leaves
            if n.deadline_ns and now_ns() > n.deadline_ns:
                n.stopped = PAST_DEADLINE
            if signal_raised():
                n.stopped = INTERRUPTED
        return
    while moves and not n.stopped:
        c = ctz64(moves)
        moves &= moves - 1
        play_card(r, st, c, &u)
        count_leaves(r, st, depth - 1, n)
        st[0] = u.before
