# Every root card's exact value ("all" mode), on one thread or several: the
# threads take the cards in order, one at a time, and share the table.


cdef extern from "<pthread.h>" nogil:
    ctypedef unsigned long pthread_t
    int pthread_create(pthread_t* thread, const void* attr, void* (*start)(void*) noexcept nogil, void* arg)
    int pthread_join(pthread_t thread, void** result)


cdef extern from *:
    """
    #include <pthread.h>
    static void malilla_name_helper(void) {
    #ifdef __linux__
        pthread_setname_np(pthread_self(), "malilla-helper");
    #endif
    }
    """
    void name_helper "malilla_name_helper"() nogil


cdef enum:
    THREAD_LIMIT = 16
    HELPERS_FROM = 30       # the default of `Ctx.helpers_from`
    CARD_FREE = 0
    CARD_TAKEN = 1          # a thread is finding its value
    CARD_FOUND = 2          # its value is in `vals`


cdef struct Scoring:
    RootResult* out         # the cards to score, and their values once found
    int state[16]           # CARD_FREE, CARD_TAKEN or CARD_FOUND, for each card
    uint32_t lock           # taken (odd) while a thread reads or writes `state` and `out.vals`
    int first_guess         # the first card's rollout
    int lo_b
    int hi_b


cdef struct Helper:
    Ctx* X                  # the helper's own search state, on the shared table
    Scoring* sc
    pthread_t thread


cdef inline bint interchangeable(const Ctx* X, int c, int d, uint64_t present, int seat) noexcept nogil:
    """Do c and d, cards of `seat`'s hand, play alike but for their points? They
    do when they are of one suit with no other hand's card in play between
    them, and neither is a protected card still bound by its protection."""
    cdef const State* st = &X.st
    cdef int hi = c if c > d else d, lo = d if c > d else c
    if (hi >> 4) != (lo >> 4) or bound_protected(&X.rules, st) & (bit(hi) | bit(lo)):
        return 0
    return (present & above(lo) & ~above(hi - 1) & ~st.hands[seat]) == 0    # between them, only its own


cdef bint sibling_taken(const Ctx* X, const Scoring* sc, int i, uint64_t present, int seat) noexcept nogil:
    """Is a card interchangeable with card i being valued by a thread now?"""
    cdef int j
    for j in range(sc.out.n):
        if sc.state[j] == CARD_TAKEN and interchangeable(X, sc.out.cards[i], sc.out.cards[j], present, seat):
            return 1
    return 0


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
    cdef uint64_t present = in_play(&X.st)
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
    """The first free card none of whose interchangeable cards is being
    valued (so that their values narrow its window), marked taken, with its
    window in [lo, hi] and its first guess: the value found for the last
    card of its suit, else `guess` as given. -1 when no card is free, -2
    when each free one waits for such a card."""
    cdef int seat = to_move(&X.rules, &X.st), i, j, waiting = 0, card = -1
    cdef uint64_t present = in_play(&X.st)
    bucket_lock(&sc.lock)
    for i in range(sc.out.n):
        if sc.state[i] != CARD_FREE:
            continue
        if sibling_taken(X, sc, i, present, seat):
            waiting = 1
            continue
        card = i
        break
    if card >= 0:
        sc.state[card] = CARD_TAKEN
        for j in range(sc.out.n):
            if sc.state[j] == CARD_FOUND and sc.out.cards[j] >> 4 == sc.out.cards[card] >> 4:
                guess[0] = sc.out.vals[j]
        lo[0] = sc.lo_b
        hi[0] = sc.hi_b
        sibling_window(X, sc, card, lo, hi)
    bucket_unlock(&sc.lock)
    return card if card >= 0 else -2 if waiting else -1


cdef void wait_a_moment(Ctx* X) noexcept nogil:
    """Spin a moment, and stop if the search is stopped (cancelled, or past its deadline)."""
    cdef int k
    for k in range(256):
        pause()
    if X.halt[0] or (X.deadline_ns and now_ns() > X.deadline_ns):
        X.stopped = 1


cdef void score_cards(Ctx* X, Scoring* sc) noexcept nogil:
    """Take cards and find each one's exact value until none is left (see
    `take_card`); with no card of its own to guess from, a thread's first
    guess is the one it was given, then the last value it found."""
    cdef int i, lo, hi, guess = sc.first_guess, v
    while not X.stopped:
        i = take_card(X, sc, &guess, &lo, &hi)
        if i == -1:
            break
        if i == -2:
            wait_a_moment(X)
            continue
        v = child_value(X, sc.out.cards[i], guess, lo, hi)
        if X.stopped:
            break
        bucket_lock(&sc.lock)
        sc.out.vals[i] = v
        sc.state[i] = CARD_FOUND
        bucket_unlock(&sc.lock)
        guess = v


cdef void* helper_main(void* arg) noexcept nogil:
    cdef Helper* h = <Helper*>arg
    name_helper()      # as `top -H` and /proc show it
    score_cards(h.X, h.sc)
    return NULL


cdef Ctx* helper_context(const Ctx* X) noexcept nogil:
    """A copy of X's search state for a helper thread, its counters at 0 (NULL without memory)."""
    cdef Ctx* h = <Ctx*>aligned_alloc(64, (sizeof(Ctx) + 63) // 64 * 64)
    if h != NULL:
        memcpy(h, X, sizeof(Ctx))
        h.nodes = 0
        h.check_at = 1024
        h.boundary_nodes = 0
        h.table_cutoffs = 0
        h.quasi_cutoffs = 0
    return h


cdef void score_all(Ctx* X, RootResult* out, int lo_b, int hi_b, int threads) noexcept nogil:
    """Every card's exact value in `out.vals`, found by `threads` threads (this
    one and helpers, which join only from `helpers_from` cards in the hands).
    While they share the table it does not grow; their nodes and the entries
    they store are X's."""
    cdef Scoring sc
    cdef Helper helpers[THREAD_LIMIT]
    cdef Helper* h
    cdef uint64_t nbuckets = X.tt.nbuckets, used = X.tt.used
    cdef int k, started = 0
    memset(&sc, 0, sizeof(sc))
    sc.out = out
    sc.lo_b = lo_b
    sc.hi_b = hi_b
    sc.first_guess = card_rollout(X, out.cards[0])
    if threads > out.n:
        threads = out.n
    if threads > THREAD_LIMIT:
        threads = THREAD_LIMIT
    if popcount64(X.st.hands[0] | X.st.hands[1] | X.st.hands[2] | X.st.hands[3]) < X.helpers_from:
        threads = 1     # a smaller search takes less time than starting a thread
    if threads > 1:
        X.tt.shared = 1
        X.tt.nbuckets = X.tt.active
    for k in range(threads - 1):
        h = &helpers[started]
        h.X = helper_context(X)
        if h.X == NULL:
            break
        h.sc = &sc
        if pthread_create(&h.thread, NULL, helper_main, h) != 0:
            free(h.X)
            break
        started += 1
    score_cards(X, &sc)
    for k in range(started):
        h = &helpers[k]
        pthread_join(h.thread, NULL)
        X.nodes += h.X.nodes
        X.boundary_nodes += h.X.boundary_nodes
        X.table_cutoffs += h.X.table_cutoffs
        X.quasi_cutoffs += h.X.quasi_cutoffs
        X.tt.used += h.X.tt.used - used
        if h.X.stopped:
            X.stopped = 1
        free(h.X)
    X.tt.shared = 0
    X.tt.nbuckets = nbuckets
