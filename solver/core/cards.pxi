# Card masks and the trick in progress: the CPU's bit instructions, suits,
# ranks and points of 64-bit card masks, and who plays and wins in a trick.


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


cdef inline uint64_t suit_bits(int s) noexcept nogil:
    return (<uint64_t>0xFFFF) << (s * 16)


cdef inline uint64_t suits_cards(int suits) noexcept nogil:
    """Every card of a set of suits (bit per suit; higher bits ignored)."""
    return pdep64(suits & 15, 0x0001000100010001ULL) * 0xFFFF


cdef inline int suits_of(uint64_t m) noexcept nogil:
    """The suits (bit per suit) with a card in m: a suit's cards plus 0x7FFF
    reach its bit 15, never a card, unless it has none."""
    return <int>pext64(((m & 0x7FFF7FFF7FFF7FFFULL) + 0x7FFF7FFF7FFF7FFFULL) | m, 0x8000800080008000ULL)


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


cdef inline uint64_t held(const State* st) noexcept nogil:
    """The cards in the hands (at a trick boundary, the cards in play)."""
    return st.hands[0] | st.hands[1] | st.hands[2] | st.hands[3]


cdef inline uint64_t bound_protected(const RuleFlags* r, const State* st) noexcept nogil:
    """The protected cards still bound by their protection: those of side
    suits not led yet."""
    return r.protected & ~suits_cards(st.led | (1 << st.trump))


cdef inline int to_move(const RuleFlags* r, const State* st) noexcept nogil:
    return trick_seat(r, st.leader, st.ntrick)
