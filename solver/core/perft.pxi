# Counting the legal ways to play on (perft): an anchor for any program's
# legal-move routine, which must count the same.


cdef enum:                  # why a count stopped
    STOPPED = 1             # cancelled (its core's `stop`) or past its deadline
    INTERRUPTED = 2         # a signal handler raised (Ctrl-C): its error is pending


cdef enum:
    STOP_EVERY = 1 << 14    # positions between looks at the stop flag and the clock (well under a millisecond)
    SIGNALS_EVERY = 1 << 22 # positions between looks at the signals, which take the GIL


cdef struct Count:
    uint64_t leaves         # the sequences of `depth` legal cards
    uint64_t visits         # the positions counted from: a count whose hands run out (a lenient
                            # position's) may add no leaf for a long time, but it visits
    long long deadline_ns   # 0: none
    volatile int* stop      # set by another thread to stop the count (the core's `cancel`)
    uint64_t checked        # visits at the last look at the stop flag and the clock
    uint64_t signals_checked    # visits at the last look at the signals
    int stopped             # 0 while it runs, or why it stopped


cdef void check_count(Count* n) noexcept nogil:
    """Mark the count stopped if it is cancelled or past its deadline or, every SIGNALS_EVERY
    visits, a signal handler raised."""
    n.checked = n.visits
    if n.stop[0] or (n.deadline_ns and now_ns() > n.deadline_ns):
        n.stopped = STOPPED
    elif n.visits - n.signals_checked >= SIGNALS_EVERY:
        n.signals_checked = n.visits
        if signal_raised():
            n.stopped = INTERRUPTED


cdef void count_leaves(const RuleFlags* r, State* st, int depth, Count* n) noexcept nogil:
    """Add to n.leaves the legal sequences of `depth` more cards (at least 1)."""
    cdef uint64_t moves = legal_cards(r, st, to_move(r, st), NULL)
    cdef int c
    cdef Undo u
    n.visits += 1
    if n.visits - n.checked >= STOP_EVERY:
        check_count(n)
    if depth == 1:
        n.leaves += popcount64(moves)
        return
    while moves and not n.stopped:
        c = ctz64(moves)
        moves &= moves - 1
        play_card(r, st, c, &u)
        count_leaves(r, st, depth - 1, n)
        st[0] = u.before
