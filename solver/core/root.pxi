# The root: each legal card's value or a target question, the first guess
# (a rollout), interchangeable cards' windows and the principal line.


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


cdef int root_moves(Ctx* X, int* order) noexcept nogil:
    cdef int reason, winning
    cdef int seat = to_move(&X.rules, &X.st)
    return order_moves(X, legal_mask(&X.rules, &X.st, seat, &reason, &winning), in_play(&X.st), seat, -1, 0,
                       order)


cdef void principal_line(Ctx* X, int value, int first, RootResult* out) noexcept nogil:
    """Walk one optimal line, opening with the optimal card `first`, to the
    end of the deal, then restore the root."""
    cdef Undo undos[MAX_CARDS + 4]
    cdef int order[16]
    cdef int n, i, c, maximize
    out.nline = 0
    while not X.stopped and (X.st.hands[0] | X.st.hands[1] | X.st.hands[2] | X.st.hands[3]):
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
        do_play(X, c, &undos[out.nline])
        value -= undos[out.nline].ns
        out.line[out.nline] = c
        out.nline += 1
    for i in range(out.nline - 1, -1, -1):
        undo_play(X, out.line[i], &undos[i])


cdef int playout(Ctx* X) noexcept nogil:
    """N-S points of the rest of the deal when every player plays the card
    the move ordering likes best."""
    cdef Undo undos[MAX_CARDS + 4]
    cdef int line[MAX_CARDS + 4]
    cdef int order[16]
    cdef int n = 0, i, ns = 0
    while X.st.hands[0] | X.st.hands[1] | X.st.hands[2] | X.st.hands[3]:
        root_moves(X, order)
        line[n] = order[0]
        do_play(X, order[0], &undos[n])
        ns += undos[n].ns
        n += 1
    for i in range(n - 1, -1, -1):
        undo_play(X, line[i], &undos[i])
    return ns


cdef int rollout(Ctx* X) noexcept nogil:
    """N-S points of the rest of the deal when every leader leads the card
    whose playout is best for its side and the followers play the card the
    move ordering likes best: the first guess of the null-window probes."""
    cdef Undo undos[MAX_CARDS + 4]
    cdef int line[MAX_CARDS + 4]
    cdef int order[16]
    cdef Undo u
    cdef int n = 0, i, k, m, v, best = 0, ns = 0, maximize
    while X.st.hands[0] | X.st.hands[1] | X.st.hands[2] | X.st.hands[3]:
        m = root_moves(X, order)
        line[n] = order[0]
        if X.st.ntrick == 0 and m > 1:
            maximize = (to_move(&X.rules, &X.st) & 1) == 0
            for k in range(m):
                do_play(X, order[k], &u)
                v = u.ns + playout(X)
                undo_play(X, order[k], &u)
                if k == 0 or (maximize and v > best) or (not maximize and v < best):
                    best = v
                    line[n] = order[k]
        do_play(X, line[n], &undos[n])
        ns += undos[n].ns
        n += 1
    for i in range(n - 1, -1, -1):
        undo_play(X, line[i], &undos[i])
    return ns


cdef int card_rollout(Ctx* X, int c) noexcept nogil:
    """N-S points of the rest of the deal after c, by `rollout`."""
    cdef Undo u
    cdef int v
    do_play(X, c, &u)
    v = u.ns + rollout(X)
    undo_play(X, c, &u)
    return v


cdef void table_first(Ctx* X, int* cards, int n) noexcept nogil:
    """Put the best card the table holds for this trick boundary, if any,
    first among `cards`: it is likely the card that reaches the value, so
    checking the cards stops early."""
    cdef uint64_t key[2]
    cdef uint64_t all_cards = X.st.hands[0] | X.st.hands[1] | X.st.hands[2] | X.st.hands[3]
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


