# Split points (young brothers wait): once a node's first move is searched
# without a cutoff, its other moves may be shared with threads that are idle,
# each searching moves from a copy of the node's state on the shared table.
# A thread that waits for the moves it shared helps with the splits below it.


cdef enum:
    SPLIT_FROM = 24         # the default of `Ctx.split_from`
    MAX_OPEN = 64           # open splits at most: a split beyond them is searched by its owner alone


cdef struct Split:
    State st                # the node's state
    int cards               # the cards in its hands
    int alpha
    int beta
    int maximize
    int moves[16]
    int n                   # moves to search
    int next                # the next move to take
    int best                # the best value so far, and its move
    int best_card
    volatile int active     # threads searching its moves, its owner included
    volatile int abort      # a move cut off, or one was dropped: the threads under it stop
    volatile int dropped    # a thread stopped in a move not cut off above it: the value is unknown
    Split* parent           # the split its owner was searching under, or NULL


cdef struct Pool:
    uint32_t lock           # taken (odd) while a thread reads or writes the pool or a split's fields
    Split* open[MAX_OPEN]   # the splits with moves left to take
    volatile int nopen
    volatile int idle       # threads looking for moves


cdef inline bint may_split(const Ctx* X, int cards) noexcept nogil:
    """May X share the other moves of a node with `cards` in the hands now?
    Only with idle helpers, and high in the tree (`Ctx.split_from`)."""
    return X.pool != NULL and cards >= X.split_from and (<Pool*>X.pool).idle > 0


cdef inline bint split_aborted(const Split* s) noexcept nogil:
    """Was a move of s, or of a split above it, cut off?"""
    while s != NULL:
        if s.abort:
            return 1
        s = s.parent
    return 0


cdef void unpost(Pool* p, Split* s) noexcept nogil:
    """Take s off the open splits (under the pool's lock)."""
    cdef int i
    for i in range(p.nopen):
        if p.open[i] == s:
            p.nopen -= 1
            p.open[i] = p.open[p.nopen]
            return


cdef void search_moves(Ctx* X, Split* s) noexcept nogil:
    """Take s's moves one at a time and search each, until none is left or one cuts off."""
    cdef Pool* p = <Pool*>X.pool
    cdef int c, v
    while True:
        bucket_lock(&p.lock)
        if s.abort or s.next >= s.n:
            unpost(p, s)
            bucket_unlock(&p.lock)
            return
        c = s.moves[s.next]
        s.next += 1
        if s.next >= s.n:
            unpost(p, s)
        bucket_unlock(&p.lock)
        v = value_after(X, c, s.alpha, s.beta)
        if X.stopped:
            bucket_lock(&p.lock)
            if not split_aborted(s):
                # stopped for the whole search, which some thread under it may not see itself
                s.dropped = 1
                s.abort = 1
                unpost(p, s)
            bucket_unlock(&p.lock)
            return
        bucket_lock(&p.lock)
        if (v > s.best) if s.maximize else (v < s.best):
            s.best = v
            s.best_card = c
            if (v >= s.beta) if s.maximize else (v <= s.alpha):
                s.abort = 1
                unpost(p, s)
        bucket_unlock(&p.lock)


cdef Split* open_split(Pool* p, const Split* under) noexcept nogil:
    """The open split with the most cards left, among those below `under`
    (any, if NULL) and not cut off, marked as having one more thread, or
    NULL (under the pool's lock)."""
    cdef Split* found = NULL
    cdef const Split* a
    cdef int i, most = -1
    for i in range(p.nopen):
        if split_aborted(p.open[i]):
            continue
        if under != NULL:
            a = p.open[i].parent
            while a != NULL and a != under:
                a = a.parent
            if a == NULL:
                continue
        if p.open[i].cards > most:
            most = p.open[i].cards
            found = p.open[i]
    if found != NULL:
        found.active += 1
    return found


cdef void join(Ctx* X, Split* t) noexcept nogil:
    """Search moves of split t, then leave it; X's state and split are kept."""
    cdef Pool* p = <Pool*>X.pool
    cdef State st = X.st
    cdef Split* was = <Split*>X.split
    X.st = t.st
    X.split = t
    search_moves(X, t)
    bucket_lock(&p.lock)
    t.active -= 1
    bucket_unlock(&p.lock)
    X.st = st
    X.split = was
    X.stopped = stop_asked(X) or split_aborted(was)


