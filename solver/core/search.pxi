# The alpha-beta search: leads at trick boundaries with the table and the
# bounds, followers inside a trick, the exact last two tricks, and the
# null-window probes that find an exact value.


cdef enum:
    INF = 1000              # beyond every value and bound


cdef inline long long now_ns() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return <long long>ts.tv_sec * 1000000000LL + ts.tv_nsec


cdef inline int last_trick(const Ctx* X, uint64_t all_cards) noexcept nogil:
    """N-S's value of a last trick, each player holding one card."""
    cdef const State* st = &X.st
    cdef int cards[4]
    cdef int i, seat, won
    for i in range(4):
        cards[i] = ctz64(st.hands[trick_seat(&X.rules, st.leader, i)])
    seat = trick_seat(&X.rules, st.leader, winner_index(cards, 4, st.trump))
    won = st.won | (1 << (seat & 1))
    if X.rules.capot and won != 3:
        return X.rules.trick_bonus + mask_points(&X.rules, all_cards) + 1 if won == 1 else -1
    return X.rules.trick_bonus + mask_points(&X.rules, all_cards) if (seat & 1) == 0 else 0


cdef int last_two(Ctx* X) noexcept nogil:
    """N-S's exact value of the last two tricks, by plain minimax."""
    cdef int seat = to_move(&X.rules, &X.st), c, v
    cdef int maximize = (seat & 1) == 0, best = -INF if maximize else INF
    cdef uint64_t moves = legal_cards(&X.rules, &X.st, seat, NULL)
    cdef Undo u
    X.nodes += 1
    while moves:
        c = ctz64(moves)
        moves &= moves - 1
        do_play(X, c, &u)
        if X.st.ntrick == 0:     # c completed the trick
            v = u.ns + last_trick(X, X.st.in_play)
        else:
            v = last_two(X)
        undo_play(X, &u)
        if (maximize and v > best) or (not maximize and v < best):
            best = v
    return best


cdef inline int search(Ctx* X, int alpha, int beta) noexcept nogil:
    """Fail-soft alpha-beta on N-S points from here, trick in progress included."""
    return follow(X, alpha, beta) if X.st.ntrick else lead(X, alpha, beta)


cdef inline bint stop_asked(const Ctx* X) noexcept nogil:
    """Is the whole search to stop: cancelled (`stop`), halted by the thread
    it helps or the helpers' common work (`halt`), or past its deadline?"""
    return X.stop or X.halt[0] or (X.deadline_ns and now_ns() > X.deadline_ns)


cdef inline void check_stop(Ctx* X) noexcept nogil:
    """Mark the search stopped if it is to stop (`stop_asked`) or searches
    under a split whose moves were cut off."""
    if stop_asked(X) or (X.split != NULL and split_aborted(<Split*>X.split)):
        X.stopped = 1


cdef inline bint counted_stop(Ctx* X) noexcept nogil:
    """Count a node; is the search stopped (`check_stop`)?"""
    X.nodes += 1
    if X.nodes >= X.check_at:
        # every 1024 nodes, counting those of `last_two`, which does not check
        X.check_at = X.nodes + 1024
        check_stop(X)
        if X.team != NULL and X.nodes >= X.helpers_at:
            start_team(X)
    return X.stopped


cdef inline void add_killer(Ctx* X, int depth, int c) noexcept nogil:
    """Remember c, a lead that cut off at `depth` cards, as its first killer."""
    if X.killers[depth][0] != c:
        X.killers[depth][1] = X.killers[depth][0]
        X.killers[depth][0] = c


cdef inline int value_after(Ctx* X, int c, int alpha, int beta) noexcept nogil:
    """`search` once c is played (the window and the value count the trick in progress)."""
    cdef Undo u
    cdef int v
    do_play(X, c, &u)
    v = search(X, alpha - u.ns, beta - u.ns) + u.ns
    undo_play(X, &u)
    return v


