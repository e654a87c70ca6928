"""C declarations of the search core: bitboards, rules flags, state, table."""
from libc.stdint cimport uint64_t, uint32_t, uint16_t, int8_t, uint8_t

cdef enum:
    NO_TRUMP = 4
    MAX_CARDS = 40
    BUCKET = 3              # entries per bucket: 3 x 20 bytes in one 64-byte cache line
    MAX_DEAL_POINTS = 126   # an entry's bounds are int8_t, and a capot's deal score adds a point
    SIDES_BITS = 12         # `Ctx.sides` holds 2**SIDES_BITS verdicts

# Why a card is the only kind allowed (the strongest obligation in force).
cpdef enum Reason:
    FREE = 0
    FOLLOW = 1
    BEAT = 2
    TRUMP = 3
    OVERTRUMP = 4
    NO_UNDERTRUMP = 5
    PROTECTED = 6

cdef struct RuleFlags:
    int pts[64]             # points of each card id
    int suit_pts[1024]      # points of a set of strengths within one suit
    int trick_bonus
    int step                # seat increment to the next player
    uint64_t protected      # the protected rank in every suit (bit mask)
    int undertrump_ban
    int capot               # deal-score objective: a capot ranks one above the plain total
    int nlow                # ranks at the bottom of every suit that are worth nothing
    uint64_t high           # the cards of the other ranks, at most 24
    int suit_high           # how many of them in a suit
    uint64_t protected_high # the protected cards among the high ones, as `table_key` packs them
    int unled_key           # 15 where the protected cards are worthless low ones, which the key's
                            # cards do not tell from others: its suit bits then mark the suits not
                            # led, where the protected card in play is bound; else 0 (the suits led)
    int quasi               # may the table bound a position by a quasi-symmetric one's entry
    uint16_t slot_diff[4096] # see fill_slot_diff
    uint64_t by_points[8]   # the cards worth 0, 1, ... points
    uint64_t point_bits[3]  # the cards whose points have bit 0, 1, 2 set
    int npoint_classes
    int monotone            # do a suit's points never rise as its ranks fall?

cdef struct State:
    uint64_t hands[4]       # seat N=0 E=1 S=2 W=3
    uint64_t in_play        # the cards still in play: in the hands and in the trick in progress
    int trump               # 0..3, NO_TRUMP
    int leader
    int ntrick
    int trick[4]
    int win                 # the index in trick of the card winning it (ntrick > 0)
    int led                 # suits led so far (bit per suit)
    int won                 # bit 0: N-S has won a trick, bit 1: E-W

cdef struct Undo:
    State before            # the state before the card
    int ns                  # points the trick it completed gave N-S

cdef struct Entry:
    uint32_t key[4]         # the key (see table_key), in 32-bit halves
    int8_t lo
    int8_t hi
    uint8_t best
    uint8_t depth           # cards left; 0 marks an empty slot

cdef struct Bucket:
    Entry slot[BUCKET]
    uint32_t seq            # odd while a thread writes the bucket of a shared table

cdef struct Table:
    Bucket* buckets
    uint64_t nbuckets       # the most buckets the memory bound holds
    uint64_t active         # buckets in use now: starts small, doubles as it fills
    uint64_t initial
    uint64_t used
    uint64_t holders[4]     # who holds each card with points in the deal of the positions stored
    int shared              # searched by several threads at once: buckets are read and written under `seq`,
                            # and the table does not grow

cdef struct SidesEntry:
    uint64_t key[2]         # `sides_key`, and in bits 56 and up of key[1] the verdict; zeros: empty

cdef struct Ctx:
    RuleFlags rules
    State st
    Table tt
    long long nodes
    long long check_at      # the node count at which the search next checks whether to stop
    long long boundary_nodes   # nodes at trick boundaries
    long long table_cutoffs    # boundary nodes answered by the table's entry of their own
    long long quasi_cutoffs    # boundary nodes answered by entries of quasi-symmetric positions
    long long deadline_ns   # 0: none
    volatile int stop       # set to stop the search (`cancel`)
    volatile int* halt      # a flag the search checks besides its own `stop`: that one while it runs alone,
                            # the helped thread's `stop` or the threads' common flag while they share work
    int stopped
    int killers[MAX_CARDS + 1][2]
    int static_bounds          # 0: trick-boundary bounds from the table and the points left only
    long long helpers_after    # the nodes a search runs alone before its helper threads start (`form_team`)
    void* team                 # the helpers waiting to start (a `Team`), or NULL
    long long root_nodes       # the node count when the search from the root began
    long long helpers_at       # the node count at which the helpers waiting start
    int split_from             # the fewest cards in the hands at a node whose moves may be shared (`split_rest`)
    void* pool                 # the splits shared with idle threads (a `Pool`), or NULL: no split
    void* split                # the split this thread searches moves of (a `Split`), or NULL
    SidesEntry sides[1 << SIDES_BITS]   # `trick_sides`' verdicts, by the key of what decides them (`sides_after`)

cdef uint64_t legal_mask(const RuleFlags* r, const State* st, int seat, int* reason, int* winning) noexcept nogil
