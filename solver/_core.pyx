# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The search core: legal moves and alpha-beta with a transposition table.

Everything below the Python-facing classes runs on C structs and 64-bit card
masks without the GIL. Card ``c`` is bit ``c`` of a hand (``suit * 16 +
strength``). Values are N-S points from the remaining play, the trick in
progress included; E-W's are the remaining total minus that.
"""
from libc.stdint cimport uint64_t, uint32_t, int8_t, uint8_t
from libc.stdlib cimport free
from libc.string cimport memcpy, memset
from posix.mman cimport mmap, munmap, PROT_READ, PROT_WRITE, MAP_PRIVATE, MAP_ANONYMOUS, MAP_FAILED
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC
from itertools import zip_longest

cdef extern from *:
    """
    static inline uint64_t malilla_mul_hi64(uint64_t a, uint64_t b) {
        return (uint64_t)(((unsigned __int128)a * b) >> 64);
    }
    """
    uint64_t mul_hi64 "malilla_mul_hi64"(uint64_t a, uint64_t b) nogil

cdef extern from *:
    """
    static inline uint64_t malilla_pext_portable(uint64_t x, uint64_t m) {
        uint64_t r = 0, out = 1;
        for (; m; m &= m - 1, out <<= 1)
            if (x & m & (0 - m))
                r |= out;
        return r;
    }
    static inline uint64_t malilla_pdep_portable(uint64_t x, uint64_t m) {
        uint64_t r = 0, in = 1;
        for (; m; m &= m - 1, in <<= 1)
            if (x & in)
                r |= m & (0 - m);
        return r;
    }
    #if defined(__BMI2__)
    #include <immintrin.h>
    #define malilla_pext _pext_u64
    #define malilla_pdep _pdep_u64
    #else
    #define malilla_pext malilla_pext_portable
    #define malilla_pdep malilla_pdep_portable
    #endif
    """
    uint64_t pext64 "malilla_pext"(uint64_t x, uint64_t mask) nogil
    uint64_t pdep64 "malilla_pdep"(uint64_t x, uint64_t mask) nogil
    uint64_t pext64_portable "malilla_pext_portable"(uint64_t x, uint64_t mask) nogil
    uint64_t pdep64_portable "malilla_pdep_portable"(uint64_t x, uint64_t mask) nogil

cdef extern from *:
    int popcount64 "__builtin_popcountll"(unsigned long long) nogil
    int ctz64 "__builtin_ctzll"(unsigned long long) nogil
    int clz64 "__builtin_clzll"(unsigned long long) nogil

cdef extern from "<stdlib.h>":
    void* aligned_alloc(size_t alignment, size_t size) nogil

cdef extern from *:
    """
    #include <sys/mman.h>
    static void malilla_large_pages(void* p, size_t n) {
    #ifdef MADV_HUGEPAGE
        madvise(p, n, MADV_HUGEPAGE);
    #endif
    }
    """
    void large_pages "malilla_large_pages"(void* p, size_t n) nogil

cdef enum:
    INF = 1000
    BUCKET_BYTES = sizeof(Bucket)
    FIRST_BUCKETS = 4096    # buckets in use after a clear; the table doubles from there


# ---------------------------------------------------------------- bitboards

# the table key's holder bits: one per card in play (see table_key)
cdef enum:
    HOLDER_BITS = 40
cdef uint64_t HOLDERS = ((<uint64_t>1) << HOLDER_BITS) - 1

# bit 15 of each suit, never a card: added to the cards in play, it ends
# every run of cards adjacent among them with its suit
cdef uint64_t RUN_ENDS = 0x8000800080008000ULL


cdef inline uint64_t suit_bits(int s) noexcept nogil:
    return (<uint64_t>0xFFFF) << (s * 16)


cdef inline uint64_t suits_cards(int suits) noexcept nogil:
    """Every card of a set of suits (bit per suit; higher bits ignored)."""
    cdef uint64_t x = suits & 15
    return ((x & 1) | ((x & 2) << 15) | ((x & 4) << 30) | ((x & 8) << 45)) * 0xFFFF


cdef inline int suits_of(uint64_t m) noexcept nogil:
    """The suits (bit per suit) with a card in m."""
    return (((m & 0xFFFF) != 0) | (((m >> 16) & 0xFFFF) != 0) << 1
            | (((m >> 32) & 0xFFFF) != 0) << 2 | ((m >> 48) != 0) << 3)


cdef inline uint64_t bit(int c) noexcept nogil:
    return (<uint64_t>1) << c


cdef inline uint64_t above(int c) noexcept nogil:
    """Cards of c's suit strictly higher than c."""
    return suit_bits(c >> 4) & ~((<uint64_t>2 << c) - 1)


cdef inline int highest(uint64_t m) noexcept nogil:
    return 63 - clz64(m)


cdef inline int mask_points(const RuleFlags* r, uint64_t m) noexcept nogil:
    return (r.suit_pts[m & 0x3FF] + r.suit_pts[(m >> 16) & 0x3FF]
            + r.suit_pts[(m >> 32) & 0x3FF] + r.suit_pts[(m >> 48) & 0x3FF])


cdef inline int beats(int c, int w, int trump) noexcept nogil:
    """Does c beat the winning card w (w is of the suit led or a trump)?"""
    if (c >> 4) == (w >> 4):
        return c > w
    return (c >> 4) == trump


cdef inline int winner_index(const int* trick, int n, int trump) noexcept nogil:
    cdef int w = 0, i
    for i in range(1, n):
        if beats(trick[i], trick[w], trump):
            w = i
    return w


cdef inline int push_card(State* st, int c) noexcept nogil:
    """Add c to the trick in progress, keeping track of the card winning it;
    returns what `pop_card` needs to take it back."""
    cdef int before = st.win
    if st.ntrick == 0 or beats(c, st.trick[st.win], st.trump):
        st.win = st.ntrick
    st.trick[st.ntrick] = c
    st.ntrick += 1
    return before


cdef inline void pop_card(State* st, int before) noexcept nogil:
    """Take the last card back from the trick in progress."""
    st.ntrick -= 1
    st.win = before


cdef inline int trick_seat(const RuleFlags* r, int leader, int i) noexcept nogil:
    """The seat that plays the i-th card (from 0) of a trick `leader` leads."""
    return (leader + i * r.step) & 3


