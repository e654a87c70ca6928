# The legal-move routine, the only place the games' obligations are written,
# and playing a card and taking it back.


cdef inline uint64_t legal_cards(const RuleFlags* r, const State* st, int seat, int* reason) noexcept nogil:
    """The cards `seat` may play, and in `reason` unless it is NULL, the
    obligation that restricts them."""
    cdef uint64_t hand = st.hands[seat], follow, higher
    cdef int wc
    if reason != NULL:
        reason[0] = FREE
    if st.ntrick == 0:
        return hand
    follow = hand & suit_bits(st.trick[0] >> 4)
    if not follow:
        return void_cards(r, st, seat, reason)
    wc = st.trick[st.win]
    if (winner_seat(r, st) ^ seat) & 1 and (wc >> 4) == (st.trick[0] >> 4):
        # a rival wins with a card of the suit led
        higher = follow & above(wc)
        if higher:
            if reason != NULL:
                reason[0] = BEAT
            return higher
    if follow != hand and reason != NULL:
        reason[0] = FOLLOW
    return follow


cdef uint64_t void_cards(const RuleFlags* r, const State* st, int seat, int* reason) noexcept nogil:
    """`legal_cards` of a hand void in the suit led."""
    cdef uint64_t hand = st.hands[seat], trumps, higher, allowed, free_cards
    cdef int wc = st.trick[st.win], rival = (winner_seat(r, st) ^ seat) & 1
    cdef int trumped = (wc >> 4) != (st.trick[0] >> 4)
    trumps = hand & suit_bits(st.trump) if st.trump != NO_TRUMP else 0
    free_cards = hand
    if trumped:
        higher = trumps & above(wc)
        if rival and higher:
            if reason != NULL:
                reason[0] = OVERTRUMP
            return higher
        if r.undertrump_ban:
            allowed = hand & ~(trumps & ~higher)
            if allowed == 0:
                return hand
            if allowed != hand and reason != NULL:
                reason[0] = NO_UNDERTRUMP
            free_cards = allowed
    elif rival and trumps:
        if trumps != hand and reason != NULL:
            reason[0] = TRUMP
        return trumps
    if free_cards & r.protected:
        allowed = free_cards & ~bound_protected(r, st)
        if allowed and allowed != free_cards:
            if reason != NULL:
                reason[0] = PROTECTED
            return allowed
    return free_cards


cdef uint64_t legal_mask(const RuleFlags* r, const State* st, int seat, int* reason, int* winning) noexcept nogil:
    """The cards `seat` may play, with the obligation that restricts them and
    the card winning the trick (-1 at a trick boundary)."""
    winning[0] = st.trick[st.win] if st.ntrick else -1
    return legal_cards(r, st, seat, reason)


cdef inline void play_card(const RuleFlags* r, State* st, int c, Undo* u) noexcept nogil:
    """The player to move plays c; `u` keeps the state before it, which
    `undo_play` restores, and the points a trick it completes gives N-S."""
    cdef int seat = to_move(r, st), wseat, pts, i
    u.before = st[0]
    u.ns = 0
    st.hands[seat] &= ~bit(c)
    if st.ntrick == 0:
        st.led |= 1 << (c >> 4)
    push_card(st, c)
    if st.ntrick == 4:
        pts = r.trick_bonus
        for i in range(4):
            pts += r.pts[st.trick[i]]
        wseat = winner_seat(r, st)
        st.leader = wseat
        st.ntrick = 0
        st.in_play = held(st)
        st.won |= 1 << (wseat & 1)
        if (wseat & 1) == 0:
            u.ns = pts


cdef inline void do_play(Ctx* X, int c, Undo* u) noexcept nogil:
    play_card(&X.rules, &X.st, c, u)


cdef inline void undo_play(Ctx* X, const Undo* u) noexcept nogil:
    X.st = u.before
