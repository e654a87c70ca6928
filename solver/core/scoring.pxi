# Every root card's exact value ("all" mode), on one thread or several: the
# threads take the cards in order, one at a time, each once the cards of its
# suit before it are valued, and share the table; a thread with no card to
# take shares moves (`help_once`).


cdef enum:
    NO_GUESS = -1000        # a card's first guess is its own rollout
    CARD_FREE = 0
    CARD_TAKEN = 1          # a thread is finding its value
    CARD_FOUND = 2          # its value is in `vals`


cdef struct Scoring:
    RootResult* out         # the cards to score, and their values once found
    int state[16]           # CARD_FREE, CARD_TAKEN or CARD_FOUND, for each card
    uint32_t lock           # taken (odd) while a thread reads or writes `state` and `out.vals`
    int lo_b
    int hi_b


cdef inline bint interchangeable(const Ctx* X, int c, int d, uint64_t present, int seat) noexcept nogil:
    """Do c and d, cards of `seat`'s hand, play alike but for their points? They
    do when they are of one suit with no other hand's card in play between
    them, and neither is a protected card still bound by its protection."""
    cdef const State* st = &X.st
    cdef int hi = c if c > d else d, lo = d if c > d else c
    if (hi >> 4) != (lo >> 4) or bound_protected(&X.rules, st) & (bit(hi) | bit(lo)):
        return 0
    return (present & above(lo) & ~above(hi - 1) & ~st.hands[seat]) == 0    # between them, only its own


cdef int suit_before(const Scoring* sc, int i) noexcept nogil:
    """The last card of card i's suit before it, or -1."""
    cdef int j
    for j in range(i - 1, -1, -1):
        if sc.out.cards[j] >> 4 == sc.out.cards[i] >> 4:
            return j
    return -1


cdef void sibling_window(const Ctx* X, const Scoring* sc, int i, int* lo, int* hi) noexcept nogil:
    """Narrow [lo, hi], the N-S range of card i's value, by the values found
    for cards interchangeable with it. Swapping two such cards between now
    and later moves only their points from one trick to another, so their
    values differ by at most the difference of their points, and when the
    trick's winning side is settled, the richer card's value is on the side
    its points go to."""
    cdef const int* cards = sc.out.cards
    cdef const int* vals = sc.out.vals
    cdef int seat = to_move(&X.rules, &X.st), j, delta, settled = 2, sides, toward, a, b
    cdef uint64_t present = X.st.in_play
    for j in range(sc.out.n):
        if sc.state[j] != CARD_FOUND or not interchangeable(X, cards[i], cards[j], present, seat):
            continue
        if settled == 2:
            # +1: the trick surely goes to the mover's side, -1: to the rivals, 0: either
            sides = sides_after(X, cards[i], seat)
            settled = 1 if sides == 1 << (seat & 1) else -1 if sides == 1 << ((seat & 1) ^ 1) else 0
        delta = X.rules.pts[cards[i]] - X.rules.pts[cards[j]]
        # +1 when card i's value is at least card j's (N-S points), -1 at most, 0 either
        toward = settled * (1 if delta > 0 else -1) * (1 if (seat & 1) == 0 else -1)
        if delta < 0:
            delta = -delta
        a = vals[j] if toward > 0 else vals[j] - delta
        b = vals[j] if toward < 0 else vals[j] + delta
        if a > lo[0]:
            lo[0] = a
        if b < hi[0]:
            hi[0] = b


cdef int take_card(const Ctx* X, Scoring* sc, int* guess, int* lo, int* hi) noexcept nogil:
    """The first free card whose suit's cards before it have their values,
    marked taken, with its window in [lo, hi] (narrowed by the interchangeable
    ones among them) and its first guess in `guess`: as on one thread, the
    value of the last of them, else that of the card before it, but
    NO_GUESS for the first card and while that card is being valued (far
    from the value, a guess costs many probes). -1 when no card is free,
    -2 when each free one waits for a card of its suit."""
    cdef int i, source, waiting = 0, card = -1
    bucket_lock(&sc.lock)
    for i in range(sc.out.n):
        if sc.state[i] != CARD_FREE:
            waiting |= sc.state[i] == CARD_TAKEN
            continue
        source = suit_before(sc, i)
        if source >= 0 and sc.state[source] != CARD_FOUND:
            waiting = 1
            continue
        card = i
        if source < 0:
            source = i - 1
        guess[0] = sc.out.vals[source] if source >= 0 and sc.state[source] == CARD_FOUND else NO_GUESS
        break
    if card >= 0:
        sc.state[card] = CARD_TAKEN
        lo[0] = sc.lo_b
        hi[0] = sc.hi_b
        sibling_window(X, sc, card, lo, hi)
    bucket_unlock(&sc.lock)
    return card if card >= 0 else -2 if waiting else -1


cdef void score_cards(Ctx* X, Scoring* sc) noexcept nogil:
    """Take cards and find each one's exact value until none is left (see `take_card`)."""
    cdef int i, lo, hi, guess, v, idle = 0
    while not X.stopped:
        i = take_card(X, sc, &guess, &lo, &hi)
        if i == -1:
            break
        if i == -2:
            help_or_wait(X, &idle)
            continue
        set_idle(X, &idle, 0)
        if guess == NO_GUESS:
            guess = card_rollout(X, sc.out.cards[i])
        v = child_value(X, sc.out.cards[i], guess, lo, hi)
        if X.stopped:
            break
        bucket_lock(&sc.lock)
        sc.out.vals[i] = v
        sc.state[i] = CARD_FOUND
        bucket_unlock(&sc.lock)
    set_idle(X, &idle, 0)


cdef void score_for(Helper* h) noexcept nogil:
    score_cards(h.X, <Scoring*>h.job)


cdef void score_all(Ctx* X, RootResult* out, int lo_b, int hi_b, int threads) noexcept nogil:
    """Every card's exact value in `out.vals`, found by up to `threads`
    threads: this one and helpers (`form_team`). A card waits for those of
    its suit before it, so when every card is of one suit the helpers can
    only share moves (`split_rest`), and start as late as for speculative
    work."""
    cdef Scoring sc
    cdef Team team
    cdef int i, suits = 0
    memset(&sc, 0, sizeof(sc))
    sc.out = out
    sc.lo_b = lo_b
    sc.hi_b = hi_b
    for i in range(out.n):
        suits |= 1 << (out.cards[i] >> 4)
    form_team(X, &team, threads, score_for, &sc, &X.stop, popcount64(suits) < 2)
    score_cards(X, &sc)
    if disband(X, &team):
        X.stopped = 1