cdef inline bint interchangeable(const Ctx* X, int c, int d, uint64_t present, int seat) noexcept nogil:
    """Do c and d, cards of `seat`'s hand, play alike but for their points? They
    do when they are of one suit with no other hand's card in play between
    them, and neither is a protected card still bound by its protection."""
    cdef const State* st = &X.st
    cdef int hi = c if c > d else d, lo = d if c > d else c
    if (hi >> 4) != (lo >> 4) or bound_protected(&X.rules, st) & (bit(hi) | bit(lo)):
        return 0
    return (present & above(lo) & ~above(hi - 1) & ~st.hands[seat]) == 0    # between them, only its own


cdef void sibling_window(Ctx* X, const int* cards, const int* vals, int i, int* lo, int* hi) noexcept nogil:
    """Narrow [lo, hi], the N-S range of cards[i]'s value, by the values
    found for cards interchangeable with it. Swapping two such cards between
    now and later moves only their points from one trick to another, so their
    values differ by at most the difference of their points, and when the
    trick's winning side is settled, the richer card's value is on the side
    its points go to."""
    cdef int seat = to_move(&X.rules, &X.st), j, delta, settled = 2, sides, toward, a, b
    cdef uint64_t present = in_play(&X.st)
    for j in range(i):
        if not interchangeable(X, cards[i], cards[j], present, seat):
            continue
        if settled == 2:
            # +1: the trick surely goes to the mover's side, -1: to the rivals, 0: either
            sides = sides_after(X, cards[i], seat)
            settled = 1 if sides == 1 << (seat & 1) else -1 if sides == 1 << ((seat & 1) ^ 1) else 0
        delta = X.rules.pts[cards[i]] - X.rules.pts[cards[j]]
        # +1 when cards[i]'s value is at least cards[j]'s (N-S points), -1 at most, 0 either
        toward = settled * (1 if delta > 0 else -1) * (1 if (seat & 1) == 0 else -1)
        if delta < 0:
            delta = -delta
        a = vals[j] if toward > 0 else vals[j] - delta
        b = vals[j] if toward < 0 else vals[j] + delta
        if a > lo[0]:
            lo[0] = a
        if b < hi[0]:
            hi[0] = b


cdef void run_root(Ctx* X, int mode, int target, RootResult* out) noexcept nogil:
    cdef int i, j, guess, goal, lo, hi
    cdef int lo_b = -1 if X.rules.capot else 0
    cdef int maximize = (to_move(&X.rules, &X.st) & 1) == 0
    cdef int hi_b
    out.total = remaining(X)
    hi_b = out.total + (1 if X.rules.capot else 0)
    out.n = root_moves(X, out.cards)
    out.nline = 0
    if mode == MODE_TARGET:
        goal = target if maximize else out.total - target
        out.value = 0
        for i in range(out.n):
            out.vals[i] = child_reaches(X, out.cards[i], goal, maximize)
            if out.vals[i]:
                out.value = 1
                out.n = i + 1
                break
        return
    if mode == MODE_ALL:
        # each card's first guess: the last value found for a card of its
        # suit, else the last value found (the first card's: its rollout)
        guess = card_rollout(X, out.cards[0])
        for i in range(out.n):
            for j in range(i):
                if out.cards[j] >> 4 == out.cards[i] >> 4:
                    guess = out.vals[j]
            lo = lo_b
            hi = hi_b
            sibling_window(X, out.cards, out.vals, i, &lo, &hi)
            out.vals[i] = child_value(X, out.cards[i], guess, lo, hi)
            if i == 0 or (maximize and out.vals[i] > out.value) or (not maximize and out.vals[i] < out.value):
                out.value = out.vals[i]
            guess = out.vals[i]
    else:
        out.value = mtdf(X, rollout(X), lo_b, hi_b)
        table_first(X, out.cards, out.n)
        for i in range(out.n):
            out.vals[i] = child_reaches(X, out.cards[i], out.value, maximize)
            if out.vals[i] and mode == MODE_BEST:
                out.n = i + 1
                break
    for i in range(out.n):
        if (mode == MODE_ALL and out.vals[i] == out.value) or (mode != MODE_ALL and out.vals[i]):
            principal_line(X, out.value, out.cards[i], out)
            break
