# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled search kernel: the C twin of ``_pure.py`` (same algorithm, same node counts).

The whole search runs on C data without the GIL. Read ``_pure.py`` for the algorithm; every change there
must be mirrored here.
"""

from libc.stdint cimport int8_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memset

from app.solver._tables import COMPRESS, RUN_HEADS
from app.solver.cancel import CANCEL_EVERY as _CANCEL_EVERY
from app.solver.errors import SolverBudgetExceeded, SolverCancelled

cdef enum:
    TT_LIMIT = 1 << 20  # by default the table is emptied past this many positions, as in _pure.py
    TT_INITIAL = 1 << 16
    CANCEL_EVERY = 1024  # nodes between two looks at the cancellation flag, as in app/solver/cancel.py

assert CANCEL_EVERY == _CANCEL_EVERY

cdef extern from *:
    """
    /* The flag is raised by another thread: read it afresh every time, never from a register. */
    static inline int _flag_raised(const unsigned char *flag) {
        return *(const volatile unsigned char *)flag != 0;
    }
    """
    int _flag_raised(const unsigned char* flag) noexcept nogil

MODE_TEST = 0
MODE_VALUE = 1
MODE_BEST = 2
MODE_ANALYSE = 3

cdef int MOD3[6]
MOD3[:] = [0, 1, 2, 0, 1, 2]

cdef int _i
cdef uint8_t POP8[256]  # bits set in a byte (one suit)
for _i in range(256):
    POP8[_i] = bin(_i).count("1")

cdef uint8_t C_COMPRESS[65536]
cdef uint8_t C_HEADS[65536]

for _i in range(65536):
    C_COMPRESS[_i] = COMPRESS[_i]
    C_HEADS[_i] = RUN_HEADS[_i]


ctypedef struct Entry:  # 12 bytes: the table's size in memory is what its speed depends on
    uint32_t a  # compressed hand of seat 0; never 0 in a stored position, so 0 marks an empty slot
    uint32_t b  # compressed hand of seat 1
    uint32_t c  # bits 0-15 cards in play per suit, 16-17 leader, 18-21 lower bound, 22-25 upper bound,
                # 26-31 0 or 1 + suit * 8 + order of the card that settled the last search here


ctypedef struct Search:
    uint32_t h[3]
    int trump
    int misere
    int declarer
    uint64_t tag  # declarer, trump, misère: the table holds positions of one tag only
    bint tag_set
    long long nodes
    long long budget
    const unsigned char* cancel  # the CancelToken's flag byte, or NULL
    int abort_reason  # 0 running, 1 node budget, 2 cancelled, 3 out of memory
    Entry* table
    unsigned long epoch  # changes whenever entries move (growth) or vanish (clearing)
    size_t cap  # slots, a power of two
    size_t mask
    int shift
    size_t count
    size_t limit


cdef inline int _popcount(uint32_t x) noexcept nogil:
    # Bit arithmetic rather than __builtin_popcount, which is a library call without -mpopcnt.
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    return <int>((x * 0x01010101) >> 24)


cdef extern from *:
    int __builtin_clz(unsigned int) nogil
    int __builtin_ctz(unsigned int) nogil


cdef inline int _top(uint32_t x) noexcept nogil:
    return 31 - __builtin_clz(x)


cdef inline bint _beats(Search* s, int c, int w) noexcept nogil:
    cdef int cs = c >> 3
    cdef int ws = w >> 3
    return (cs == ws and c > w) or (cs == s.trump and ws != s.trump)


cdef inline int _winner(Search* s, int leader, int t0, int t1, int t2) noexcept nogil:
    cdef int wc = t0
    cdef int wi = 0
    if _beats(s, t1, wc):
        wc = t1
        wi = 1
    if _beats(s, t2, wc):
        wi = 2
    return MOD3[leader + wi]


cdef inline uint32_t _legal(Search* s, int mover, int tlen, int t0) noexcept nogil:
    cdef uint32_t hand = s.h[mover]
    cdef uint32_t legal
    if tlen == 0:
        return hand
    legal = hand & (<uint32_t>255 << ((t0 >> 3) << 3))
    if legal:
        return legal
    if s.trump >= 0:
        legal = hand & (<uint32_t>255 << (s.trump << 3))
        if legal:
            return legal
    return hand


cdef inline uint32_t _live(Search* s, int tlen, int t0, int t1) noexcept nogil:
    cdef uint32_t live = s.h[0] | s.h[1] | s.h[2]
    if tlen > 0:
        live |= <uint32_t>1 << t0
    if tlen > 1:
        live |= <uint32_t>1 << t1
    return live


cdef inline size_t _home(Search* s, uint64_t k1, uint64_t k2) noexcept nogil:
    return <size_t>(((k1 * <uint64_t>0x9E3779B97F4A7C15) ^ (k2 * <uint64_t>0xC2B2AE3D27D4EB4F)) >> s.shift)


cdef Entry* _find(Search* s, uint64_t k1, uint64_t k2) noexcept nogil:
    cdef size_t i = _home(s, k1, k2)
    cdef uint32_t a = <uint32_t>k1
    cdef uint32_t b = <uint32_t>(k1 >> 32)
    cdef uint32_t c = <uint32_t>k2
    cdef Entry* e
    while True:
        e = &s.table[i]
        if e.a == 0:
            return NULL
        if e.a == a and e.b == b and (e.c & 0x3FFFF) == c:
            return e
        i = (i + 1) & s.mask


cdef Entry* _slot(Search* s, uint64_t k1, uint64_t k2) noexcept nogil:
    """The empty slot where a new key goes (the key is known to be absent)."""
    cdef size_t i = _home(s, k1, k2)
    while s.table[i].a != 0:
        i = (i + 1) & s.mask
    return &s.table[i]


cdef int _grow(Search* s) noexcept nogil:
    cdef size_t new_cap = s.cap * 2
    cdef Entry* old = s.table
    cdef size_t old_cap = s.cap
    cdef Entry* fresh = <Entry*>calloc(new_cap, sizeof(Entry))
    cdef size_t i
    cdef Entry* e
    if fresh == NULL:
        return 0
    s.table = fresh
    s.cap = new_cap
    s.mask = new_cap - 1
    s.shift -= 1
    s.epoch += 1
    for i in range(old_cap):
        if old[i].a != 0:
            e = _slot(s, old[i].a | (<uint64_t>old[i].b << 32), old[i].c & 0x3FFFF)
            e[0] = old[i]
    free(old)
    return 1


cdef inline int _lower(Entry* e) noexcept nogil:
    return (e.c >> 18) & 15


cdef inline int _upper(Entry* e) noexcept nogil:
    return (e.c >> 22) & 15


cdef inline void _update(Entry* e, bint result, int beta, int move) noexcept nogil:
    if result:
        e.c = (e.c & ~(<uint32_t>15 << 18)) | (<uint32_t>beta << 18)
    else:
        e.c = (e.c & ~(<uint32_t>15 << 22)) | (<uint32_t>(beta - 1) << 22)
    if move:
        e.c = (e.c & 0x03FFFFFF) | (<uint32_t>move << 26)


cdef void _store(Search* s, uint64_t k1, uint64_t k2, int n, bint result, int beta, int move) noexcept nogil:
    cdef Entry* e = _find(s, k1, k2)
    if e == NULL:
        if s.count >= s.limit:
            memset(s.table, 0, s.cap * sizeof(Entry))
            s.count = 0
            s.epoch += 1
        if (s.count + 1) * 2 > s.cap:
            if not _grow(s):
                s.abort_reason = 3
                return
        e = _slot(s, k1, k2)
        e.a = <uint32_t>k1
        e.b = <uint32_t>(k1 >> 32)
        e.c = <uint32_t>k2 | (<uint32_t>n << 22)
        s.count += 1
    _update(e, result, beta, move)


cdef inline void _key(Search* s, int leader, uint64_t* k1, uint64_t* k2) noexcept nogil:
    """Rank-compressed layout: seats 0 and 1's hands, the cards in play per suit (seat 2 holds the
    rest), the leader. Equal layouts of different cards get equal keys."""
    cdef uint32_t h0 = s.h[0]
    cdef uint32_t h1 = s.h[1]
    cdef uint32_t live = h0 | h1 | s.h[2]
    cdef uint32_t c0 = 0
    cdef uint32_t c1 = 0
    cdef uint32_t counts = 0
    cdef int sh
    cdef uint32_t ls, base
    for sh in range(0, 32, 8):
        ls = (live >> sh) & 255
        if ls:
            base = ls << 8
            c0 |= <uint32_t>C_COMPRESS[base | ((h0 >> sh) & 255)] << sh
            c1 |= <uint32_t>C_COMPRESS[base | ((h1 >> sh) & 255)] << sh
            counts |= <uint32_t>POP8[ls] << (sh >> 1)
    k1[0] = <uint64_t>c0 | (<uint64_t>c1 << 32)
    k2[0] = <uint64_t>counts | (<uint64_t>leader << 16)


cdef inline int _code_of(Search* s, int c) noexcept nogil:
    cdef int sh = c & 24
    cdef uint32_t live = ((s.h[0] | s.h[1] | s.h[2]) >> sh) & 255
    return 1 + sh + POP8[live & ((<uint32_t>1 << (c & 7)) - 1)]


cdef inline int _card_of(Search* s, int code) noexcept nogil:
    cdef int sh = (code - 1) & 24
    cdef int order = (code - 1) & 7
    cdef uint32_t live = ((s.h[0] | s.h[1] | s.h[2]) >> sh) & 255
    cdef int r
    for r in range(8):
        if (live >> r) & 1:
            if order == 0:
                return sh + r
            order -= 1
    return -1


cdef inline int _bit_length(uint32_t x) noexcept nogil:
    return 0 if x == 0 else 32 - __builtin_clz(x)


cdef inline int _sure_tricks(Search* s, int p) noexcept nogil:
    """See ``_pure.Kernel._sure_tricks``."""
    cdef uint32_t own = s.h[p]
    cdef uint32_t q1 = s.h[MOD3[p + 1]]
    cdef uint32_t q2 = s.h[MOD3[p + 2]]
    cdef int trump = s.trump
    cdef int t_sh = trump << 3
    cdef bint q1_trumps = trump >= 0 and ((q1 >> t_sh) & 255) != 0
    cdef bint q2_trumps = trump >= 0 and ((q2 >> t_sh) & 255) != 0
    cdef int total = 0
    cdef int sh, count, len1, len2
    cdef uint32_t mine, o1, o2, other, top
    for sh in range(0, 32, 8):
        mine = (own >> sh) & 255
        if not mine:
            continue
        o1 = (q1 >> sh) & 255
        o2 = (q2 >> sh) & 255
        other = o1 | o2
        top = mine & ~((<uint32_t>1 << _bit_length(other)) - 1)
        count = POP8[top]
        if count and sh != t_sh:
            if q1_trumps:
                len1 = POP8[o1]
                if len1 < count:
                    count = len1
            if q2_trumps:
                len2 = POP8[o2]
                if len2 < count:
                    count = len2
        total += count
    return total


cdef inline bint _misere_trick_forced(Search* s, int leader) noexcept nogil:
    """See ``_pure.Kernel._misere_trick_forced``."""
    cdef int declarer = s.declarer
    cdef uint32_t mine = s.h[declarer]
    cdef uint32_t theirs = s.h[MOD3[declarer + 1]] | s.h[MOD3[declarer + 2]]
    cdef uint32_t lead_hand = s.h[leader]
    cdef uint32_t d, o
    cdef int sh
    for sh in range(0, 32, 8):
        d = (mine >> sh) & 255
        o = (theirs >> sh) & 255
        if leader == declarer:
            if d and _bit_length(d & (~d + 1)) < _bit_length(o):
                return False
        elif d and ((lead_hand >> sh) & 255) and _bit_length(d & (~d + 1)) > _bit_length(o):
            return True
    return leader == declarer


cdef inline bint _misere_trick_lost(Search* s, int leader) noexcept nogil:
    """See ``_pure.Kernel._misere_trick_lost``."""
    cdef uint32_t mine = s.h[leader]
    cdef uint32_t q, d, o
    cdef int k, sh
    for k in range(1, 3):
        q = s.h[MOD3[leader + k]]
        for sh in range(0, 32, 8):
            d = (mine >> sh) & 255
            o = (q >> sh) & 255
            if d and o and (d & (~d + 1)) < (o & (~o + 1)):
                return True
    return False


cdef int _moves(Search* s, int mover, int leader, int tlen, int t0, int t1, uint32_t legal,
                int* out) noexcept nogil:
    """Sort keys (1000 - score) << 5 | card of the run heads of the legal cards, unsorted; returns how many.

    Taken in ascending key order (the search picks the smallest left, so a cut-off spares the sorting)
    this is exactly the order of ``_pure.Kernel._moves``, whose per-card tests are folded into
    per-suit masks here.
    """
    cdef uint32_t hand = s.h[mover]
    cdef uint32_t live = _live(s, tlen, t0, t1)
    cdef int declarer = s.declarer
    cdef bint misere = s.misere
    cdef bint maxer = (mover == declarer) != misere
    cdef bint dumps_high = misere and mover == declarer
    cdef int wc = 0
    cdef int wp = 0
    cdef int n = 0
    cdef int sidx, sh, r, score, top, wsuit, wrank
    cdef uint32_t ms, ls, heads, o1, o2, low1, low2, low_d, low_p, b, beat_mask
    cdef int base_beat = 0
    cdef int base_not = 0
    cdef bint high_beat = dumps_high
    cdef bint high_not = dumps_high or misere
    cdef bint declarer_leads = mover == declarer
    cdef bint declarer_next = MOD3[mover + 1] == declarer
    if tlen:
        wc = t0
        wp = leader
        if tlen == 2 and _beats(s, t1, wc):
            wc = t1
            wp = MOD3[leader + 1]
        # A card either takes over the trick or leaves it with wp: both outcomes are known up front.
        if (mover == declarer) == maxer:
            base_beat = 100
        if (wp == declarer) == maxer:
            base_not = 100
    wsuit = wc >> 3
    wrank = wc & 7
    for sidx in range(4):
        sh = sidx << 3
        ms = (legal >> sh) & 255
        if not ms:
            continue
        ls = (live >> sh) & 255
        heads = C_HEADS[(ls << 8) | ms]
        if tlen:
            if sidx == wsuit:
                beat_mask = 255 & ~((<uint32_t>2 << wrank) - 1)
            elif sidx == s.trump and wsuit != s.trump:
                beat_mask = 255
            else:
                beat_mask = 0
            while heads:
                r = __builtin_ctz(heads)
                heads &= heads - 1
                if (beat_mask >> r) & 1:
                    score = base_beat + (r if high_beat else 8 - r)
                else:
                    score = base_not + (r if high_not else 8 - r)
                out[n] = ((1000 - score) << 5) | (sh + r)
                n += 1
            continue
        if misere:
            o1 = (s.h[MOD3[mover + 1]] >> sh) & 255
            o2 = (s.h[MOD3[mover + 2]] >> sh) & 255
            low1 = o1 & (~o1 + 1)
            low2 = o2 & (~o2 + 1)
            if declarer_next:
                low_d = low1
                low_p = low2
            else:
                low_d = low2
                low_p = low1
        else:
            top = _bit_length(ls & ~((hand >> sh) & 255))  # ranks from here up are top cards
        while heads:
            r = __builtin_ctz(heads)
            heads &= heads - 1
            if misere:
                b = <uint32_t>1 << r
                if declarer_leads:
                    if low1 > b or low2 > b:
                        score = 50 + r
                    elif low1 and low2:
                        score = 10 - r
                    elif low1 or low2:
                        score = 5 - r
                    else:
                        score = -r
                elif not low_d:
                    score = 8 - r
                elif low_d > b and (not low_p or low_p < low_d):
                    score = 68 - r
                else:
                    score = 28 - r
            elif r >= top:
                score = 30
            else:
                score = 10 - r
            out[n] = ((1000 - score) << 5) | (sh + r)
            n += 1
    return n


cdef inline int _tick(Search* s) noexcept nogil:
    """Counts a node; -1 when a budget has run out."""
    s.nodes += 1
    if s.nodes > s.budget:
        s.abort_reason = 1
        return -1
    if s.cancel != NULL and (s.nodes & (CANCEL_EVERY - 1)) == 0 and _flag_raised(s.cancel):
        s.abort_reason = 2
        return -1
    return 0


cdef inline int _pick(int* moves, int i, int count, int first) noexcept nogil:
    """Move the i-th card to try into place and return it: the table's card first, else the smallest key
    left (selection, one at a time: a cut-off spares sorting the rest)."""
    cdef int best = i
    cdef int j, c
    if i == 0 and first >= 0:
        best = -1
        for j in range(count):
            if (moves[j] & 31) == first:
                best = j
    if best < 0 or best == i and not (i == 0 and first >= 0):
        best = i
        for j in range(i + 1, count):
            if moves[j] < moves[best]:
                best = j
    c = moves[best]
    moves[best] = moves[i]
    moves[i] = c
    return c & 31


cdef int _search(Search* s, int leader, int tlen, int t0, int t1, int beta, int n) noexcept nogil:
    """1 if the declarer takes at least beta tricks from here, 0 if not, -1 when the budget ran out.

    ``n`` is the number of tricks left, the current one included (the mover's card count). The search
    is split by the seat in the trick: `_lead`, `_second`, `_third`.
    """
    if tlen == 0:
        return _lead(s, leader, beta, n)
    if tlen == 1:
        return _second(s, leader, t0, beta, n)
    return _third(s, leader, t0, t1, beta, n)


cdef int _lead(Search* s, int leader, int beta, int n) noexcept nogil:
    cdef int w, r, i, count, result, c
    cdef uint32_t hand
    cdef uint64_t k1 = 0
    cdef uint64_t k2 = 0
    cdef Entry* e = NULL
    cdef unsigned long epoch = 0
    cdef bint maxer
    cdef int moves[16]
    cdef int first = -1
    cdef int cut = -1
    # Locals, not struct fields: stores into s.h may alias them under -fno-strict-aliasing.
    cdef int declarer = s.declarer
    cdef bint misere = s.misere
    if _tick(s):
        return -1
    if beta <= 0:
        return 1
    if beta > n:
        return 0
    if n == 1:
        w = _winner(s, leader, _top(s.h[leader]), _top(s.h[MOD3[leader + 1]]), _top(s.h[MOD3[leader + 2]]))
        return 1 if w == declarer else 0
    if not misere:
        if leader == declarer:
            if _sure_tricks(s, leader) >= beta:
                return 1
        elif n - _sure_tricks(s, leader) < beta:
            return 0
    elif (beta == 1 or leader == declarer) and _misere_trick_forced(s, leader):
        return 1
    elif beta == n and leader == declarer and _misere_trick_lost(s, leader):
        return 0
    _key(s, leader, &k1, &k2)
    e = _find(s, k1, k2)
    epoch = s.epoch
    if e != NULL:
        if _lower(e) >= beta:
            return 1
        if _upper(e) < beta:
            return 0
        if e.c >> 26:
            first = _card_of(s, e.c >> 26)
    hand = s.h[leader]
    maxer = (leader == declarer) != misere
    result = 0 if maxer else 1
    count = _moves(s, leader, leader, 0, 0, 0, hand, moves)
    for i in range(count):
        c = _pick(moves, i, count, first)
        s.h[leader] = hand ^ (<uint32_t>1 << c)
        r = _second(s, leader, c, beta, n)
        s.h[leader] = hand
        if r < 0:
            return -1
        if r == maxer:
            result = r
            cut = c
            break
    if e != NULL and s.epoch == epoch:
        _update(e, result, beta, _code_of(s, cut) if cut >= 0 else 0)
    else:
        _store(s, k1, k2, n, result, beta, _code_of(s, cut) if cut >= 0 else 0)
        if s.abort_reason:
            return -1
    return result


cdef int _second(Search* s, int leader, int t0, int beta, int n) noexcept nogil:
    cdef int mover = MOD3[leader + 1]
    cdef uint32_t hand = s.h[mover]
    cdef uint32_t legal
    cdef int r, i, count, c
    cdef int moves[16]
    cdef bint maxer = (mover == s.declarer) != s.misere
    if _tick(s):
        return -1
    if beta <= 0:
        return 1
    if beta > n:
        return 0
    legal = _legal(s, mover, 1, t0)
    if legal & (legal - 1):
        count = _moves(s, mover, leader, 1, t0, 0, legal, moves)
    else:
        moves[0] = __builtin_ctz(legal)  # a forced card needs no ordering
        count = 1
    for i in range(count):
        c = _pick(moves, i, count, -1) if count > 1 else moves[0] & 31
        s.h[mover] = hand ^ (<uint32_t>1 << c)
        r = _third(s, leader, t0, c, beta, n)
        s.h[mover] = hand
        if r < 0:
            return -1
        if r == maxer:
            return r
    return 0 if maxer else 1


cdef int _third(Search* s, int leader, int t0, int t1, int beta, int n) noexcept nogil:
    cdef int mover = MOD3[leader + 2]
    cdef uint32_t hand = s.h[mover]
    cdef uint32_t legal
    cdef int r, i, count, c, w, nb
    cdef int moves[16]
    cdef int declarer = s.declarer
    cdef bint maxer = (mover == declarer) != s.misere
    if _tick(s):
        return -1
    if beta <= 0:
        return 1
    if beta > n:
        return 0
    legal = _legal(s, mover, 2, t0)
    if legal & (legal - 1):
        count = _moves(s, mover, leader, 2, t0, t1, legal, moves)
    else:
        moves[0] = __builtin_ctz(legal)
        count = 1
    for i in range(count):
        c = _pick(moves, i, count, -1) if count > 1 else moves[0] & 31
        w = _winner(s, leader, t0, t1, c)
        nb = beta - 1 if w == declarer else beta
        # A trick that settles the question needs no search below it.
        if nb <= 0:
            r = 1
        elif nb >= n:
            r = 0
        else:
            s.h[mover] = hand ^ (<uint32_t>1 << c)
            r = _lead(s, w, nb, n - 1)
            s.h[mover] = hand
            if r < 0:
                return -1
        if r == maxer:
            return r
    return 0 if maxer else 1


cdef int _value(Search* s, int leader, int tlen, int t0, int t1) noexcept nogil:
    cdef int n = _popcount(s.h[MOD3[leader + tlen]])
    cdef int lo = 0
    cdef int hi = n
    cdef int mid, r
    if s.misere and n:
        r = _search(s, leader, tlen, t0, t1, 1, n)
        if r < 0:
            return -1
        if not r:
            return 0
        lo = 1
    while lo < hi:
        mid = (2 * lo + hi + 2) // 3 if s.misere else (lo + hi + 1) >> 1
        r = _search(s, leader, tlen, t0, t1, mid, n)
        if r < 0:
            return -1
        if r:
            lo = mid
        else:
            hi = mid - 1
    return lo


cdef int _heads_by_index(Search* s, int mover, int tlen, int t0, int t1, int* out) noexcept nogil:
    cdef uint32_t legal = _legal(s, mover, tlen, t0)
    cdef uint32_t live = _live(s, tlen, t0, t1)
    cdef int n = 0
    cdef int sidx, sh, r
    cdef uint32_t ms, heads
    for sidx in range(4):
        sh = sidx << 3
        ms = (legal >> sh) & 255
        if ms:
            heads = C_HEADS[(((live >> sh) & 255) << 8) | ms]
            for r in range(8):
                if (heads >> r) & 1:
                    out[n] = sh + r
                    n += 1
    return n


cdef int _root(Search* s, int leader, int tlen, int t0, int t1, int mode, int beta,
               int* value_out, int* cards, int* vals) noexcept nogil:
    """Fills value_out (and cards/vals per run head); returns the head count, or -1 on abort."""
    cdef int value, mover, count, i, c, w, won, nleader, ntlen, n0, n1, r, nn
    cdef uint32_t hand
    cdef bint maxer
    cdef int n = _popcount(s.h[MOD3[leader + tlen]])
    if mode == 0:
        r = _search(s, leader, tlen, t0, t1, beta, n)
        if r < 0:
            return -1
        value_out[0] = r
        return 0
    value = _value(s, leader, tlen, t0, t1)
    if value < 0:
        return -1
    value_out[0] = value
    if mode == 1:
        return 0
    mover = MOD3[leader + tlen]
    hand = s.h[mover]
    maxer = (mover == s.declarer) != s.misere
    count = _heads_by_index(s, mover, tlen, t0, t1, cards)
    for i in range(count):
        c = cards[i]
        s.h[mover] = hand ^ (<uint32_t>1 << c)
        if tlen == 2:
            w = _winner(s, leader, t0, t1, c)
            won = 1 if w == s.declarer else 0
            nleader = w
            ntlen = 0
            n0 = 0
            n1 = 0
            nn = n - 1
        else:
            nn = n
            won = 0
            nleader = leader
            ntlen = tlen + 1
            if tlen == 0:
                n0 = c
                n1 = 0
            else:
                n0 = t0
                n1 = c
        if mode == 3:
            r = _value(s, nleader, ntlen, n0, n1)
            if r < 0:
                s.h[mover] = hand
                return -1
            vals[i] = won + r
        elif maxer:
            r = _search(s, nleader, ntlen, n0, n1, value - won, nn)
            if r < 0:
                s.h[mover] = hand
                return -1
            vals[i] = r
        else:
            r = _search(s, nleader, ntlen, n0, n1, value + 1 - won, nn)
            if r < 0:
                s.h[mover] = hand
                return -1
            vals[i] = 1 - r
        s.h[mover] = hand
    return count


cdef class Kernel:
    """One transposition table and the search over it; reuse an instance to keep the table warm."""

    cdef Search s
    cdef public long long nodes

    def __cinit__(self, long long table_limit=TT_LIMIT):
        if table_limit < 1:
            raise ValueError("table_limit must be positive")
        self.s.limit = table_limit
        self.s.table = <Entry*>calloc(TT_INITIAL, sizeof(Entry))
        if self.s.table == NULL:
            raise MemoryError()
        self.s.cap = TT_INITIAL
        self.s.mask = TT_INITIAL - 1
        self.s.shift = 64 - 16
        self.s.count = 0
        self.s.epoch = 0
        self.s.tag_set = False
        self.nodes = 0

    def __dealloc__(self):
        free(self.s.table)

    def clear(self):
        memset(self.s.table, 0, self.s.cap * sizeof(Entry))
        self.s.count = 0
        self.s.epoch += 1

    @property
    def table_size(self):
        return self.s.count

    def run(self, tuple hands, int trump, bint misere, int declarer, int leader, tuple trick, int mode,
            int beta, long long node_budget, object cancel):
        """Same contract as ``app.solver._pure.Kernel.run``."""
        # Holding the view keeps the token's buffer alive and unresizable while the search reads it.
        cdef const unsigned char[::1] flag
        cdef Search* s = &self.s
        cdef int tlen = len(trick)
        cdef int t0 = trick[0] if tlen > 0 else 0
        cdef int t1 = trick[1] if tlen > 1 else 0
        cdef int value = 0
        cdef int count
        cdef int cards[16]
        cdef int vals[16]
        cdef uint64_t tag
        s.h[0] = hands[0]
        s.h[1] = hands[1]
        s.h[2] = hands[2]
        s.trump = trump
        s.misere = misere
        s.declarer = declarer
        tag = (<uint64_t>declarer << 34) | (<uint64_t>(trump + 1) << 36) | (<uint64_t>misere << 39)
        if s.tag_set and tag != s.tag and s.count:
            # Keys leave out declarer, trump and mode: positions of another kind start a fresh table.
            memset(s.table, 0, s.cap * sizeof(Entry))
            s.count = 0
            s.epoch += 1
        s.tag = tag
        s.tag_set = True
        s.budget = node_budget if node_budget > 0 else (<long long>1 << 62)
        s.cancel = NULL
        if cancel is not None:
            flag = cancel.flag
            s.cancel = &flag[0]
        s.nodes = 0
        s.abort_reason = 0
        with nogil:
            count = _root(s, leader, tlen, t0, t1, mode, beta, &value, cards, vals)
        s.cancel = NULL
        self.nodes = s.nodes
        if count < 0:
            if s.abort_reason == 3:
                raise MemoryError("solver transposition table")
            if s.abort_reason == 2:
                raise SolverCancelled(f"solver cancelled after {s.nodes} nodes", s.nodes)
            raise SolverBudgetExceeded(f"solver stopped after {s.nodes} nodes: node budget exceeded", s.nodes)
        return value, [(cards[i], vals[i]) for i in range(count)]
