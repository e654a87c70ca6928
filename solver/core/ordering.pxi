# Move choice: equivalent cards grouped, dominated cards dropped, and the
# rest ordered so that cutoffs come early.


# bit 15 of each suit, never a card: added to the cards in play, it ends
# every run of cards adjacent among them with its suit
cdef uint64_t RUN_ENDS = 0x8000800080008000ULL


cdef inline uint64_t representatives(const RuleFlags* r, uint64_t moves, uint64_t present) noexcept nogil:
    """One card of each run of equivalent moves: adjacent among the cards
    still in play (hands and trick) and equal in points. Keeps the highest."""
    cdef uint64_t stops = present | RUN_ENDS
    cdef uint64_t m = pext64(moves, stops), adjacent = m & (m >> 1), differ = 0, q
    cdef int j
    if adjacent == 0:
        return moves
    for j in range(3):
        q = pext64(r.point_bits[j], stops)
        differ |= q ^ (q >> 1)
    return moves & ~pdep64(adjacent & ~differ, stops)


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
    cdef int seat, c, d, w, i, side, sides = 0
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
    moves = legal_cards(&X.rules, st, seat, NULL)
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
    present = st.in_play
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


cdef inline uint64_t trick_holding(uint64_t hand, uint64_t contest, uint64_t bound) noexcept nogil:
    """What of a hand decides whom a trick goes to: its cards of the suit led
    and of trumps (`contest`), packed, and in bits 15 and 31, never cards,
    whether it holds another card and one not bound by its protection
    (which tell whether a card that takes no trick is legal)."""
    cdef uint64_t others = hand & ~contest
    return pext64(hand, contest) | (<uint64_t>(others != 0) << 15) | (<uint64_t>((others & ~bound) != 0) << 31)


cdef inline void sides_key(const Ctx* X, int c, uint64_t* k) noexcept nogil:
    """The key of `trick_sides`' verdict once the player to move has played
    c, short of the trick's last card: the trump, the suit led, the leader,
    the cards played, the winning card and its place, and what decides the
    trick of each hand still to play (`trick_holding`). The trick's other
    cards and the other cards of the hands do not change the verdict."""
    cdef const State* st = &X.st
    cdef int n = st.ntrick + 1, win = st.win, wc = c, lead = c >> 4, i
    cdef uint64_t contest, bound, meta
    cdef uint64_t held[3]
    if st.ntrick == 0:
        win = 0
    else:
        lead = st.trick[0] >> 4
        wc = st.trick[win]
        if beats(c, wc, st.trump):
            win = st.ntrick
            wc = c
    contest = suit_bits(lead) | (suit_bits(st.trump) if st.trump != NO_TRUMP else 0)
    bound = X.rules.protected & ~suits_cards(st.led | (1 << lead) | (1 << st.trump))
    held[0] = held[1] = held[2] = 0
    for i in range(n, 4):
        held[i - n] = trick_holding(st.hands[trick_seat(&X.rules, st.leader, i)], contest, bound)
    meta = n | (st.leader << 2) | (win << 4) | (wc << 6) | (lead << 12) | (st.trump << 14)
    k[0] = held[0] | (held[1] << 32)
    k[1] = held[2] | (meta << 32)


cdef int played_sides(Ctx* X, int c, int seat) noexcept nogil:
    """`trick_sides` once `seat` has played c, worked out."""
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


cdef int sides_after(Ctx* X, int c, int seat) noexcept nogil:
    """`trick_sides` once `seat`, the player to move, has played c. The
    verdict on a trick c leaves incomplete is kept in `X.sides` under its
    `sides_key`."""
    cdef const State* st = &X.st
    cdef uint64_t k[2]
    cdef SidesEntry* e
    cdef int sides
    if st.ntrick == 3:
        # c completes the trick: its side takes it when c beats the winning card
        return 1 << ((seat if beats(c, st.trick[st.win], st.trump) else winner_seat(&X.rules, st)) & 1)
    sides_key(X, c, k)
    e = &X.sides[mix_words(k[0], k[1]) >> (64 - SIDES_BITS)]
    if e.key[0] == k[0] and (e.key[1] & ~(<uint64_t>0xFF << 56)) == k[1]:
        return e.key[1] >> 56
    sides = played_sides(X, c, seat)
    e.key[0] = k[0]
    e.key[1] = k[1] | (<uint64_t>sides << 56)
    return sides


