"""Lookup tables shared by both solver kernels (built once at import, identical in both).

Masks are per suit, 8 bits, bit r = rank r (7 = bit 0 … A = bit 7). ``live`` is the set of cards of one
suit still in play (in a hand or in the current trick), ``cards`` a subset of it held by one player.
"""

from __future__ import annotations

from typing import Final


def _compress(live: int, cards: int) -> int:
    """Relabel ``cards`` by their order among ``live`` (a bit-gather): equal layouts get equal keys."""
    out = 0
    j = 0
    for r in range(8):
        if live >> r & 1:
            if cards >> r & 1:
                out |= 1 << j
            j += 1
    return out


def _run_heads(live: int, cards: int) -> int:
    """The lowest card of every run of ``cards`` that no other live card separates.

    Two cards of one hand with no other player's live card between them win and lose exactly the same
    tricks, so the search plays only one of them.
    """
    out = 0
    inside = False
    for r in range(8):
        if live >> r & 1:
            if cards >> r & 1:
                if not inside:
                    out |= 1 << r
                inside = True
            else:
                inside = False
    return out


# Indexed [live << 8 | cards]; entries for cards not a subset of live are never read.
COMPRESS: Final[tuple[int, ...]] = tuple(_compress(i >> 8, i & 255) for i in range(65536))
RUN_HEADS: Final[tuple[int, ...]] = tuple(_run_heads(i >> 8, i & 255) for i in range(65536))
