# Helper threads: copies of a search's state that work beside it on its
# table, which is shared (read and written under the buckets' locks, and not
# grown) while they run.


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


cdef struct Helper:
    Ctx* X                  # the helper's own search state
    int k                   # which helper: 1, 2, ...
    void (*work)(Helper* h) noexcept nogil
    void* job               # what it works on, as `work` reads it
    uint64_t used           # the table's entry count when it started
    pthread_t thread


cdef void* helper_main(void* arg) noexcept nogil:
    cdef Helper* h = <Helper*>arg
    name_helper()      # as `top -H` and /proc show it
    h.work(h)
    return NULL


cdef int start_helpers(Ctx* X, Helper* helpers, int threads, void (*work)(Helper* h) noexcept nogil,
                       void* job, volatile int* halt) noexcept nogil:
    """Start helpers 1 to threads - 1, each running `work` on `job` with a
    copy of X's state whose search stops on `halt`; from now on X's table is
    shared. None start below two threads or in a search of fewer than
    `helpers_from` cards in the hands, where starting a thread costs about
    what it saves. How many started."""
    cdef Helper* h
    cdef int k, started = 0
    if threads > THREAD_LIMIT:
        threads = THREAD_LIMIT
    if threads < 2 or popcount64(X.st.hands[0] | X.st.hands[1] | X.st.hands[2] | X.st.hands[3]) < X.helpers_from:
        return 0
    X.tt.shared = 1
    for k in range(1, threads):
        h = &helpers[started]
        h.X = <Ctx*>aligned_alloc(64, (sizeof(Ctx) + 63) // 64 * 64)
        if h.X == NULL:
            break
        memcpy(h.X, X, sizeof(Ctx))
        h.X.halt = halt
        h.X.nodes = 0
        h.X.check_at = 1024
        h.X.boundary_nodes = 0
        h.X.table_cutoffs = 0
        h.X.quasi_cutoffs = 0
        h.k = k
        h.work = work
        h.job = job
        h.used = X.tt.used
        if pthread_create(&h.thread, NULL, helper_main, h) != 0:
            free(h.X)
            break
        started += 1
    return started


cdef bint join_helpers(Ctx* X, Helper* helpers, int started) noexcept nogil:
    """Wait for the helpers started, count their nodes and entries as X's, and
    end the table's sharing. Was any stopped before its work was done?"""
    cdef Helper* h
    cdef int k
    cdef bint stopped = 0
    for k in range(started):
        h = &helpers[k]
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


cdef void wait_a_moment(Ctx* X) noexcept nogil:
    """Spin a moment, then `check_stop`."""
    cdef int k
    for k in range(256):
        pause()
    check_stop(X)