cdef inline int winner_seat(const RuleFlags* r, const State* st) noexcept nogil:
    """The seat whose card wins the trick in progress (ntrick > 0)."""
    return trick_seat(r, st.leader, st.win)


cdef inline uint64_t in_play(const State* st) noexcept nogil:
    """The cards still in play: in the hands and in the trick in progress."""
    cdef uint64_t cards = st.hands[0] | st.hands[1] | st.hands[2] | st.hands[3]
    cdef int i
    for i in range(st.ntrick):
        cards |= bit(st.trick[i])
    return cards


cdef inline uint64_t bound_protected(const RuleFlags* r, const State* st) noexcept nogil:
    """The protected cards still bound by their protection: those of side
    suits not led yet."""
    return r.protected & ~suits_cards(st.led | (1 << st.trump))


cdef inline int to_move(const RuleFlags* r, const State* st) noexcept nogil:
    return trick_seat(r, st.leader, st.ntrick)


# ------------------------------------------------------------- legal moves

cdef uint64_t legal_mask(const RuleFlags* r, const State* st, int seat, int* reason, int* winning) noexcept nogil:
    """The cards `seat` may play, with the obligation that restricts them."""
    cdef uint64_t hand = st.hands[seat], follow, trumps, higher, allowed, free_cards
    cdef int lead, wc, rival, trumped
    reason[0] = FREE
    winning[0] = -1
    if st.ntrick == 0:
        return hand
    lead = st.trick[0] >> 4
    wc = st.trick[st.win]
    winning[0] = wc
    rival = (winner_seat(r, st) ^ seat) & 1
    follow = hand & suit_bits(lead)
    trumped = (wc >> 4) != lead
    if follow:
        if rival and not trumped:
            higher = follow & above(wc)
            if higher:
                reason[0] = BEAT
                return higher
        if follow != hand:
            reason[0] = FOLLOW
        return follow
    trumps = hand & suit_bits(st.trump) if st.trump != NO_TRUMP else 0
    free_cards = hand
    if trumped:
        higher = trumps & above(wc)
        if rival and higher:
            reason[0] = OVERTRUMP
            return higher
        if r.undertrump_ban:
            allowed = hand & ~(trumps & ~higher)
            if allowed == 0:
                return hand
            if allowed != hand:
                reason[0] = NO_UNDERTRUMP
            free_cards = allowed
    elif rival and trumps:
        if trumps != hand:
            reason[0] = TRUMP
        return trumps
    if r.protected:
        allowed = free_cards & ~bound_protected(r, st)
        if allowed and allowed != free_cards:
            reason[0] = PROTECTED
            return allowed
    return free_cards


# -------------------------------------------------------------- play/undo

cdef inline void do_play(Ctx* X, int c, Undo* u) noexcept nogil:
    cdef State* st = &X.st
    cdef int seat = to_move(&X.rules, st), wseat, pts, i
    u.led = st.led
    u.leader = st.leader
    u.won = st.won
    u.completed = 0
    u.ns = 0
    st.hands[seat] &= ~bit(c)
    if st.ntrick == 0:
        st.led |= 1 << (c >> 4)
    u.win = push_card(st, c)
    if st.ntrick == 4:
        pts = X.rules.trick_bonus
        for i in range(4):
            u.trick[i] = st.trick[i]
            pts += X.rules.pts[st.trick[i]]
        wseat = winner_seat(&X.rules, st)
        st.leader = wseat
        st.ntrick = 0
        st.won |= 1 << (wseat & 1)
        u.completed = 1
        if (wseat & 1) == 0:
            u.ns = pts


cdef inline void undo_play(Ctx* X, int c, const Undo* u) noexcept nogil:
    cdef State* st = &X.st
    cdef int i
    if u.completed:
        for i in range(4):
            st.trick[i] = u.trick[i]
        st.ntrick = 4
        st.leader = u.leader
        st.won = u.won
    pop_card(st, u.win)
    st.hands[to_move(&X.rules, st)] |= bit(c)
    st.led = u.led


# ------------------------------------------------------ transposition table

cdef inline uint64_t shape_hash(const uint64_t* k) noexcept nogil:
    """The hash of a key's shape (all of it but which cards with points are
    in play), so that quasi-symmetric positions share a bucket; its high
    bits, which pick the bucket, depend on every bit of the shape."""
    return (k[0] ^ ((k[1] & HOLDERS) * <uint64_t>0xC2B2AE3D27D4EB4FULL)) * <uint64_t>0x9E3779B97F4A7C15ULL


cdef inline uint64_t key_word(const Entry* e, int i) noexcept nogil:
    return e.key[2 * i] | (<uint64_t>e.key[2 * i + 1] << 32)


cdef inline Entry* bucket_of(const Table* t, uint64_t hash) noexcept nogil:
    return t.buckets[mul_hi64(hash, t.active)].slot


cdef inline Entry* tt_find(Table* t, const uint64_t* k, uint64_t hash) noexcept nogil:
    cdef Entry* b = bucket_of(t, hash)
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
                            int* lo, int* hi) noexcept nogil:
    """The entry of key k, or NULL; [lo, hi] narrowed to the bounds that the
    entries of quasi-symmetric positions give: those that differ only in
    which cards of the same ranks among the cards in play, held by the same
    players, are in play. Their play maps card for card onto this one's, so
    their values differ by at most what those cards' points differ by."""
    cdef Entry* b = bucket_of(t, hash)
    cdef Entry* found = NULL
    cdef uint64_t mine = k[1] >> HOLDER_BITS, other
    cdef int i, more, less
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
                e = tt_slot(t, bucket_of(t, shape_hash(k)))
                e[0] = moving[j]


cdef inline void tt_store(Table* t, const uint64_t* k, uint64_t hash,
                          int depth, int lo, int hi, int best) noexcept nogil:
    cdef Entry* e
    if t.active < t.nbuckets and t.used * 2 > t.active * BUCKET:
        tt_grow(t)
    e = tt_find(t, k, hash)
    if e != NULL:
        if lo < e.lo:
            lo = e.lo
        if hi > e.hi:
            hi = e.hi
    else:
        e = tt_slot(t, bucket_of(t, hash))
    e.key[0] = <uint32_t>k[0]
    e.key[1] = <uint32_t>(k[0] >> 32)
    e.key[2] = <uint32_t>k[1]
    e.key[3] = <uint32_t>(k[1] >> 32)
    e.lo = <int8_t>lo
    e.hi = <int8_t>hi
    e.best = <uint8_t>best
    e.depth = <uint8_t>depth


