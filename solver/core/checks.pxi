# Root cards checked against a goal (the target in "target" and "targets"
# mode, the value in "best" and "optimal"), on one thread or several: the
# threads take the cards in order, one at a time, and share the table; a
# thread with no card to take shares moves (`help_once`). The answer is what
# one thread finds: every card's check, or the checks up to the first card
# in order that reaches the goal.


cdef struct Checks:
    RootResult* out         # the cards to check; `out.vals` gets 1 for each that reaches the goal, else 0
    int goal
    int maximize
    int first_only          # the first card in order that reaches the goal settles the answer
    int state[16]           # CARD_FREE, CARD_TAKEN or CARD_FOUND, for each card
    int first               # the first card found to reach the goal (first_only), else out.n
    uint32_t lock           # taken (odd) while a thread reads or writes `state`, `first` and `out.vals`
    int complete            # every check the answer needs is done
    volatile int halt       # every thread stops: the answer is complete, or the search stopped


cdef int take_check(Checks* ch) noexcept nogil:
    """The first free card before `first`, marked taken, or -1."""
    cdef int i, card = -1
    bucket_lock(&ch.lock)
    for i in range(ch.first):
        if ch.state[i] == CARD_FREE:
            ch.state[i] = CARD_TAKEN
            card = i
            break
    bucket_unlock(&ch.lock)
    return card


cdef void record_check(Checks* ch, int i, int reaches) noexcept nogil:
    """Keep card i's check; once the cards before `first` are all checked,
    the answer is complete and every thread halts."""
    cdef int j
    bucket_lock(&ch.lock)
    ch.out.vals[i] = reaches
    ch.state[i] = CARD_FOUND
    if reaches and ch.first_only and i < ch.first:
        ch.first = i
    ch.complete = 1
    for j in range(ch.first):
        if ch.state[j] != CARD_FOUND:
            ch.complete = 0
            break
    if ch.complete:
        ch.halt = 1
    bucket_unlock(&ch.lock)


cdef void check_cards(Ctx* X, Checks* ch) noexcept nogil:
    """Take cards and check each one until none is left (see `take_check`)."""
    cdef int i, reaches, idle = 0
    while not X.stopped:
        i = take_check(ch)
        if i < 0:
            help_or_wait(X, &idle)
            continue
        set_idle(X, &idle, 0)
        reaches = child_reaches(X, ch.out.cards[i], ch.goal, ch.maximize)
        if X.stopped:
            break
        record_check(ch, i, reaches)
    set_idle(X, &idle, 0)


cdef void check_for(Helper* h) noexcept nogil:
    check_cards(h.X, <Checks*>h.job)


cdef void check_all(Ctx* X, RootResult* out, int goal, int maximize, int first_only, int threads) noexcept nogil:
    """Whether each card of `out` keeps N-S at >= goal (maximize) or <= goal,
    in `out.vals`, found by `threads` threads: this one and helpers
    (`form_team`). With `first_only`, `out.n` ends at the first card
    that does."""
    cdef Checks ch
    cdef Team team
    memset(&ch, 0, sizeof(ch))
    ch.out = out
    ch.goal = goal
    ch.maximize = maximize
    ch.first_only = first_only
    ch.first = out.n
    if X.stopped:
        return
    X.halt = &ch.halt       # besides its own `stop` (`check_stop`)
    form_team(X, &team, threads, check_for, &ch, &ch.halt, 1)
    check_cards(X, &ch)
    if X.stopped:
        ch.halt = 1         # a cancel or the deadline reaches the helpers through this thread
    disband(X, &team)
    X.halt = &X.stop
    X.stopped = not ch.complete
    if ch.first < out.n:
        out.n = ch.first + 1