cdef int richest_or_poorest(const RuleFlags* r, uint64_t group, bint most) noexcept nogil:
    """The highest card of `group` with the most points (`most`) or the fewest."""
    cdef int c, pick = highest(group)
    group &= ~bit(pick)
    while group:
        c = highest(group)
        group &= ~bit(c)
        if (r.pts[c] > r.pts[pick]) if most else (r.pts[c] < r.pts[pick]):
            pick = c
    return pick


cdef uint64_t dominant_moves(Ctx* X, uint64_t moves, uint64_t present, int seat) noexcept nogil:
    """Equivalent-card representatives, further reduced: of cards connected
    in rank (no card in play between them) but unequal in points, only the
    richest is searched when the trick surely goes to the mover's side and
    only the poorest when it surely goes to the rivals (the top and the
    bottom card where points fall with rank). Swapping two such
    cards between now and later changes nothing but where their points go,
    so the choice dominates. Protected cards are left alone (their legality
    differs)."""
    cdef const RuleFlags* r = &X.rules
    cdef uint64_t stops = present | RUN_ENDS
    cdef uint64_t m = pext64(moves, stops)
    cdef uint64_t tops = pdep64(m & ~(m >> 1), stops), lows = pdep64(m & ~(m << 1), stops)
    cdef uint64_t plain = tops & lows, out = 0, group
    cdef int top, low, sides
    tops &= ~plain
    lows &= ~plain
    while tops:
        top = highest(tops)
        low = highest(lows)
        tops &= ~bit(top)
        lows &= ~bit(low)
        group = moves & ((bit(top) << 1) - 1) & ~(bit(low) - 1)
        if r.pts[top] == r.pts[low] or (group & r.protected and group & bound_protected(r, &X.st)):
            plain |= group
            continue
        sides = sides_after(X, top, seat)
        if sides == 1 << (seat & 1):
            out |= bit(top if r.monotone else richest_or_poorest(r, group, 1))
        elif sides == 1 << ((seat & 1) ^ 1):
            out |= bit(low if r.monotone else richest_or_poorest(r, group, 0))
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


cdef inline int insert_move(int* out, int* scores, int n, int c, int sc) noexcept nogil:
    """Put c, scored sc, among the n moves `out` holds best first, after
    those scored as high; returns the new count."""
    cdef int j = n
    while j > 0 and scores[j - 1] < sc:
        scores[j] = scores[j - 1]
        out[j] = out[j - 1]
        j -= 1
    scores[j] = sc
    out[j] = c
    return n + 1


cdef inline int order_leads(Ctx* X, uint64_t reps, uint64_t present, int seat, int hint, int* out) noexcept nogil:
    """`order_moves` for the leader: killers, then winners outside trumps, a
    card towards the partner's top card, trump winners, low cards, and last
    a suit a rival ruffs. Killers order the leads only: among the
    followers, whose cards answer a particular trick, they mislead more
    than they help."""
    cdef const RuleFlags* r = &X.rules
    cdef const State* st = &X.st
    cdef int scores[16]
    cdef int n = 0, c, sc
    cdef int depth = popcount64(present)
    cdef int rival_ruffs = ruff_suits(st, (seat + 1) & 3) | ruff_suits(st, (seat + 3) & 3)
    cdef int partner_ruffs = ruff_suits(st, (seat + 2) & 3) & ~rival_ruffs
    cdef uint64_t partner = st.hands[(seat + 2) & 3]
    while reps:
        c = ctz64(reps)
        reps &= reps - 1
        if c == hint:
            sc = 10000
        else:
            if (present & above(c)) == 0:
                sc = 230 + r.pts[c] - (40 if (c >> 4) == st.trump else 0)
            elif (partner >> highest(present & suit_bits(c >> 4))) & 1:
                sc = 220 - 8 * r.pts[c] - (c & 15)
            else:
                sc = 100 - 8 * r.pts[c] - (c & 15)
            if (rival_ruffs >> (c >> 4)) & 1:
                sc -= 200
            elif (partner_ruffs >> (c >> 4)) & 1:
                sc += 40
        if c == X.killers[depth][0]:
            sc += 500
        elif c == X.killers[depth][1]:
            sc += 400
        n = insert_move(out, scores, n, c, sc)
    return n


