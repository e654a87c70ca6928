# Static bounds at a trick boundary: the points still to share and the points
# each side surely takes (cashed top cards, master trumps, a crossing).


cdef inline int remaining(const Ctx* X) noexcept nogil:
    """N-S-independent total of the points still to be shared."""
    cdef uint64_t cards = X.st.in_play
    return mask_points(&X.rules, cards) + X.rules.trick_bonus * ((popcount64(cards) + 3) // 4)


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
