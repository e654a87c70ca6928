# The transposition table: keys of trick boundaries, bounds stored in
# 64-byte buckets, quasi-symmetric positions bounded by each other's entries.


cdef extern from *:
    """
    static inline uint64_t malilla_mul_hi64(uint64_t a, uint64_t b) {
        return (uint64_t)(((unsigned __int128)a * b) >> 64);
    }
    """
    uint64_t mul_hi64 "malilla_mul_hi64"(uint64_t a, uint64_t b) nogil


# A shared table's buckets are guarded by their `seq`, a sequence lock: a
# writer makes it odd while it writes, and a reader copies the bucket and
# keeps the copy only if `seq` was even and unchanged around the copy.
cdef extern from *:
    """
    #include <sched.h>
    #if defined(__x86_64__) || defined(__i386__)
    #define malilla_pause() __builtin_ia32_pause()
    #else
    #define malilla_pause() ((void)0)
    #endif
    /* one pause of a spinning thread; every `every` of them (counted in
       `spins`) it gives up its core, to a thread that may be waiting for it */
    static inline void malilla_relax(uint32_t* spins, uint32_t every) {
        malilla_pause();
        if (++*spins % every == 0)
            sched_yield();
    }
    static inline void malilla_bucket_lock(uint32_t* seq) {
        uint32_t s, spins = 0;
        for (;;) {
            s = __atomic_load_n(seq, __ATOMIC_RELAXED);
            if (!(s & 1) && __atomic_compare_exchange_n(seq, &s, s + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
                return;
            malilla_relax(&spins, 1024);   /* its holder may be waiting for a core */
        }
    }
    static inline void malilla_bucket_unlock(uint32_t* seq) {
        __atomic_store_n(seq, *seq + 1, __ATOMIC_RELEASE);
    }
    static inline void malilla_bucket_copy(void* to, const void* from, const uint32_t* seq, size_t n) {
        uint32_t s, spins = 0;
        for (;;) {
            s = __atomic_load_n(seq, __ATOMIC_ACQUIRE);
            if (!(s & 1)) {
                memcpy(to, from, n);
                __atomic_thread_fence(__ATOMIC_ACQUIRE);
                if (__atomic_load_n(seq, __ATOMIC_RELAXED) == s)
                    return;
            }
            malilla_relax(&spins, 1024);   /* the writer may be waiting for a core */
        }
    }
    """
    void spin "malilla_relax"(uint32_t* spins, uint32_t every) nogil
    void bucket_lock "malilla_bucket_lock"(uint32_t* seq) nogil
    void bucket_unlock "malilla_bucket_unlock"(uint32_t* seq) nogil
    void bucket_copy "malilla_bucket_copy"(void* to, const void* src, const uint32_t* seq, size_t n) nogil


cdef enum:
    BUCKET_BYTES = sizeof(Bucket)
    FIRST_BUCKETS = 4096    # buckets in use after a clear; the table doubles from there
    RESERVE_FROM = 37       # each card in the hands above it doubles an empty table's start (tt_reserve)


# the table key's holder bits: one per card in play (see table_key)
cdef enum:
    HOLDER_BITS = 40
cdef uint64_t HOLDERS = ((<uint64_t>1) << HOLDER_BITS) - 1


cdef inline uint64_t mix_words(uint64_t a, uint64_t b) noexcept nogil:
    """A hash of two words whose high bits depend on every bit of both."""
    return (a ^ (b * <uint64_t>0xC2B2AE3D27D4EB4FULL)) * <uint64_t>0x9E3779B97F4A7C15ULL


cdef inline uint64_t shape_hash(const uint64_t* k) noexcept nogil:
    """The hash of a key's shape (all of it but which cards with points are
    in play), so that quasi-symmetric positions share a bucket; its high
    bits, which pick the bucket, depend on every bit of the shape."""
    return mix_words(k[0], k[1] & HOLDERS)


cdef inline uint64_t key_word(const Entry* e, int i) noexcept nogil:
    return e.key[2 * i] | (<uint64_t>e.key[2 * i + 1] << 32)


cdef inline Bucket* bucket_of(const Table* t, uint64_t hash) noexcept nogil:
    return &t.buckets[mul_hi64(hash, t.active)]


cdef inline Entry* tt_find(Table* t, const uint64_t* k, uint64_t hash) noexcept nogil:
    """The entry of key k, or NULL (in a table no other thread writes)."""
    return bucket_entry(bucket_of(t, hash).slot, k)