# ------------------------------------------------------------ move choice

cdef inline uint64_t representatives(const RuleFlags* r, uint64_t moves, uint64_t present) noexcept nogil:
    """One card of each run of equivalent moves: adjacent among the cards
    still in play (hands and trick) and equal in points. Keeps the highest."""
    cdef uint64_t stops = present | RUN_ENDS
    cdef uint64_t m = pext64(moves, stops), differ = 0, q
    cdef int j
    for j in range(3):
        q = pext64(r.point_bits[j], stops)
        differ |= q ^ (q >> 1)
    return moves & ~pdep64(m & (m >> 1) & ~differ, stops)


cdef inline int group_head(const RuleFlags* r, uint64_t moves, uint64_t present, int c) noexcept nogil:
    """The representative (highest member) of c's run of equivalent moves."""
    cdef uint64_t up
    cdef int n
    while True:
        up = present & above(c)
        if up == 0:
            return c
        n = ctz64(up)
        if not (moves >> n) & 1 or r.pts[n] != r.pts[c]:
            return c
        c = n


cdef int trick_sides(Ctx* X) noexcept nogil:
    """Which sides can win the trick in progress (bit 0 N-S, bit 1 E-W),
    over every way the players still to play may finish it."""
    cdef State* st = &X.st
    cdef int seat, reason, winning, c, d, w, i, side, sides = 0
    cdef uint64_t moves, present, rest, below
    w = st.win
    side = winner_seat(&X.rules, st) & 1
    # the winning card only rises: rivals of its side who cannot beat it now never will
    for i in range(st.ntrick, 4):
        seat = trick_seat(&X.rules, st.leader, i)
        if (seat & 1) != side and can_beat(st, st.hands[seat], st.trick[w]):
            break
    else:
        return 1 << side
    seat = to_move(&X.rules, st)
    moves = legal_mask(&X.rules, st, seat, &reason, &winning)
    if st.ntrick == 3:
        # the last player either takes the trick or leaves it where it is
        rest = moves & above(st.trick[w])
        if st.trump != NO_TRUMP and (st.trick[w] >> 4) != st.trump:
            rest |= moves & suit_bits(st.trump)
        sides = 0
        if rest:
            sides = 1 << (seat & 1)
        if moves & ~rest:
            sides |= 1 << side
        return sides
    present = in_play(st)
    rest = moves
    while rest and sides != 3:
        c = highest(rest)
        rest &= ~bit(c)
        d = c
        while True:                     # connected cards decide the winner alike
            below = present & suit_bits(d >> 4) & (bit(d) - 1)
            if below == 0 or not (rest >> highest(below)) & 1:
                break
            d = highest(below)
            rest &= ~bit(d)
        st.hands[seat] &= ~bit(c)
        i = push_card(st, c)
        sides |= trick_sides(X)
        pop_card(st, i)
        st.hands[seat] |= bit(c)
    return sides


cdef int sides_after(Ctx* X, int c, int seat) noexcept nogil:
    """`trick_sides` once `seat` has played c."""
    cdef State* st = &X.st
    cdef int led_before = st.led, sides, before
    st.hands[seat] &= ~bit(c)
    if st.ntrick == 0:
        st.led |= 1 << (c >> 4)
    before = push_card(st, c)
    sides = trick_sides(X)
    pop_card(st, before)
    st.hands[seat] |= bit(c)
    st.led = led_before
    return sides


cdef uint64_t dominant_moves(Ctx* X, uint64_t moves, uint64_t present, int seat) noexcept nogil:
    """Equivalent-card representatives, further reduced: of cards connected
    in rank (no card in play between them) but unequal in points, only the
    richest is searched when the trick surely goes to the mover's side and
    only the poorest when it surely goes to the rivals. Swapping two such
    cards between now and later changes nothing but where their points go,
    so the choice dominates. Protected cards are left alone (their legality
    differs)."""
    cdef const RuleFlags* r = &X.rules
    cdef uint64_t stops = present | RUN_ENDS
    cdef uint64_t m = pext64(moves, stops)
    cdef uint64_t tops = pdep64(m & ~(m >> 1), stops), lows = pdep64(m & ~(m << 1), stops)
    cdef uint64_t plain = tops & lows, bound = bound_protected(r, &X.st), out = 0, group
    cdef int top, low, sides
    tops &= ~plain
    lows &= ~plain
    while tops:
        top = highest(tops)
        low = highest(lows)
        tops &= ~bit(top)
        lows &= ~bit(low)
        group = moves & ((bit(top) << 1) - 1) & ~(bit(low) - 1)
        if r.pts[top] == r.pts[low] or group & bound:
            plain |= group
            continue
        sides = sides_after(X, top, seat)
        if sides == 1 << (seat & 1):
            out |= bit(top)
        elif sides == 1 << ((seat & 1) ^ 1):
            out |= bit(low)
        else:
            plain |= group
    return out | representatives(r, plain, present)


cdef inline bint can_beat(const State* st, uint64_t hand, int w) noexcept nogil:
    """Does `hand` hold a card that beats w, the card winning the trick in progress?"""
    cdef uint64_t follow = hand & suit_bits(st.trick[0] >> 4)
    if follow:
        return beats(highest(follow), w, st.trump)
    if st.trump != NO_TRUMP and hand & suit_bits(st.trump):
        return beats(highest(hand & suit_bits(st.trump)), w, st.trump)
    return 0


cdef inline int ruff_suits(const State* st, int seat) noexcept nogil:
    """The side suits (bit per suit) that `seat` is void in while holding a trump."""
    if st.trump == NO_TRUMP or not (st.hands[seat] & suit_bits(st.trump)):
        return 0
    return ~suits_of(st.hands[seat]) & 15


