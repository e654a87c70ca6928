# The root: each mode's answer (every card's value in "all" mode is
# `score_all`'s), the first guess (a rollout) and the principal line.


cdef struct RootResult:
    int n
    int cards[16]
    int vals[16]
    int value
    int total
    int nline
    int line[MAX_CARDS + 4]


cdef enum Mode:
    MODE_BEST = 0
    MODE_OPTIMAL = 1
    MODE_ALL = 2
    MODE_TARGET = 3
    MODE_TARGETS = 4


cdef int root_moves(Ctx* X, int* order) noexcept nogil:
    cdef int seat = to_move(&X.rules, &X.st)
    return order_moves(X, legal_cards(&X.rules, &X.st, seat, NULL), X.st.in_play, seat, -1, 0, order)


cdef void principal_line(Ctx* X, int value, int first, RootResult* out) noexcept nogil:
    """Walk one optimal line, opening with the optimal card `first`, to the
    end of the deal, then restore the root."""
    cdef State root = X.st
    cdef Undo u
    cdef int order[16]
    cdef int n, i, c, maximize
    out.nline = 0
    while not X.stopped and held(&X.st):
        c = first
        if out.nline:
            n = root_moves(X, order)
            table_first(X, order, n)
            maximize = (to_move(&X.rules, &X.st) & 1) == 0
            c = order[0]
            for i in range(n):
                if child_reaches(X, order[i], value, maximize):
                    c = order[i]
                    break
        do_play(X, c, &u)
        value -= u.ns
        out.line[out.nline] = c
        out.nline += 1
    X.st = root


cdef int playout(Ctx* X) noexcept nogil:
    """N-S points of the rest of the deal when every player plays the card
    the move ordering likes best."""
    cdef State start = X.st
    cdef Undo u
    cdef int order[16]
    cdef int ns = 0
    while held(&X.st):
        root_moves(X, order)
        do_play(X, order[0], &u)
        ns += u.ns
    X.st = start
    return ns


cdef int rollout(Ctx* X) noexcept nogil:
    """N-S points of the rest of the deal when every leader leads the card
    whose playout is best for its side and the followers play the card the
    move ordering likes best: the first guess of the null-window probes."""
    cdef State start = X.st
    cdef Undo u
    cdef int order[16]
    cdef int k, m, v, c, best = 0, ns = 0, maximize
    while held(&X.st):
        m = root_moves(X, order)
        c = order[0]
        if X.st.ntrick == 0 and m > 1:
            maximize = (to_move(&X.rules, &X.st) & 1) == 0
            for k in range(m):
                do_play(X, order[k], &u)
                v = u.ns + playout(X)
                undo_play(X, &u)
                if k == 0 or (maximize and v > best) or (not maximize and v < best):
                    best = v
                    c = order[k]
        do_play(X, c, &u)
        ns += u.ns
    X.st = start
    return ns


cdef int card_rollout(Ctx* X, int c) noexcept nogil:
    """N-S points of the rest of the deal after c, by `rollout`."""
    cdef Undo u
    cdef int v
    do_play(X, c, &u)
    v = u.ns + rollout(X)
    undo_play(X, &u)
    return v


cdef void table_first(Ctx* X, int* cards, int n) noexcept nogil:
    """Put the best card the table holds for this trick boundary, if any,
    first among `cards`: it is likely the card that reaches the value, so
    checking the cards stops early."""
    cdef uint64_t key[2]
    cdef uint64_t all_cards = held(&X.st)
    cdef Entry* e
    cdef int c, i
    if X.st.ntrick:
        return
    table_key(X, all_cards, key)
    e = tt_find(&X.tt, key, shape_hash(key))
    if e == NULL:
        return
    c = actual_card(X, all_cards, e.best)
    if c < 0 or not (X.st.hands[X.st.leader] >> c) & 1:
        return
    c = group_head(&X.rules, X.st.hands[X.st.leader], all_cards, c)
    for i in range(1, n):
        if cards[i] == c:
            cards[i] = cards[0]
            cards[0] = c
            return


cdef int root_value(Ctx* X, int guess, int lo, int hi, int threads) noexcept nogil:
    """The root's exact value by `mtdf`, with helpers (`form_team`) that
    search the moves this thread shares (`split_rest`)."""
    cdef Team team
    cdef volatile int found = 0
    cdef int v
    form_team(X, &team, threads, help_splits, NULL, &found, 1)
    v = mtdf(X, guess, lo, hi)
    found = 1
    disband(X, &team)
    return v


cdef void run_root(Ctx* X, int mode, int target, int threads, RootResult* out) noexcept nogil:
    """The root's answer in `mode`, on up to `threads` threads: they score the
    cards in "all" mode, find the value in "best" and "optimal", and check
    the cards against it ("optimal") or the target ("targets": every card),
    sharing moves at the splits of one pool (`split_rest`)."""
    cdef Pool pool
    memset(&pool, 0, sizeof(pool))
    X.pool = &pool if threads > 1 else NULL
    root_answer(X, mode, target, threads, out)
    X.pool = NULL


cdef void root_answer(Ctx* X, int mode, int target, int threads, RootResult* out) noexcept nogil:
    cdef int i
    cdef int lo_b = -1 if X.rules.capot else 0
    cdef int maximize = (to_move(&X.rules, &X.st) & 1) == 0
    cdef int hi_b
    out.total = remaining(X)
    X.root_nodes = X.nodes
    hi_b = out.total + (1 if X.rules.capot else 0)
    out.n = root_moves(X, out.cards)
    out.nline = 0
    if mode == MODE_TARGET or mode == MODE_TARGETS:
        check_all(X, out, target if maximize else out.total - target, maximize, mode == MODE_TARGET, threads)
        out.value = 0
        for i in range(out.n):
            out.value |= out.vals[i]
        return
    if mode == MODE_ALL:
        score_all(X, out, lo_b, hi_b, threads)
        if X.stopped:
            return
        for i in range(out.n):
            if i == 0 or (maximize and out.vals[i] > out.value) or (not maximize and out.vals[i] < out.value):
                out.value = out.vals[i]
    else:
        out.value = root_value(X, rollout(X), lo_b, hi_b, threads)
        table_first(X, out.cards, out.n)
        # in "best" mode the table's best card, now first, nearly always reaches the value at once
        check_all(X, out, out.value, maximize, mode == MODE_BEST, threads)
    for i in range(out.n):
        if (mode == MODE_ALL and out.vals[i] == out.value) or (mode != MODE_ALL and out.vals[i]):
            principal_line(X, out.value, out.cards[i], out)
            break