cdef inline int order_second(const Ctx* X, uint64_t reps, uint64_t present, int seat, int hint, int* out) noexcept nogil:
    """`order_moves` for the second hand, the leader, a rival, winning: a
    card that takes the trick where it stays taken, richest first, then
    points given to a trick the partner can take, then low cards."""
    cdef const RuleFlags* r = &X.rules
    cdef const State* st = &X.st
    cdef int scores[16]
    cdef int n = 0, c, sc, wc = st.trick[st.win]
    cdef uint64_t last = st.hands[(seat + r.step) & 3]
    cdef int partner_can_win = can_beat(st, st.hands[(seat + 2) & 3], wc)   # the partner plays last
    while reps:
        c = ctz64(reps)
        reps &= reps - 1
        if c == hint:
            sc = 10000
        elif beats(c, wc, st.trump):
            sc = 200 - (c & 15) if can_beat(st, last, c) else 300 + richest_first(st, r, c, present, seat)
        elif partner_can_win:
            sc = 100 + richest_first(st, r, c, present, seat)
        else:
            sc = 100 - r.pts[c] * 4 - (c & 15)
        n = insert_move(out, scores, n, c, sc)
    return n


cdef inline int order_third(const Ctx* X, uint64_t reps, uint64_t present, int seat, int hint, int* out) noexcept nogil:
    """`order_moves` for the third hand, whose side's trick it is unless the
    last player can take it: points given to the partner's safe trick
    without overtaking it, else a card that takes the trick where it stays
    taken, richest first, then low cards."""
    cdef const RuleFlags* r = &X.rules
    cdef const State* st = &X.st
    cdef int scores[16]
    cdef int n = 0, c, sc, wc = st.trick[st.win]
    cdef uint64_t last = st.hands[(seat + r.step) & 3]
    cdef int partner_wins = ((winner_seat(r, st) ^ seat) & 1) == 0
    cdef int partner_safe = partner_wins and not can_beat(st, last, wc)
    while reps:
        c = ctz64(reps)
        reps &= reps - 1
        if c == hint:
            sc = 10000
        elif partner_safe:
            sc = 300 + richest_first(st, r, c, present, seat) - (100 if beats(c, wc, st.trump) else 0)
        elif beats(c, wc, st.trump):
            sc = 90 - (c & 15) if can_beat(st, last, c) else 300 + richest_first(st, r, c, present, seat)
        elif partner_wins:
            sc = 120 - r.pts[c] * 4 - (c & 15)
        else:
            sc = 100 - r.pts[c] * 4 - (c & 15)
        n = insert_move(out, scores, n, c, sc)
    return n


cdef inline int order_last(const Ctx* X, uint64_t reps, uint64_t present, int seat, int hint, int* out) noexcept nogil:
    """`order_moves` for the last hand: the richest card to a trick that is
    the side's (the partner holds it or the card takes it), else low cards."""
    cdef const RuleFlags* r = &X.rules
    cdef const State* st = &X.st
    cdef int scores[16]
    cdef int n = 0, c, sc, wc = st.trick[st.win]
    cdef int partner_wins = ((winner_seat(r, st) ^ seat) & 1) == 0
    while reps:
        c = ctz64(reps)
        reps &= reps - 1
        if c == hint:
            sc = 10000
        elif partner_wins or beats(c, wc, st.trump):
            sc = 300 + richest_first(st, r, c, present, seat)
        else:
            sc = 100 - r.pts[c] * 4 - (c & 15)
        n = insert_move(out, scores, n, c, sc)
    return n


cdef int order_moves(Ctx* X, uint64_t moves, uint64_t present, int seat, int hint, int reduce,
                     int* out) noexcept nogil:
    """The moves worth searching, best-looking first: one of each run of
    equivalent cards, and with `reduce` only the dominant card of a run of
    connected cards when the trick's winning side is already settled.

    The table's card comes first, then each trick position's order
    (`order_leads`, `order_second`, `order_third`, `order_last`); a
    follower's card that would take a later trick comes last among the
    richest (`richest_first`)."""
    cdef const RuleFlags* r = &X.rules
    cdef uint64_t reps = dominant_moves(X, moves, present, seat) if reduce else representatives(r, moves, present)
    if not reps & (reps - 1):
        # one move at most: nothing to order
        if reps:
            out[0] = ctz64(reps)
        return popcount64(reps)
    if hint >= 0 and (moves >> hint) & 1:
        hint = group_head(r, moves, present, hint)
    else:
        hint = -1
    if X.st.ntrick == 0:
        return order_leads(X, reps, present, seat, hint, out)
    if X.st.ntrick == 1:
        return order_second(X, reps, present, seat, hint, out)
    if X.st.ntrick == 2:
        return order_third(X, reps, present, seat, hint, out)
    return order_last(X, reps, present, seat, hint, out)