cdef inline int richest_first(const State* st, const RuleFlags* r, int c, uint64_t present, int seat) noexcept nogil:
    """The order score of a card whose trick goes to its side (taken for good,
    or given to the partner): the richest first, and last a card that would
    take a later trick, the master of a suit no rival can ruff (the ruffs,
    looked at for masters only, are not worth working out at every node)."""
    cdef int later = 0
    if (present & above(c)) == 0:
        later = not ((ruff_suits(st, (seat + 1) & 3) | ruff_suits(st, (seat + 3) & 3)) >> (c >> 4)) & 1
    return r.pts[c] * 4 - (c & 15) - (40 if later else 0)


cdef int order_moves(Ctx* X, uint64_t moves, uint64_t present, int seat, int hint, int reduce,
                     int* out) noexcept nogil:
    """The moves worth searching, best-looking first: one of each run of
    equivalent cards, and with `reduce` only the dominant card of a run of
    connected cards when the trick's winning side is already settled.

    The table's card comes first. Leads: killers, then winners outside
    trumps, a card towards the partner's top card, trump winners, low cards,
    and last a suit a rival ruffs.
    The second and third hands take a trick where it stays taken, and the
    last hand any trick, with their richest card; followers give points to
    a trick their side keeps, richest first. Either way a card that would
    take a later trick comes last (`richest_first`)."""
    cdef const RuleFlags* r = &X.rules
    cdef const State* st = &X.st
    cdef uint64_t reps = dominant_moves(X, moves, present, seat) if reduce else representatives(r, moves, present)
    cdef int scores[16]
    cdef int n = 0, c, sc, j, wc = -1, depth
    cdef int partner_wins = 0, partner_can_win = 0, partner_safe = 0, rival_ruffs = 0, partner_ruffs = 0
    cdef uint64_t rest = reps, last = 0
    if st.ntrick:
        wc = st.trick[st.win]
        partner_wins = ((winner_seat(r, st) ^ seat) & 1) == 0
        last = st.hands[(seat + r.step) & 3]
        if st.ntrick == 1:
            partner_can_win = can_beat(st, st.hands[(seat + 2) & 3], wc)   # the partner plays last
        elif st.ntrick == 2:
            partner_safe = partner_wins and not can_beat(st, last, wc)
    if hint >= 0 and (moves >> hint) & 1:
        hint = group_head(r, moves, present, hint)
    else:
        hint = -1
    depth = popcount64(present) - st.ntrick
    if st.ntrick == 0:
        rival_ruffs = ruff_suits(st, (seat + 1) & 3) | ruff_suits(st, (seat + 3) & 3)
        partner_ruffs = ruff_suits(st, (seat + 2) & 3) & ~rival_ruffs
    while rest:
        c = ctz64(rest)
        rest &= rest - 1
        if c == hint:
            sc = 10000
        elif st.ntrick == 0:
            if (present & above(c)) == 0:
                sc = 230 + r.pts[c] - (40 if (c >> 4) == st.trump else 0)
            elif (st.hands[(seat + 2) & 3] >> highest(present & suit_bits(c >> 4))) & 1:
                sc = 220 - 8 * r.pts[c] - (c & 15)
            else:
                sc = 100 - 8 * r.pts[c] - (c & 15)
            if (rival_ruffs >> (c >> 4)) & 1:
                sc -= 200
            elif (partner_ruffs >> (c >> 4)) & 1:
                sc += 40
        elif st.ntrick == 1:
            # second hand: the leader, a rival, is winning
            if beats(c, wc, st.trump):
                sc = 200 - (c & 15) if can_beat(st, last, c) else 300 + richest_first(st, r, c, present, seat)
            elif partner_can_win:
                sc = 100 + richest_first(st, r, c, present, seat)
            else:
                sc = 100 - r.pts[c] * 4 - (c & 15)
        elif st.ntrick == 2:
            # third hand: the trick is the side's unless the last player can take it
            if partner_safe:
                # the partner's trick is safe: give points, do not overtake
                sc = 300 + richest_first(st, r, c, present, seat) - (100 if beats(c, wc, st.trump) else 0)
            elif beats(c, wc, st.trump):
                sc = 90 - (c & 15) if can_beat(st, last, c) else 300 + richest_first(st, r, c, present, seat)
            elif partner_wins:
                sc = 120 - r.pts[c] * 4 - (c & 15)
            else:
                sc = 100 - r.pts[c] * 4 - (c & 15)
        else:
            # last hand: the trick is the side's when the partner holds it
            # or the card takes it
            if partner_wins or beats(c, wc, st.trump):
                sc = 300 + richest_first(st, r, c, present, seat)
            else:
                sc = 100 - r.pts[c] * 4 - (c & 15)
        if st.ntrick == 0:
            # killers order the leads only: among the followers, whose cards
            # answer a particular trick, they mislead more than they help
            if c == X.killers[depth][0]:
                sc += 500
            elif c == X.killers[depth][1]:
                sc += 400
        j = n
        while j > 0 and scores[j - 1] < sc:
            scores[j] = scores[j - 1]
            out[j] = out[j - 1]
            j -= 1
        scores[j] = sc
        out[j] = c
        n += 1
    return n


# ------------------------------------------------------------------ search

cdef inline long long now_ns() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return <long long>ts.tv_sec * 1000000000LL + ts.tv_nsec