cdef int lead(Ctx* X, int alpha, int beta) noexcept nogil:
    """`search` at a trick boundary: the table, the sure-points bounds, the
    exact last two tricks, and the leads, whose outcome the table keeps."""
    cdef State* st = &X.st
    cdef RuleFlags* r = &X.rules
    cdef uint64_t all_cards = st.in_play
    cdef uint64_t hash
    cdef int n, i, c, v, best, best_card = -1, hint = -1
    cdef int lo_b, hi_b, lo_q, hi_q, a0, b0, depth = popcount64(all_cards), maximize
    cdef uint64_t key[2]
    cdef Entry* e
    cdef Bucket copy
    cdef int order[16]

    if counted_stop(X):
        return 0
    if all_cards == 0:
        if r.capot and st.won != 3:
            return 1 if st.won == 1 else -1
        return 0
    if depth == 4:
        return last_trick(X, all_cards)
    X.boundary_nodes += 1
    table_key(X, all_cards, key)
    hash = shape_hash(key)
    lo_q = -INF
    hi_q = INF
    e = tt_probe(&X.tt, r, key, hash, &lo_q, &hi_q, &copy)
    if e != NULL:
        # a stored entry's bounds hold the static ones of its store already
        lo_b = e.lo
        hi_b = e.hi
        if lo_b >= beta or lo_b == hi_b or hi_b <= alpha:
            X.table_cutoffs += 1
            return lo_b if lo_b >= beta or lo_b == hi_b else hi_b
        hint = actual_card(X, all_cards, e.best)
    elif lo_q < beta and hi_q > alpha:
        if X.static_bounds:
            sure_bounds(X, all_cards, alpha, beta, &lo_b, &hi_b)
        else:
            side_bounds(X, all_cards, 0, 0, &lo_b, &hi_b)
        if lo_b >= beta:
            return lo_b
        if hi_b <= alpha:
            return hi_b
    else:
        lo_b = -INF
        hi_b = INF
    if lo_q > lo_b:
        lo_b = lo_q
    if hi_q < hi_b:
        hi_b = hi_q
    if lo_b >= beta or hi_b <= alpha:
        X.quasi_cutoffs += 1
        return lo_b if lo_b >= beta else hi_b
    if depth == 8:
        v = last_two(X)
        tt_store(&X.tt, key, hash, 8, v, v, 0)
        return v
    if lo_b > alpha:
        alpha = lo_b
    if hi_b < beta:
        beta = hi_b
    a0 = alpha
    b0 = beta

    maximize = (st.leader & 1) == 0
    n = order_moves(X, st.hands[st.leader], all_cards, st.leader, hint, 1, order)
    best = -INF if maximize else INF
    for i in range(n):
        c = order[i]
        if i and may_split(X, depth):
            split_rest(X, order + i, n - i, alpha, beta, maximize, &best, &best_card)
            if not X.stopped and ((best >= beta) if maximize else (best <= alpha)):
                add_killer(X, depth, best_card)
            break
        v = value_after(X, c, alpha, beta)
        if X.stopped:
            break
        if (v > best) if maximize else (v < best):
            best = v
            best_card = c
            if maximize and v > alpha:
                alpha = v
            elif not maximize and v < beta:
                beta = v
        if alpha >= beta:
            add_killer(X, depth, c)
            break

    if not X.stopped:
        best_card = canonical_card(X, all_cards, best_card)
        if best <= a0:
            tt_store(&X.tt, key, hash, depth, lo_b, best, best_card)
        elif best >= b0:
            tt_store(&X.tt, key, hash, depth, best, hi_b, best_card)
        else:
            tt_store(&X.tt, key, hash, depth, best, best, best_card)
    return best


cdef int follow(Ctx* X, int alpha, int beta) noexcept nogil:
    """`search` inside a trick."""
    cdef State* st = &X.st
    cdef int seat = to_move(&X.rules, st), maximize = (seat & 1) == 0, n, i, v, best, card = -1
    cdef uint64_t moves
    cdef int order[16]
    if counted_stop(X):
        return 0
    moves = legal_cards(&X.rules, st, seat, NULL)
    if moves & (moves - 1):
        n = order_moves(X, moves, st.in_play, seat, -1, 1, order)
    else:
        order[0] = ctz64(moves)
        n = 1
    best = -INF if maximize else INF
    for i in range(n):
        if i and X.pool != NULL and may_split(X, popcount64(held(st))):
            split_rest(X, order + i, n - i, alpha, beta, maximize, &best, &card)
            break
        v = value_after(X, order[i], alpha, beta)
        if X.stopped:
            break
        if maximize:
            best = v if v > best else best
            alpha = v if v > alpha else alpha
        else:
            best = v if v < best else best
            beta = v if v < beta else beta
        if alpha >= beta:
            break
    return best


cdef int mtdf(Ctx* X, int guess, int lo, int hi) noexcept nogil:
    """Exact N-S value of the current state by null-window probes.

    Like MTD(f), each probe's fail-soft answer narrows [lo, hi]; while
    probes keep failing the same way the next one steps further (1, then 2
    points), and once the value is bracketed the probes bisect."""
    cdef int b, v, step = 1, direction, last = 0, seen = 0
    b = guess
    while lo < hi and not X.stopped:
        if b <= lo:
            b = lo + 1
        if b > hi:
            b = hi
        v = search(X, b - 1, b)
        if v >= b:
            lo = v
            direction = 1
        else:
            hi = v
            direction = -1
        seen |= 1 if direction > 0 else 2
        if seen == 3:
            b = lo + (hi - lo + 1) // 2
        else:
            step = 2 if direction == last else 1
            b = lo + step if direction > 0 else hi - step + 1
        last = direction
    return lo


cdef int child_value(Ctx* X, int c, int guess, int lo, int hi) noexcept nogil:
    """Exact N-S value after playing c."""
    cdef Undo u
    cdef int v
    do_play(X, c, &u)
    v = mtdf(X, guess - u.ns, lo - u.ns, hi - u.ns) + u.ns
    undo_play(X, &u)
    return v


cdef int child_reaches(Ctx* X, int c, int target, int maximize) noexcept nogil:
    """Does playing c keep N-S at >= target (maximize) or <= target?"""
    cdef Undo u
    cdef int v
    do_play(X, c, &u)
    if maximize:
        v = search(X, target - 1 - u.ns, target - u.ns) + u.ns
    else:
        v = search(X, target - u.ns, target + 1 - u.ns) + u.ns
    undo_play(X, &u)
    return v >= target if maximize else v <= target