cdef void split_rest(Ctx* X, const int* moves, int n, int alpha, int beta, int maximize,
                     int* best, int* best_card) noexcept nogil:
    """Search `moves`, the node's moves after those searched, with idle
    threads, on the window [alpha, beta]; `best` and `best_card` go in with
    the moves searched and come out with all of them. X is not stopped when
    it is called (`lead` and `follow` break off once it is), and is stopped
    after it if the whole search is, a split above this one was cut off, or
    a thread left one of its moves unsearched."""
    cdef Pool* p = <Pool*>X.pool
    cdef Split s
    cdef int k, idle = 0
    cdef uint32_t spins = 0
    s.st = X.st
    s.cards = popcount64(held(&X.st))
    s.alpha = alpha
    s.beta = beta
    s.maximize = maximize
    memcpy(s.moves, moves, n * sizeof(int))
    s.n = n
    s.next = 0
    s.best = best[0]
    s.best_card = best_card[0]
    s.active = 1
    s.abort = 0
    s.dropped = 0
    s.parent = <Split*>X.split
    bucket_lock(&p.lock)
    if p.nopen < MAX_OPEN:
        p.open[p.nopen] = &s
        p.nopen += 1
    bucket_unlock(&p.lock)
    X.split = &s
    search_moves(X, &s)
    bucket_lock(&p.lock)
    unpost(p, &s)           # from now on no thread joins it
    bucket_unlock(&p.lock)
    # wait for the threads still searching its moves, helping below it meanwhile
    set_idle(X, &idle, 1)
    while s.active > 1:
        if not X.stopped and help_once(X, &s):
            continue
        if stop_asked(X):
            s.abort = 1     # a cancel or the deadline: the threads under it stop now
        for k in range(64):
            relax(&spins)
    set_idle(X, &idle, 0)
    bucket_lock(&p.lock)    # the values of the threads that searched its moves are seen
    best[0] = s.best
    best_card[0] = s.best_card
    bucket_unlock(&p.lock)
    X.split = s.parent
    X.stopped = stop_asked(X) or split_aborted(s.parent) or s.dropped


cdef bint help_once(Ctx* X, const Split* under) noexcept nogil:
    """Join an open split below `under` (any, if NULL), if there is one, and
    search its moves; did X? X is counted among the pool's idle threads,
    but not while it searches."""
    cdef Pool* p = <Pool*>X.pool
    cdef Split* t
    if p == NULL or p.nopen == 0:
        return 0
    bucket_lock(&p.lock)
    t = open_split(p, under)
    if t != NULL:
        p.idle -= 1
    bucket_unlock(&p.lock)
    if t == NULL:
        return 0
    join(X, t)
    bucket_lock(&p.lock)
    p.idle += 1
    bucket_unlock(&p.lock)
    return 1


cdef inline void set_idle(Ctx* X, int* idle, int now) noexcept nogil:
    """Count X among the pool's idle threads (now = 1) or not."""
    cdef Pool* p = <Pool*>X.pool
    if p == NULL or idle[0] == now:
        return
    bucket_lock(&p.lock)
    p.idle += 1 if now else -1
    bucket_unlock(&p.lock)
    idle[0] = now


cdef void help_or_wait(Ctx* X, int* idle) noexcept nogil:
    """X has no work of its own now: counted as idle (`set_idle`), it joins
    an open split if there is one, else waits a moment (`wait_a_moment`)."""
    set_idle(X, idle, 1)
    if not help_once(X, NULL):
        wait_a_moment(X)


cdef void help_splits(Helper* h) noexcept nogil:
    """A helper's work: join open splits until its search is halted."""
    cdef Ctx* X = h.X
    cdef int idle = 0
    cdef uint32_t spins = 0
    set_idle(X, &idle, 1)
    while not X.halt[0]:
        if not help_once(X, NULL):
            relax(&spins)
    set_idle(X, &idle, 0)