cdef inline int remaining(const Ctx* X) noexcept nogil:
    """N-S-independent total of the points still to be shared."""
    cdef const State* st = &X.st
    cdef uint64_t all_cards = st.hands[0] | st.hands[1] | st.hands[2] | st.hands[3]
    cdef int total = mask_points(&X.rules, all_cards), i
    for i in range(st.ntrick):
        total += X.rules.pts[st.trick[i]]
    return total + X.rules.trick_bonus * ((popcount64(all_cards) + st.ntrick + 3) // 4)


cdef inline void table_key(const Ctx* X, uint64_t all_cards, uint64_t* k) noexcept nogil:
    """The table key of a trick boundary in two words. k[0]: who holds each
    card in play, as N|E bits in card order (rank order within each suit),
    how many cards of each suit are in play, the leader, the suits led whose
    protected card is still in play, and (deal score) tricks won. k[1]: the
    N|S bits of the same cards, which with the N|E ones fix each card's
    holder, and which cards with points are in play. Positions that differ
    only in which worthless low cards are gone play the same and share a
    key; the key but for its cards with points is the position's shape,
    which quasi-symmetric positions share (`tt_probe`)."""
    cdef const RuleFlags* r = &X.rules
    cdef const State* st = &X.st
    cdef uint64_t live = all_cards & r.protected
    cdef int relevant = suits_of(live) & ~(1 << st.trump)
    cdef uint64_t counts = (popcount64(all_cards & suit_bits(0)) | (popcount64(all_cards & suit_bits(1)) << 4)
                            | (popcount64(all_cards & suit_bits(2)) << 8) | (popcount64(all_cards & suit_bits(3)) << 12))
    cdef uint64_t meta = st.leader | ((st.led & relevant) << 2) | ((st.won if r.capot else 0) << 6)
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


cdef inline uint64_t master_trumps(const Ctx* X, uint64_t all_cards, int* side) noexcept nogil:
    """The trumps above every trump of the other side, and that side (0 N-S,
    1 E-W); 0 when no trump is left. Each wins whatever trick it falls in."""
    cdef const State* st = &X.st
    cdef uint64_t t, rivals
    side[0] = 0
    if st.trump == NO_TRUMP:
        return 0
    t = all_cards & suit_bits(st.trump)
    if t == 0:
        return 0
    side[0] = 0 if ((st.hands[0] | st.hands[2]) >> highest(t)) & 1 else 1
    rivals = t & ~(st.hands[side[0]] | st.hands[side[0] + 2])
    return t & above(highest(rivals)) if rivals else t


cdef inline int cheapest(const RuleFlags* r, uint64_t hand, int k) noexcept nogil:
    """Points of the k cheapest cards of a hand."""
    cdef int p, m, total = 0
    for p in range(r.npoint_classes):
        if k <= 0:
            break
        m = popcount64(hand & r.by_points[p])
        if m >= k:
            return total + k * p
        total += m * p
        k -= m
    return total


cdef int sure_tricks_points(const Ctx* X, uint64_t counted, int tricks) noexcept nogil:
    """Points a side surely takes from `tricks` different tricks it surely
    wins, whose `counted` cards are scored already: the trick points, the
    counted cards, and the cheapest other cards each player must add (a card
    to every trick, at most all his counted cards among them)."""
    cdef const RuleFlags* r = &X.rules
    cdef int total, p
    cdef uint64_t hand
    if tricks == 0:
        return 0
    total = mask_points(r, counted) + r.trick_bonus * tricks
    for p in range(4):
        hand = X.st.hands[p]
        total += cheapest(r, hand & ~counted, tricks - popcount64(hand & counted))
    return total


cdef inline int sure_points(const Ctx* X, uint64_t masters, int side) noexcept nogil:
    """Points the masters' side cannot fail to take: the masters of one
    player fall in different tricks, each won."""
    cdef int a = popcount64(masters & X.st.hands[side]), b = popcount64(masters & X.st.hands[side + 2])
    return sure_tricks_points(X, masters, a if a > b else b)


cdef inline int unruffed_rounds(const Ctx* X, int s) noexcept nogil:
    """Rounds of suit s the side on lead can lead before a rival holding
    trumps may be void in it and ruff (16 when no rival can ruff s)."""
    cdef const State* st = &X.st
    cdef int o, m, rounds = 16
    cdef uint64_t rival
    if s == st.trump or st.trump == NO_TRUMP:
        return rounds
    for o in range(1, 4, 2):
        rival = st.hands[(st.leader + o) & 3]
        if rival & suit_bits(st.trump):
            m = popcount64(rival & suit_bits(s))
            if m < rounds:
                rounds = m
    return rounds


cdef inline uint64_t top_run(uint64_t hand, uint64_t rest, int most) noexcept nogil:
    """The cards of `hand` at the top of `rest` (one suit's cards in play), at most `most`."""
    cdef uint64_t run = 0
    cdef int c
    while rest and most > 0:
        c = highest(rest)
        if not (hand >> c) & 1:
            break
        run |= bit(c)
        rest &= ~bit(c)
        most -= 1
    return run


cdef inline int spare_cards(const Ctx* X, uint64_t hand) noexcept nogil:
    """How many tricks his partner wins this player of the side on lead can
    surely play to without a trump (16 without trumps): after that he may
    have to ruff, still winning the trick for the side but taking the lead."""
    cdef uint64_t trumps = suit_bits(X.st.trump) if X.st.trump != NO_TRUMP else 0
    if not hand & trumps:
        return 16
    return popcount64(hand & ~trumps & ~X.rules.protected)


cdef inline uint64_t richest(const RuleFlags* r, uint64_t cards, int k) noexcept nogil:
    """The k cards of `cards` worth the most points."""
    cdef uint64_t out = 0, m
    cdef int p
    for p in range(r.npoint_classes - 1, -1, -1):
        m = cards & r.by_points[p]
        while m and k > 0:
            out |= m & (0 - m)
            m &= m - 1
            k -= 1
    return out


cdef inline int cash_points(const Ctx* X, uint64_t all_cards, uint64_t masters) noexcept nogil:
    """Points the side on lead cannot fail to take: the leader cashes his
    top cards of each suit for as long as no rival can ruff them, keeping the
    lead; on top come the side's master trumps (`masters`, or 0) not
    cashed, each winning whatever trick it falls in."""
    cdef const State* st = &X.st
    cdef int L = st.leader, s, tricks, own, partners, spare
    cdef uint64_t hand = st.hands[L], partner = st.hands[(L + 2) & 3], cashed = 0
    for s in range(4):
        if hand & suit_bits(s):
            cashed |= top_run(hand, all_cards & suit_bits(s), unruffed_rounds(X, s))
    tricks = popcount64(cashed)
    spare = spare_cards(X, partner)
    if spare < tricks:
        # the richest cards first: the trick the partner may ruff is the side's too
        tricks = spare + 1
        cashed = richest(&X.rules, cashed, tricks)
    masters &= ~cashed
    own = popcount64(masters & hand)
    partners = popcount64(masters & partner)
    # the leader's masters fall in other tricks than his cashed cards, the
    # partner's too but for those he plays to them
    return sure_tricks_points(X, cashed | masters, tricks + (own if own > partners - tricks else partners - tricks))


cdef inline int entry_points(const Ctx* X, uint64_t all_cards, uint64_t masters) noexcept nogil:
    """Points the side on lead cannot fail to take by crossing to the
    partner: the leader leads low in a side suit whose top card the partner
    holds (every rival who could ruff must follow), then the partner cashes
    his top cards for as long as no rival can ruff them; the others add at
    least their cheapest cards, and the side's master trumps (`masters`, or
    0) count as in cash_points. The best such suit, or 0."""
    cdef const State* st = &X.st
    cdef int L = st.leader, e, t, safe_e, tricks, own, partners, total, best = 0
    cdef int spare = spare_cards(X, st.hands[L])
    cdef uint64_t hand = st.hands[L], partner = st.hands[(L + 2) & 3], suit, rest, cashed
    own = popcount64(masters & hand)
    partners = popcount64(masters & partner)
    for e in range(4):
        suit = all_cards & suit_bits(e)
        if e == st.trump or not hand & suit or not (partner >> highest(suit)) & 1:
            continue
        safe_e = unruffed_rounds(X, e)
        if safe_e == 0:
            continue
        cashed = bit(highest(suit))
        for t in range(4):
            if t == st.trump:
                continue
            rest = all_cards & suit_bits(t) & ~cashed
            if t == e:
                rest &= ~bit(ctz64(hand & suit))    # the card led to the partner
                cashed |= top_run(partner, rest, safe_e - 1)
            else:
                cashed |= top_run(partner, rest, unruffed_rounds(X, t))
        tricks = popcount64(cashed)
        if spare < tricks:
            # the leader may have to ruff his partner's winners (and the
            # card he leads is one of his spare ones): the entry, then the
            # richest cards, the trick he may ruff included
            tricks = spare + 1
            cashed = bit(highest(suit)) | richest(&X.rules, cashed & ~bit(highest(suit)), spare)
        total = sure_tricks_points(X, cashed | masters,
                                   tricks + (partners if partners > own - tricks else own - tricks))
        if total > best:
            best = total
    return best


cdef inline void side_bounds(const Ctx* X, uint64_t all_cards, int lead_sure, int other_sure,
                             int* lo, int* hi) noexcept nogil:
    """N-S bounds of the points to come from what the side on lead and the
    other side surely take (a side sure of nothing may lose a capot)."""
    cdef const State* st = &X.st
    cdef int ns = other_sure if st.leader & 1 else lead_sure
    cdef int ew = lead_sure if st.leader & 1 else other_sure
    lo[0] = ns
    hi[0] = mask_points(&X.rules, all_cards) + X.rules.trick_bonus * popcount64(st.hands[st.leader]) - ew
    if X.rules.capot:
        if not (st.won & 1) and ns == 0:
            lo[0] = -1
        if not (st.won & 2) and ew == 0:
            hi[0] += 1


cdef inline void sure_bounds(const Ctx* X, uint64_t all_cards, int alpha, int beta,
                             int* lo, int* hi) noexcept nogil:
    """N-S bounds of the points to come from what each side surely takes: the
    leader's cashed top cards and master trumps, the other side's master
    trumps, and where these do not decide the window (alpha, beta), a
    crossing to the leader's partner."""
    cdef uint64_t masters, own
    cdef int side, lead_sure, other_sure, v
    masters = master_trumps(X, all_cards, &side)
    own = masters if side == (X.st.leader & 1) else 0
    lead_sure = cash_points(X, all_cards, own)
    other_sure = sure_points(X, masters ^ own, side)
    side_bounds(X, all_cards, lead_sure, other_sure, lo, hi)
    if lo[0] < beta and hi[0] > alpha:
        v = entry_points(X, all_cards, own)
        if v > lead_sure:
            side_bounds(X, all_cards, v, other_sure, lo, hi)


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
    cdef int seat = to_move(&X.rules, &X.st), reason, winning, c, v
    cdef int maximize = (seat & 1) == 0, best = -INF if maximize else INF
    cdef uint64_t moves = legal_mask(&X.rules, &X.st, seat, &reason, &winning)
    cdef Undo u
    X.nodes += 1
    while moves:
        c = ctz64(moves)
        moves &= moves - 1
        do_play(X, c, &u)
        if u.completed:
            v = u.ns + last_trick(X, X.st.hands[0] | X.st.hands[1] | X.st.hands[2] | X.st.hands[3])
        else:
            v = last_two(X)
        undo_play(X, c, &u)
        if (maximize and v > best) or (not maximize and v < best):
            best = v
    return best


cdef inline bint interchangeable(const Ctx* X, int c, int d, uint64_t present, int seat) noexcept nogil:
    """Do c and d, cards of `seat`'s hand, play alike but for their points? They
    do when they are of one suit with no other hand's card in play between
    them, and neither is a protected card still bound by its protection."""
    cdef const State* st = &X.st
    cdef int hi = c if c > d else d, lo = d if c > d else c
    if (hi >> 4) != (lo >> 4) or bound_protected(&X.rules, st) & (bit(hi) | bit(lo)):
        return 0
    return (present & above(lo) & ~above(hi - 1) & ~st.hands[seat]) == 0    # between them, only its own


cdef inline int search(Ctx* X, int alpha, int beta) noexcept nogil:
    """Fail-soft alpha-beta on N-S points from here, trick in progress included."""
    return follow(X, alpha, beta) if X.st.ntrick else lead(X, alpha, beta)


cdef inline bint counted_stop(Ctx* X) noexcept nogil:
    """Count a node; is the search stopped (cancelled, or past its deadline)?"""
    X.nodes += 1
    if X.nodes >= X.check_at:
        # every 1024 nodes, counting those of `last_two`, which does not check
        X.check_at = X.nodes + 1024
        if X.stop or (X.deadline_ns and now_ns() > X.deadline_ns):
            X.stopped = 1
    return X.stopped


cdef inline int value_after(Ctx* X, int c, int alpha, int beta) noexcept nogil:
    """`search` once c is played (the window and the value count the trick in progress)."""
    cdef Undo u
    cdef int v
    do_play(X, c, &u)
    v = search(X, alpha - u.ns, beta - u.ns) + u.ns
    undo_play(X, c, &u)
    return v


cdef int lead(Ctx* X, int alpha, int beta) noexcept nogil:
    """`search` at a trick boundary: the table, the sure-points bounds, the
    exact last two tricks, and the leads, whose outcome the table keeps."""
    cdef State* st = &X.st
    cdef RuleFlags* r = &X.rules
    cdef uint64_t all_cards = st.hands[0] | st.hands[1] | st.hands[2] | st.hands[3]
    cdef uint64_t hash
    cdef int n, i, c, v, best, best_card = -1, hint = -1
    cdef int lo_b, hi_b, lo_q, hi_q, a0, b0, depth = popcount64(all_cards), maximize
    cdef uint64_t key[2]
    cdef Entry* e
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
    e = tt_probe(&X.tt, r, key, hash, &lo_q, &hi_q)
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
        v = value_after(X, c, alpha, beta)
        if (v > best) if maximize else (v < best):
            best = v
            best_card = c
            if maximize and v > alpha:
                alpha = v
            elif not maximize and v < beta:
                beta = v
        if alpha >= beta:
            if X.killers[depth][0] != c:
                X.killers[depth][1] = X.killers[depth][0]
                X.killers[depth][0] = c
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
    cdef int seat = to_move(&X.rules, st), maximize = (seat & 1) == 0, reason, winning, n, i, v, best
    cdef uint64_t moves
    cdef int order[16]
    if counted_stop(X):
        return 0
    moves = legal_mask(&X.rules, st, seat, &reason, &winning)
    if moves & (moves - 1):
        n = order_moves(X, moves, in_play(st), seat, -1, 1, order)
    else:
        order[0] = ctz64(moves)
        n = 1
    best = -INF if maximize else INF
    for i in range(n):
        v = value_after(X, order[i], alpha, beta)
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
    undo_play(X, c, &u)
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
    undo_play(X, c, &u)
    return v >= target if maximize else v <= target


# ------------------------------------------------------------ Python face

cdef void fill_slot_diff(RuleFlags* r, tuple points_by_strength):
    """`slot_diff` for every two sets a, b of one suit's cards with points (bit
    j: strength nlow + j): card by card from the top, what a's cards are worth
    more than b's (low byte) and less (high byte), a worthless low card
    standing where a set has run out."""
    cdef int a, b
    tops = [[points_by_strength[r.nlow + j] for j in reversed(range(r.suit_high)) if (a >> j) & 1]
            for a in range(1 << r.suit_high)]
    for a in range(1 << r.suit_high):
        for b in range(1 << r.suit_high):
            diffs = [x - y for x, y in zip_longest(tops[a], tops[b], fillvalue=0)]
            r.slot_diff[(a << r.suit_high) | b] = sum(d for d in diffs if d > 0) - (sum(d for d in diffs if d < 0) << 8)


cdef void fill_rules(RuleFlags* r, tuple points_by_strength, int trick_bonus, int step,
                     int protected_strength, bint undertrump_ban, bint capot):
    cdef int s, k, m, total
    cdef int n = len(points_by_strength)
    memset(r, 0, sizeof(RuleFlags))
    for s in range(4):
        for k in range(n):
            r.pts[s * 16 + k] = points_by_strength[k]
    for m in range(1024):
        total = 0
        for k in range(min(n, 10)):
            if (m >> k) & 1:
                total += points_by_strength[k]
        r.suit_pts[m] = total
    r.trick_bonus = trick_bonus
    r.step = step
    r.protected = 0
    if protected_strength >= 0:
        for s in range(4):
            r.protected |= bit(s * 16 + protected_strength)
    r.undertrump_ban = undertrump_ban
    r.capot = capot
    r.nlow = 0
    while r.nlow < n and points_by_strength[r.nlow] == 0:
        r.nlow += 1
    r.suit_high = n - r.nlow
    if 4 * r.suit_high > 64 - HOLDER_BITS:
        raise ValueError(f"at most {(64 - HOLDER_BITS) // 4} ranks above the worthless ones are supported")
    r.npoint_classes = max(points_by_strength) + 1
    if r.npoint_classes > 8:
        raise ValueError("card points above 7 are not supported")
    for s in range(4):
        for k in range(n):
            r.by_points[points_by_strength[k]] |= bit(s * 16 + k)
            for m in range(3):
                if (points_by_strength[k] >> m) & 1:
                    r.point_bits[m] |= bit(s * 16 + k)
            if k >= r.nlow:
                r.high |= bit(s * 16 + k)
    r.protected_high = pext64(r.protected, r.high)
    fill_slot_diff(r, points_by_strength)
    # a quasi-symmetric position's cards play alike but for their points
    # only where the protected card, if any, is the top of its suit; and the
    # deal score's capot is not a sum of card points
    r.quasi = not capot and protected_strength in (-1, n - 1) and not r.protected & ~r.high


cdef class Rules:
    """The rule flags of one profile, as the core reads them."""
    cdef RuleFlags r

    def __init__(self, tuple points_by_strength, int trick_bonus, int step,
                 int protected_strength, bint undertrump_ban, bint capot=False):
        if len(points_by_strength) > 10:
            raise ValueError("at most 10 ranks per suit")
        fill_rules(&self.r, points_by_strength, trick_bonus, step, protected_strength,
                   undertrump_ban, capot)


cdef void fill_state(State* st, tuple hands, int trump, int leader, tuple trick, int led, int won) except *:
    cdef int i
    if len(trick) > 3:
        raise ValueError("a trick in progress has at most 3 cards")
    for i in range(4):
        st.hands[i] = hands[i]
    st.trump = trump
    st.leader = leader
    st.ntrick = len(trick)
    for i in range(st.ntrick):
        st.trick[i] = trick[i]
    st.win = winner_index(st.trick, st.ntrick, trump)
    st.led = led
    st.won = won


def legal_moves(Rules rules, tuple hands, int trump, int leader, tuple trick, int led):
    """(mask of legal cards, Reason code, winning card or -1) for the player to move."""
    cdef State st
    cdef int reason, winning
    cdef uint64_t m
    fill_state(&st, hands, trump, leader, trick, led, 0)
    m = legal_mask(&rules.r, &st, to_move(&rules.r, &st), &reason, &winning)
    return m, reason, winning


def extract_bits(uint64_t x, uint64_t mask, bint portable=False):
    """The bits of x under mask, packed at the bottom (what table keys are
    built with): the CPU's instruction when built with it, or the portable
    loop."""
    return pext64_portable(x, mask) if portable else pext64(x, mask)


def deposit_bits(uint64_t x, uint64_t mask, bint portable=False):
    """The bottom bits of x spread to the places of mask's bits, lowest first
    (what runs of adjacent cards are found with): the CPU's instruction when
    built with it, or the portable loop."""
    return pdep64_portable(x, mask) if portable else pdep64(x, mask)


def trick_winner(tuple trick, int trump):
    """Index in `trick` of the card winning it so far."""
    cdef int cards[4]
    cdef int i
    for i in range(len(trick)):
        cards[i] = trick[i]
    return winner_index(cards, len(trick), trump)


def equivalence_groups(Rules rules, uint64_t moves, uint64_t present):
    """Runs of equivalent cards among `moves`, each highest first."""
    cdef dict groups = {}
    cdef uint64_t rest = moves
    cdef int c
    while rest:
        c = highest(rest)
        rest &= ~bit(c)
        groups.setdefault(group_head(&rules.r, moves, present, c), []).append(c)
    return list(groups.values())


class SearchStopped(RuntimeError):
    """The search was cancelled or ran past its deadline."""


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


cdef class Core:
    """A search context with its own transposition table.

    Stored bounds stay valid across the positions of one deal; `solve`
    clears the table when the rules, the trump or the deal change.
    """
    cdef Ctx* X
    cdef object signature
    cdef readonly size_t memory

    def __cinit__(self, size_t memory=256 * 1024 * 1024):
        cdef uint64_t most = memory // BUCKET_BYTES, nb, initial
        cdef void* mem
        if most == 0:
            raise MemoryError(f"a {memory}-byte table holds no bucket")
        nb = most if most < FIRST_BUCKETS else FIRST_BUCKETS
        initial = nb
        while nb * 2 <= most:
            nb *= 2
        # page-aligned, so the search's fields sit at the same cache-line and
        # page offsets in every process
        self.X = <Ctx*>aligned_alloc(4096, (sizeof(Ctx) + 4095) // 4096 * 4096)
        if self.X == NULL:
            raise MemoryError()
        memset(self.X, 0, sizeof(Ctx))
        # pages are mapped on first touch, so the table costs only what it uses
        mem = mmap(NULL, nb * BUCKET_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        if mem == MAP_FAILED:
            free(self.X)
            self.X = NULL
            raise MemoryError(f"cannot map a {memory}-byte table")
        # large pages, where the system has them, spare the search most TLB misses
        large_pages(mem, nb * BUCKET_BYTES)
        self.X.tt.buckets = <Bucket*>mem
        self.X.tt.nbuckets = nb
        self.X.tt.initial = initial
        self.X.static_bounds = 1
        self.memory = nb * BUCKET_BYTES
        self.signature = None
        self.clear()

    def __dealloc__(self):
        if self.X != NULL:
            munmap(self.X.tt.buckets, self.memory)
            free(self.X)

    def clear(self):
        """Forget every stored bound and killer move (only the buckets a
        cleared table starts with are emptied now, the others as it grows)."""
        memset(self.X.tt.buckets, 0, self.X.tt.initial * BUCKET_BYTES)
        memset(self.X.tt.holders, 0, sizeof(self.X.tt.holders))
        memset(self.X.killers, 0xFF, sizeof(self.X.killers))   # -1: none
        self.X.tt.used = 0
        self.X.tt.active = self.X.tt.initial

    def cancel(self):
        """Ask a search running in another thread to stop soon."""
        self.X.stop = 1

    @property
    def static_bounds(self):
        """Whether trick boundaries use the sure-points bounds (cashed top
        cards, master trumps, a crossing to the partner). Off, the search
        bounds a position by the table and the points left only: slower, and
        a check that the bounds never change a value."""
        return bool(self.X.static_bounds)

    @static_bounds.setter
    def static_bounds(self, bint on):
        self.X.static_bounds = on

    @property
    def stats(self):
        """Counters since the table was made (nodes, trick-boundary nodes,
        cutoffs by a boundary's own entry and by entries of quasi-symmetric
        positions) and the table's fill: entries stored since the last
        clear, slots and bytes in use now (the table doubles as it fills)
        and the most slots the memory bound allows."""
        return {"nodes": self.X.nodes, "boundary_nodes": self.X.boundary_nodes,
                "table_cutoffs": self.X.table_cutoffs, "quasi_cutoffs": self.X.quasi_cutoffs,
                "entries": self.X.tt.used,
                "slots_in_use": self.X.tt.active * BUCKET, "bytes_in_use": self.X.tt.active * BUCKET_BYTES,
                "slots": self.X.tt.nbuckets * BUCKET}

    def solve(self, Rules rules, object signature, tuple hands, int trump, int leader, tuple trick,
              int led, int won, str mode, int target=0, double timeout=0.0):
        """Search one state.

        mode: "best", "optimal", "all" or "target" (see solver.solve).
        Returns (value, [(card, val)], line, nodes, total): in "target" mode
        value is 1 or 0 and val 1 for the card that reaches the target; in
        "optimal"/"best" val is 1 for optimal cards; in "all" it is the N-S
        value. Otherwise values are N-S points. Raises SearchStopped.
        """
        cdef Ctx* X = self.X
        cdef RootResult out
        cdef int m = {"best": MODE_BEST, "optimal": MODE_OPTIMAL, "all": MODE_ALL, "target": MODE_TARGET}[mode]
        cdef long long start
        cdef int i
        X.rules = rules.r
        fill_state(&X.st, hands, trump, leader, trick, led, won)
        if signature != self.signature or other_deal(X):
            self.clear()
            self.signature = signature
        for i in range(4):
            X.tt.holders[i] |= X.st.hands[i] & X.rules.high
        X.stop = 0
        X.stopped = 0
        X.check_at = X.nodes + 1024
        X.deadline_ns = now_ns() + <long long>(timeout * 1e9) if timeout > 0 else 0
        start = X.nodes
        with nogil:
            run_root(X, m, target, &out)
        if X.stopped:
            raise SearchStopped("the search was stopped before it finished")
        return (out.value, [(out.cards[i], out.vals[i]) for i in range(out.n)],
                [out.line[i] for i in range(out.nline)], X.nodes - start, out.total)