cdef inline Entry* bucket_entry(Entry* b, const uint64_t* k) noexcept nogil:
    cdef int i
    for i in range(BUCKET):
        if key_word(&b[i], 0) == k[0] and key_word(&b[i], 1) == k[1]:
            return &b[i]
    return NULL


cdef inline void slot_differences(const RuleFlags* r, uint64_t mine, uint64_t other, int* more, int* less) noexcept nogil:
    """How many points the cards in play can be worth more (`more`) and less
    (`less`, negative) in a position whose cards with points in play are
    `mine` than in a quasi-symmetric one whose are `other` (both as
    `table_key` packs them), card by card in rank order (`slot_diff`)."""
    cdef uint64_t m = ((<uint64_t>1) << r.suit_high) - 1
    cdef int s, d
    more[0] = 0
    less[0] = 0
    for s in range(4):
        d = r.slot_diff[(((mine >> (s * r.suit_high)) & m) << r.suit_high) | ((other >> (s * r.suit_high)) & m)]
        more[0] += d & 0xFF
        less[0] -= d >> 8


cdef inline Entry* tt_probe(Table* t, const RuleFlags* r, const uint64_t* k, uint64_t hash,
                            int* lo, int* hi, Bucket* copy) noexcept nogil:
    """The entry of key k, or NULL; [lo, hi] narrowed to the bounds that the
    entries of quasi-symmetric positions give: those that differ only in
    which cards of the same ranks among the cards in play, held by the same
    players, are in play. Their play maps card for card onto this one's, so
    their values differ by at most what those cards' points differ by. A
    shared table's bucket is read into `copy`, which the entry points into."""
    cdef Bucket* bucket = bucket_of(t, hash)
    cdef Entry* b = bucket.slot
    cdef Entry* found = NULL
    cdef uint64_t mine = k[1] >> HOLDER_BITS, other
    cdef int i, more, less
    if t.shared:
        bucket_copy(copy.slot, bucket.slot, &bucket.seq, sizeof(copy.slot))
        b = copy.slot
    for i in range(BUCKET):
        if key_word(&b[i], 0) != k[0] or (key_word(&b[i], 1) ^ k[1]) & HOLDERS:
            continue
        other = key_word(&b[i], 1) >> HOLDER_BITS
        if other == mine:
            found = &b[i]
        elif r.quasi and not (other ^ mine) & r.protected_high:
            slot_differences(r, mine, other, &more, &less)
            if b[i].lo + less > lo[0]:
                lo[0] = b[i].lo + less
            if b[i].hi + more < hi[0]:
                hi[0] = b[i].hi + more
    return found


cdef inline Entry* tt_slot(Table* t, Entry* b) noexcept nogil:
    """The slot of bucket b a new entry takes: a free one, else the shallowest."""
    cdef Entry* e = &b[0]
    cdef int i
    for i in range(BUCKET):
        if b[i].depth == 0:
            t.used += 1
            return &b[i]
        if b[i].depth < e.depth:
            e = &b[i]
    return e


cdef void tt_grow(Table* t) noexcept nogil:
    """Double the buckets in use, moving each entry to its new bucket (bucket
    i's entries go to 2i or 2i+1, so working down from the top never
    overwrites an entry still to move)."""
    cdef uint64_t i, old = t.active
    cdef uint64_t k[2]
    cdef Entry moving[BUCKET]
    cdef Entry* e
    cdef int j
    t.active = old * 2
    memset(&t.buckets[old], 0, old * BUCKET_BYTES)
    i = old
    while i > 0:
        i -= 1
        memcpy(moving, t.buckets[i].slot, sizeof(moving))
        memset(t.buckets[i].slot, 0, sizeof(moving))
        for j in range(BUCKET):
            if moving[j].depth:
                t.used -= 1
                k[0] = key_word(&moving[j], 0)
                k[1] = key_word(&moving[j], 1)
                e = tt_slot(t, bucket_of(t, shape_hash(k)).slot)
                e[0] = moving[j]


cdef void tt_reserve(Table* t, int cards) noexcept nogil:
    """Size an empty table for a search of `cards` cards in the hands: a
    whole deal's search fills several times the buckets a cleared table
    starts with, so it starts with them rather than growing (and losing
    entries to full buckets) on the way; smaller searches keep the small
    table that stays in the cache."""
    cdef uint64_t want = t.initial << (cards - RESERVE_FROM) if cards > RESERVE_FROM else 0
    while t.active < want and t.active < t.nbuckets:
        memset(&t.buckets[t.active], 0, t.active * BUCKET_BYTES)
        t.active *= 2


