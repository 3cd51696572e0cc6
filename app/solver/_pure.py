"""Pure-Python search kernel: the reference twin of ``_kernel.pyx`` (same algorithm, same node counts).

Cards are indices 0..31 (suit-major, ``Card.index``); a hand is a 32-bit mask. The search answers
null-window questions "does the declarer take at least ``beta`` of the tricks from here (the current trick
included)?". Positions at trick boundaries are stored by their rank-compressed layout with a proven
(lower, upper) bound on the declarer's remaining tricks, updated only from the answer of the node's own
question: a "yes" at ``beta`` proves lower >= beta, a "no" proves upper <= beta - 1 (never a bound read off
a child that was cut off). Other cut-offs: the tricks left; the sure tricks of the side on lead in a trick
contract; in misère a trick forced on the declarer, or a card on lead nobody can stay under. Only one card
of a run of interchangeable cards is searched. Every change here must be mirrored in ``_kernel.pyx``; the
tests compare the two on thousands of positions, node counts included.
"""

from __future__ import annotations

from typing import Final

from app.solver._tables import COMPRESS, RUN_HEADS
from app.solver.cancel import CANCEL_EVERY, CancelToken
from app.solver.errors import SolverBudgetExceeded, SolverCancelled

# By default the table is emptied when it would grow past this many positions (deterministic in both
# kernels; a compiled entry takes 12 bytes, at most two slots per entry).
TT_LIMIT: Final = 1 << 20

MODE_TEST: Final = 0
MODE_VALUE: Final = 1
MODE_BEST: Final = 2
MODE_ANALYSE: Final = 3


class _Abort(Exception):
    pass


class _Cancelled(Exception):
    pass


