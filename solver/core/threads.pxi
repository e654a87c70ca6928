# Helper threads: copies of a search's state that work beside it on its
# table, which is shared (read and written under the buckets' locks, and not
# grown) while they run. What they do is the work they are given: root cards
# to score or check, and the moves a search shares (`splits.pxi`).


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
    HELPERS_AFTER = 1024    # the default of `Ctx.helpers_after`, about what starting a thread costs
    SPECULATIVE = 16        # helpers whose work may go unused or is mostly short start this many times later
    YIELD_AFTER = 256       # pauses a thread waiting for work spins before it gives up its core

# the most `Ctx.helpers_after` may be: more nodes than any search runs, and
# SPECULATIVE times as many, added to a node count, still fits a long long
cdef long long MOST_NODES = (<long long>1) << 50


cdef struct Helper:
    Ctx* X                  # the helper's own search state
    void (*work)(Helper* h) noexcept nogil
    void* job               # what it works on, as `work` reads it
    uint64_t used           # the table's entry count when it started
    pthread_t thread


cdef struct Team:
    Helper helpers[THREAD_LIMIT]
    int wanted              # helpers to start
    int started             # helpers running
    State root              # the state they start from
    void (*work)(Helper* h) noexcept nogil
    void* job
    volatile int* halt      # the flag their searches stop on


cdef void* helper_main(void* arg) noexcept nogil:
    cdef Helper* h = <Helper*>arg
    name_helper()      # as `top -H` and /proc show it
    h.work(h)
    return NULL


cdef void form_team(Ctx* X, Team* team, int threads, void (*work)(Helper* h) noexcept nogil,
                    void* job, volatile int* halt, bint speculative) noexcept nogil:
    """Ready helpers 1 to threads - 1 to run `work` on `job` from the position
    X is in now, each with a copy of X's search state whose search stops on
    `halt`. They start once the search from the root has run
    `helpers_after` nodes, or SPECULATIVE times as many for `speculative`
    work, which may go unused or is mostly short (checked by
    `counted_stop`): a shorter search, where starting a thread costs about
    what it saves, runs alone. From their start X's table is shared.
    `disband` ends the team."""
    team.wanted = (threads if threads < THREAD_LIMIT else THREAD_LIMIT) - 1
    team.started = 0
    team.root = X.st
    team.work = work
    team.job = job
    team.halt = halt
    if team.wanted < 1:
        return
    X.team = team
    X.helpers_at = X.root_nodes + X.helpers_after * (SPECULATIVE if speculative else 1)
    if X.nodes >= X.helpers_at:
        start_team(X)


cdef void start_team(Ctx* X) noexcept nogil:
    """Start the helpers of X's team (`form_team`)."""
    cdef Team* team = <Team*>X.team
    cdef Helper* h
    cdef int k
    X.team = NULL
    if X.stopped:
        return
    X.tt.shared = 1
    for k in range(team.wanted):
        h = &team.helpers[team.started]
        h.X = <Ctx*>aligned_alloc(64, (sizeof(Ctx) + 63) // 64 * 64)
        if h.X == NULL:
            break
        memcpy(h.X, X, sizeof(Ctx))
        h.X.st = team.root
        h.X.halt = team.halt
        h.X.split = NULL
        h.X.nodes = 0
        h.X.check_at = 1024
        h.X.boundary_nodes = 0
        h.X.table_cutoffs = 0
        h.X.quasi_cutoffs = 0
        h.work = team.work
        h.job = team.job
        h.used = X.tt.used
        if pthread_create(&h.thread, NULL, helper_main, h) != 0:
            free(h.X)
            break
        team.started += 1


cdef bint disband(Ctx* X, Team* team) noexcept nogil:
    """Wait for the helpers started, count their nodes and entries as X's, and
    end the table's sharing. Was any stopped before its work was done?"""
    cdef Helper* h
    cdef int k
    cdef bint stopped = 0
    X.team = NULL
    for k in range(team.started):
        h = &team.helpers[k]
        pthread_join(h.thread, NULL)
        X.nodes += h.X.nodes
        X.boundary_nodes += h.X.boundary_nodes
        X.table_cutoffs += h.X.table_cutoffs
        X.quasi_cutoffs += h.X.quasi_cutoffs
        X.tt.used += h.X.tt.used - h.used
        stopped |= h.X.stopped
        free(h.X)
    X.tt.shared = 0
    return stopped


cdef inline void relax(uint32_t* spins) noexcept nogil:
    """One pause of a thread waiting for work (`spin`): every YIELD_AFTER of
    them it gives up its core, to a thread with work when there are more
    threads than cores."""
    spin(spins, YIELD_AFTER)


cdef void wait_a_moment(Ctx* X) noexcept nogil:
    """Spin a moment (`relax`), then `check_stop`."""
    cdef int k
    cdef uint32_t spins = 0
    for k in range(YIELD_AFTER):
        relax(&spins)
    check_stop(X)