cdef inline void tt_store(Table* t, const uint64_t* k, uint64_t hash,
                          int depth, int lo, int hi, int best) noexcept nogil:
    cdef Entry* e
    cdef Bucket* bucket
    if t.active < t.nbuckets and t.used * 2 > t.active * BUCKET and not t.shared:
        tt_grow(t)
    bucket = bucket_of(t, hash)
    if t.shared:
        bucket_lock(&bucket.seq)
    e = bucket_entry(bucket.slot, k)
    if e != NULL:
        if lo < e.lo:
            lo = e.lo
        if hi > e.hi:
            hi = e.hi
    else:
        e = tt_slot(t, bucket.slot)
    e.key[0] = <uint32_t>k[0]
    e.key[1] = <uint32_t>(k[0] >> 32)
    e.key[2] = <uint32_t>k[1]
    e.key[3] = <uint32_t>(k[1] >> 32)
    e.lo = <int8_t>lo
    e.hi = <int8_t>hi
    e.best = <uint8_t>best
    e.depth = <uint8_t>depth
    if t.shared:
        bucket_unlock(&bucket.seq)


cdef inline void table_key(const Ctx* X, uint64_t all_cards, uint64_t* k) noexcept nogil:
    """The table key of a trick boundary in two words. k[0]: who holds each
    card in play, as N|E bits in card order (rank order within each suit),
    how many cards of each suit are in play, the leader, the suits led (or,
    see `unled_key`, not led) whose protected card is still in play, and
    (deal score) tricks won. k[1]: the N|S bits of the same cards, which with
    the N|E ones fix each card's holder, and which cards with points are in
    play. Positions that differ only in which worthless low cards are gone
    play the same and share a key; the key but for its cards with points is
    the position's shape, which quasi-symmetric positions share (`tt_probe`)."""
    cdef const RuleFlags* r = &X.rules
    cdef const State* st = &X.st
    cdef uint64_t live = all_cards & r.protected
    cdef int relevant = suits_of(live) & ~(1 << st.trump)
    cdef uint64_t counts = (popcount64(all_cards & suit_bits(0)) | (popcount64(all_cards & suit_bits(1)) << 4)
                            | (popcount64(all_cards & suit_bits(2)) << 8) | (popcount64(all_cards & suit_bits(3)) << 12))
    cdef uint64_t meta = st.leader | (((st.led ^ r.unled_key) & relevant) << 2) | ((st.won if r.capot else 0) << 6)
    k[0] = pext64(st.hands[0] | st.hands[1], all_cards) | (counts << HOLDER_BITS) | (meta << (HOLDER_BITS + 16))
    k[1] = pext64(st.hands[0] | st.hands[2], all_cards) | (pext64(all_cards, r.high) << HOLDER_BITS)


cdef inline int canonical_card(const Ctx* X, uint64_t all_cards, int c) noexcept nogil:
    """The id a table entry keeps for c, the same in every position sharing its
    key: c itself, or for a low card, the slot below the top of its suit's low
    ranks given by how many low cards of its suit in play rank above it."""
    cdef uint64_t lows = all_cards & ((((<uint64_t>1) << X.rules.nlow) - 1) << (c & ~15))
    if (c & 15) >= X.rules.nlow:
        return c
    return (c & ~15) + X.rules.nlow - 1 - popcount64(lows & above(c))


cdef inline int actual_card(const Ctx* X, uint64_t all_cards, int c) noexcept nogil:
    """The card in play that the table's id c stands for (see `canonical_card`)."""
    cdef int k
    cdef uint64_t lows
    if (c & 15) >= X.rules.nlow:
        return c
    k = X.rules.nlow - 1 - (c & 15)       # how many present low cards are above it
    lows = all_cards & ((((<uint64_t>1) << X.rules.nlow) - 1) << (c & ~15))
    while lows:
        c = highest(lows)
        if k == 0:
            return c
        lows &= ~bit(c)
        k -= 1
    return -1


cdef bint other_deal(const Ctx* X) noexcept nogil:
    """Does a card with points sit in another hand than in the positions
    stored (the state is of another deal)? Entries stay sound across deals,
    but a new deal starts from an empty table, which keeps a long-lived
    solver's table small."""
    cdef uint64_t known = X.tt.holders[0] | X.tt.holders[1] | X.tt.holders[2] | X.tt.holders[3]
    cdef int seat
    for seat in range(4):
        if X.st.hands[seat] & X.rules.high & known & ~X.tt.holders[seat]:
            return 1
    return 0