class Kernel:
    """One transposition table and the search over it; reuse an instance to keep the table warm."""

    def __init__(self, table_limit: int = TT_LIMIT) -> None:
        if table_limit < 1:
            raise ValueError("table_limit must be positive")
        self._limit = table_limit
        self._tt: dict[int, int] = {}
        self.nodes = 0
        self._h = [0, 0, 0]
        self._trump = -1
        self._misere = False
        self._declarer = 0
        self._budget = 0
        self._cancel: bytearray | None = None
        self._tag = 0
        self._tag_set = False

    def clear(self) -> None:
        self._tt.clear()

    @property
    def table_size(self) -> int:
        return len(self._tt)

    def run(  # noqa: PLR0917 - the kernels' hot entry point takes plain positional values
        self,
        hands: tuple[int, int, int],
        trump: int,
        misere: bool,
        declarer: int,
        leader: int,
        trick: tuple[int, ...],
        mode: int,
        beta: int,
        node_budget: int,
        cancel: CancelToken | None,
    ) -> tuple[int, list[tuple[int, int]]]:
        """Answer one root question; see ``app.solver.api`` for the meaning of modes and results.

        ``node_budget`` (0: none) stops the search with `SolverBudgetExceeded` past that many nodes;
        ``cancel`` is looked at every `CANCEL_EVERY` nodes and stops it with `SolverCancelled`.

        MODE_TEST returns (1 if the declarer takes >= beta else 0, []); MODE_VALUE (value, []);
        MODE_BEST (value, [(card, 1 if optimal else 0)] per run head); MODE_ANALYSE (value,
        [(card, value after it)] per run head). Run heads come in card-index order.
        """
        self._h[0], self._h[1], self._h[2] = hands
        tlen = len(trick)
        t0 = trick[0] if tlen > 0 else 0
        t1 = trick[1] if tlen > 1 else 0
        self._trump = trump
        self._misere = misere
        self._declarer = declarer
        tag = declarer << 34 | (trump + 1) << 36 | int(misere) << 39
        if self._tag_set and tag != self._tag:
            # Keys leave out declarer, trump and mode: positions of another kind start a fresh table.
            self._tt.clear()
        self._tag = tag
        self._tag_set = True
        self._budget = node_budget if node_budget > 0 else (1 << 62)
        self._cancel = None if cancel is None else cancel.flag
        self.nodes = 0
        try:
            return self._root(leader, tlen, t0, t1, mode, beta)
        except _Abort:
            raise SolverBudgetExceeded(
                f"solver stopped after {self.nodes} nodes: node budget exceeded", self.nodes
            ) from None
        except _Cancelled:
            raise SolverCancelled(f"solver cancelled after {self.nodes} nodes", self.nodes) from None
        finally:
            self._cancel = None

    # -- root -------------------------------------------------------------------------------------

    def _root(  # noqa: PLR0917
        self, leader: int, tlen: int, t0: int, t1: int, mode: int, beta: int
    ) -> tuple[int, list[tuple[int, int]]]:
        if mode == MODE_TEST:
            return (1 if self._search(leader, tlen, t0, t1, beta) else 0), []
        value = self._value(leader, tlen, t0, t1)
        if mode == MODE_VALUE:
            return value, []
        h = self._h
        mover = (leader + tlen) % 3
        hand = h[mover]
        maxer = (mover == self._declarer) != self._misere
        out: list[tuple[int, int]] = []
        for c in self._heads_by_index(mover, tlen, t0, t1):
            h[mover] = hand ^ (1 << c)
            if tlen == 2:
                w = self._winner(leader, t0, t1, c)
                won = 1 if w == self._declarer else 0
                nleader, ntlen, n0, n1 = w, 0, 0, 0
            else:
                won = 0
                nleader, ntlen = leader, tlen + 1
                n0, n1 = (c, 0) if tlen == 0 else (t0, c)
            if mode == MODE_ANALYSE:
                out.append((c, won + self._value(nleader, ntlen, n0, n1)))
            elif maxer:
                out.append((c, 1 if self._search(nleader, ntlen, n0, n1, value - won) else 0))
            else:
                out.append((c, 0 if self._search(nleader, ntlen, n0, n1, value + 1 - won) else 1))
            h[mover] = hand
        return value, out

    def _value(self, leader: int, tlen: int, t0: int, t1: int) -> int:
        n = self._h[(leader + tlen) % 3].bit_count()
        lo, hi = 0, n
        if self._misere and n:
            # A misère is most often clean or caught once: settle "any trick at all?" first.
            if not self._search(leader, tlen, t0, t1, 1):
                return 0
            lo = 1
        while lo < hi:
            # Misère values sit low in the range: probe its lower third.
            mid = (2 * lo + hi + 2) // 3 if self._misere else (lo + hi + 1) >> 1
            if self._search(leader, tlen, t0, t1, mid):
                lo = mid
            else:
                hi = mid - 1
        return lo

    def _heads_by_index(self, mover: int, tlen: int, t0: int, t1: int) -> list[int]:
        legal = self._legal(mover, tlen, t0)
        live = self._live(tlen, t0, t1)
        out: list[int] = []
        for s in range(4):
            sh = s << 3
            ms = legal >> sh & 255
            if ms:
                heads = RUN_HEADS[(live >> sh & 255) << 8 | ms]
                for r in range(8):
                    if heads >> r & 1:
                        out.append(sh + r)
        return out

    # -- search -----------------------------------------------------------------------------------

    def _legal(self, mover: int, tlen: int, t0: int) -> int:
        hand = self._h[mover]
        if tlen == 0:
            return hand
        legal = hand & (255 << ((t0 >> 3) << 3))
        if legal:
            return legal
        if self._trump >= 0:
            legal = hand & (255 << (self._trump << 3))
            if legal:
                return legal
        return hand

    def _live(self, tlen: int, t0: int, t1: int) -> int:
        h = self._h
        live = h[0] | h[1] | h[2]
        if tlen > 0:
            live |= 1 << t0
        if tlen > 1:
            live |= 1 << t1
        return live

    def _beats(self, c: int, w: int) -> bool:
        cs = c >> 3
        ws = w >> 3
        return (cs == ws and c > w) or (cs == self._trump and ws != self._trump)

    def _winner(self, leader: int, t0: int, t1: int, t2: int) -> int:
        wc = t0
        wi = 0
        if self._beats(t1, wc):
            wc = t1
            wi = 1
        if self._beats(t2, wc):
            wi = 2
        return (leader + wi) % 3

    def _key(self, leader: int) -> int:
        h0, h1, h2 = self._h
        live = h0 | h1 | h2
        c0 = c1 = c2 = 0
        for sh in (0, 8, 16, 24):
            base = (live >> sh & 255) << 8
            if base:
                c0 |= COMPRESS[base | (h0 >> sh & 255)] << sh
                c1 |= COMPRESS[base | (h1 >> sh & 255)] << sh
                c2 |= COMPRESS[base | (h2 >> sh & 255)] << sh
        return c0 | c1 << 32 | (c2 | leader << 32) << 64

    def _moves(self, mover: int, leader: int, tlen: int, t0: int, t1: int, first: int) -> list[int]:  # noqa: PLR0917
        """Run heads of the legal cards, most promising first (order changes speed, never the value).

        ``first`` (or -1) is the card that settled this position's last search: it goes first.
        """
        h = self._h
        hand = h[mover]
        legal = self._legal(mover, tlen, t0)
        live = self._live(tlen, t0, t1)
        declarer = self._declarer
        misere = self._misere
        maxer = (mover == declarer) != misere
        dumps_high = misere and mover == declarer
        wc = wp = 0
        if tlen:
            wc = t0
            wp = leader
            if tlen == 2 and self._beats(t1, wc):
                wc = t1
                wp = (leader + 1) % 3
        keys: list[int] = []
        for s in range(4):
            sh = s << 3
            ms = legal >> sh & 255
            if not ms:
                continue
            ls = live >> sh & 255
            heads = RUN_HEADS[ls << 8 | ms]
            low1 = low2 = 0
            if tlen == 0 and misere:
                # Lowest card of the suit in the two other hands (as a bit; 0 = void): in misère a lead
                # loses for sure when somebody must play over it, and catches the declarer when his lowest
                # card is over the lead and over the other defender's lowest.
                o1 = h[(mover + 1) % 3] >> sh & 255
                o2 = h[(mover + 2) % 3] >> sh & 255
                low1 = o1 & -o1
                low2 = o2 & -o2
            for r in range(8):
                if not heads >> r & 1:
                    continue
                c = sh + r
                if tlen == 0:
                    if misere:
                        b = 1 << r
                        if mover == declarer:
                            if low1 > b or low2 > b:
                                score = 50 + r  # somebody must go over it: shed the highest such card
                            elif low1 and low2:
                                score = 10 - r
                            elif low1 or low2:
                                score = 5 - r
                            else:
                                score = -r  # nobody can follow: a sure trick for the declarer
                        else:
                            low_d, low_p = (low1, low2) if (mover + 1) % 3 == declarer else (low2, low1)
                            if not low_d:
                                score = 8 - r
                            elif low_d > b and (not low_p or low_p < low_d):
                                score = 68 - r
                            else:
                                score = 28 - r
                    elif (ls & ~(hand >> sh & 255)) >> r == 0:
                        score = 30  # a top card of the suit
                    else:
                        score = 10 - r
                else:
                    beats = self._beats(c, wc)
                    good = ((mover if beats else wp) == declarer) == maxer
                    score = r if dumps_high or (misere and not beats) else 8 - r
                    if good:
                        score += 100
                keys.append((1000 - score) << 5 | c)
        keys.sort()
        moves = [k & 31 for k in keys]
        if first >= 0 and first in moves:
            moves.remove(first)
            moves.insert(0, first)
        return moves

    def _search(self, leader: int, tlen: int, t0: int, t1: int, beta: int) -> bool:
        self.nodes += 1
        if self.nodes > self._budget:
            raise _Abort
        if self._cancel is not None and self.nodes % CANCEL_EVERY == 0 and self._cancel[0]:
            raise _Cancelled
        h = self._h
        mover = (leader + tlen) % 3
        hand = h[mover]
        n = hand.bit_count()
        if beta <= 0:
            return True
        if beta > n:
            return False
        declarer = self._declarer
        key = 0
        first = -1
        if tlen == 0:
            if n == 1:
                w = self._winner(
                    leader,
                    h[leader].bit_length() - 1,
                    h[(leader + 1) % 3].bit_length() - 1,
                    h[(leader + 2) % 3].bit_length() - 1,
                )
                return w == declarer
            # Proven bounds only: the sure tricks of the side on lead (misère: whether this trick is
            # forced on the declarer or can surely be lost), then the table.
            if not self._misere:
                if leader == declarer:
                    if self._sure_tricks(leader) >= beta:
                        return True
                elif n - self._sure_tricks(leader) < beta:
                    return False
            elif (beta == 1 or leader == declarer) and self._misere_trick_forced(leader):
                # Forced on a declarer on lead, it stays forced to the end: he takes every trick.
                return True
            elif beta == n and leader == declarer and self._misere_trick_lost(leader):
                return False
            key = self._key(leader)
            entry = self._tt.get(key)
            if entry is not None:
                if entry & 15 >= beta:
                    return True
                if entry >> 4 & 15 < beta:
                    return False
                if entry >> 8:
                    first = self._card_of(entry >> 8)
        maxer = (mover == declarer) != self._misere
        result = not maxer
        cut = -1
        for c in self._moves(mover, leader, tlen, t0, t1, first):
            h[mover] = hand ^ (1 << c)
            if tlen == 2:
                w = self._winner(leader, t0, t1, c)
                nb = beta - 1 if w == declarer else beta
                # A trick that settles the question needs no search below it.
                r = True if nb <= 0 else False if nb >= n else self._search(w, 0, 0, 0, nb)
            elif tlen == 1:
                r = self._search(leader, 2, t0, c, beta)
            else:
                r = self._search(leader, 1, c, 0, beta)
            h[mover] = hand
            if r == maxer:
                result = r
                cut = c
                break
        if tlen == 0:
            tt = self._tt
            entry = tt.get(key)
            if entry is None:
                lo, hi, move = 0, n, 0
                if len(tt) >= self._limit:
                    tt.clear()
            else:
                lo, hi, move = entry & 15, entry >> 4 & 15, entry >> 8
            if result:
                lo = beta
            else:
                hi = beta - 1
            if cut >= 0:
                move = self._code_of(cut)
            tt[key] = lo | hi << 4 | move << 8
        return result

    def _sure_tricks(self, p: int) -> int:
        """Tricks the player on lead takes by cashing cards no other card can beat (no trumping in).

        In a trump contract a side suit counts only as far as every other hand holding trumps can follow,
        so nobody can trump in; the leader keeps the lead throughout, so the count is a proven bound.
        """
        h = self._h
        own = h[p]
        q1 = h[(p + 1) % 3]
        q2 = h[(p + 2) % 3]
        trump = self._trump
        t_sh = trump << 3
        q1_trumps = trump >= 0 and (q1 >> t_sh & 255) != 0
        q2_trumps = trump >= 0 and (q2 >> t_sh & 255) != 0
        total = 0
        for sh in (0, 8, 16, 24):
            mine = own >> sh & 255
            if not mine:
                continue
            o1 = q1 >> sh & 255
            o2 = q2 >> sh & 255
            other = o1 | o2
            top = mine & ~((1 << other.bit_length()) - 1)
            count = top.bit_count()
            if count and sh != t_sh:
                if q1_trumps:
                    count = min(count, o1.bit_count())
                if q2_trumps:
                    count = min(count, o2.bit_count())
            total += count
        return total

    def _misere_trick_forced(self, leader: int) -> bool:
        """Misère: the declarer must take the trick about to be led.

        Declarer on lead: in every suit he holds, his lowest card is over all the defenders' cards of it.
        A defender on lead: he holds a suit in which the declarer's lowest card is over all the
        defenders' cards (the declarer must follow and win).
        """
        h = self._h
        declarer = self._declarer
        mine = h[declarer]
        theirs = h[(declarer + 1) % 3] | h[(declarer + 2) % 3]
        for sh in (0, 8, 16, 24):
            d = mine >> sh & 255
            o = theirs >> sh & 255
            if leader == declarer:
                if d and (d & -d).bit_length() < o.bit_length():
                    return False
            elif d and h[leader] >> sh & 255 and (d & -d).bit_length() > o.bit_length():
                return True
        return leader == declarer

    def _misere_trick_lost(self, leader: int) -> bool:
        """Misère, declarer on lead: he has a card under every card some defender holds in its suit."""
        h = self._h
        mine = h[leader]
        for q in (h[(leader + 1) % 3], h[(leader + 2) % 3]):
            for sh in (0, 8, 16, 24):
                d = mine >> sh & 255
                o = q >> sh & 255
                if d and o and (d & -d) < (o & -o):
                    return True
        return False

    def _code_of(self, c: int) -> int:
        """A card as 1 + suit * 8 + its order among the suit's cards in play: equal in equal layouts."""
        h = self._h
        sh = c & 24
        live = (h[0] | h[1] | h[2]) >> sh & 255
        return 1 + sh + (live & ((1 << (c & 7)) - 1)).bit_count()

    def _card_of(self, code: int) -> int:
        h = self._h
        sh = (code - 1) & 24
        order = (code - 1) & 7
        live = (h[0] | h[1] | h[2]) >> sh & 255
        for r in range(8):
            if live >> r & 1:
                if order == 0:
                    return sh + r
                order -= 1
        return -1
