"""Writes for a trick game, a misère and a zastrel (RULES.md §3.2, §3.3, §5.1–§5.7).

Pure functions of one `DealResult` (already checked by `checks.check_result`) and the conventions.
"""

from __future__ import annotations

from app.engine.conventions import Conventions
from app.engine.result import DealResult
from app.engine.scoring.calls import WhistOutcome, active_seats, whist_outcome
from app.engine.scoring.records import Write, mountain, pool, whists


def game_writes(result: DealResult, conventions: Conventions) -> list[Write]:
    """A trick contract, played or not (§5.1–§5.6)."""
    assert result.declarer is not None and result.contract is not None
    declarer, contract = result.declarer, result.contract
    price, obligation, level = contract.price, contract.obligation, contract.level
    outcome = whist_outcome(result)
    if result.tricks is None:
        # Nobody whisted or a half-whist stood: counted made without play (§4.7).
        writes = [pool(declarer, price, f"{contract.text} made without play")]
        if outcome.half_whister is not None:
            half = obligation // 2
            writes.append(
                whists(
                    outcome.half_whister, declarer, 2 * price * half, f"half-whist: {half} of {obligation}"
                )
            )
        return writes

    defenders = [s for s in active_seats(result.seats, result.dealer) if s != declarer]
    taken = result.tricks[declarer]
    defence = sum(result.tricks[d] for d in defenders)
    down = max(0, level - taken)
    writes = []
    if down == 0:
        writes.append(pool(declarer, price, f"{contract.text} made with {taken}"))
    else:
        writes.append(mountain(declarer, 2 * price * down, f"{contract.text} down {down}"))
    writes += _trick_whists(result, outcome, conventions, defenders, defence=defence, remiz=down > 0)
    if down:
        writes += _consolation(result, outcome, defenders, down)
    if defence < obligation:
        writes += _shortfall(result, outcome, conventions, obligation - defence)
    return writes


def _trick_whists(
    result: DealResult,
    outcome: WhistOutcome,
    conventions: Conventions,
    defenders: list[int],
    *,
    defence: int,
    remiz: bool,
) -> list[Write]:
    assert result.declarer is not None and result.contract is not None and result.tricks is not None
    declarer, price = result.declarer, result.contract.price
    if len(outcome.whisters) == 2:
        return [
            whists(w, declarer, 2 * price * result.tricks[w], f"{_tricks(result.tricks[w])} on whist")
            for w in outcome.whisters
        ]
    (whister,) = outcome.whisters
    if not remiz or outcome.sole_writer:
        why = "sole whister on a remiz (§5.5)" if remiz and outcome.sole_writer else "lone whister"
        return [whists(whister, declarer, 2 * price * defence, f"{_tricks(defence)} of the defence, {why}")]
    passers = [d for d in defenders if d != whister]
    if not conventions.gentleman or not passers:
        return [
            whists(whister, declarer, 2 * price * defence, f"{_tricks(defence)} of the defence, lone whister")
        ]
    # Gentleman whist: on a remiz the whister and the passer share the trick whists (§5.5).
    (passer,) = passers
    share = price * defence  # half of 2P per trick; P is even, so always whole
    return [
        whists(whister, declarer, share, f"half of {_tricks(defence)} of the defence (gentleman)"),
        whists(passer, declarer, share, f"half of {_tricks(defence)} of the defence (gentleman)"),
    ]


def _consolation(result: DealResult, outcome: WhistOutcome, defenders: list[int], down: int) -> list[Write]:
    assert result.declarer is not None and result.contract is not None
    declarer, each = result.declarer, 2 * result.contract.price * down
    writers = [s for s in range(result.seats) if s != declarer]
    if outcome.sole_writer:
        (whister,) = outcome.whisters
        # The returner or the dealer writes the defenders' consolation along with his own (§5.5, [ours]).
        moved = {whister, *defenders}
        writes = [whists(whister, declarer, each * len(moved), f"consolation for {len(moved)}, down {down}")]
        return writes + [
            whists(s, declarer, each, f"consolation, down {down}") for s in writers if s not in moved
        ]
    return [whists(s, declarer, each, f"consolation, down {down}") for s in writers]


def _shortfall(
    result: DealResult, outcome: WhistOutcome, conventions: Conventions, missing: int
) -> list[Write]:
    """Half-responsible whist (§5.4): P per missing trick to the responsible whister's mountain."""
    assert result.contract is not None and result.tricks is not None
    contract, price = result.contract, result.contract.price
    if len(outcome.whisters) == 1:
        (whister,) = outcome.whisters
        return [mountain(whister, price * missing, f"whist short by {missing} on {contract.text}")]
    if contract.level >= conventions.both_responsible_from:
        return [
            mountain(w, price * missing, f"whist short by {missing} on {contract.text}, both responsible")
            for w in outcome.whisters
        ]
    half = contract.obligation // 2
    if contract.obligation % 2:
        # An odd obligation cannot be halved: the second whister answers for it [K 3.8.6].
        second = outcome.whisters[1]
        return [
            mountain(second, price * missing, f"whist short by {missing} on {contract.text}, second whister")
        ]
    return [
        mountain(w, price * (half - result.tricks[w]), f"took {result.tricks[w]} of his half of {half}")
        for w in outcome.whisters
        if result.tricks[w] < half
    ]


def misere_writes(result: DealResult) -> list[Write]:
    """Misère (§5.7): clean → pool +P; else 2P per trick to the mountain; no whists, no consolation.

    Misère for two (§3.3) splits every write 50/50 between the inviter and the dealer; P = 10 keeps the
    halves whole.
    """
    assert result.declarer is not None and result.contract is not None and result.tricks is not None
    declarer, price = result.declarer, result.contract.price
    taken = result.tricks[declarer]
    owners = [declarer] if result.misere_partner is None else [declarer, result.misere_partner]
    share = len(owners)
    what = result.contract.text + (" for two" if share == 2 else "")
    if taken == 0:
        return [pool(s, price // share, f"{what} clean") for s in owners]
    return [mountain(s, 2 * price * taken // share, f"{what}: {_tricks(taken)}") for s in owners]


def zastrel_writes(result: DealResult) -> list[Write]:
    """Zastrel (§3.2): three down without whists, 3·2P to the declarer's mountain, nothing else."""
    assert result.declarer is not None and result.contract is not None
    price = result.contract.price
    return [
        mountain(result.declarer, 3 * 2 * price, f"zastrel on {result.contract.text}: three down, no whists")
    ]


def _tricks(n: int) -> str:
    return f"{n} trick" if n == 1 else f"{n} tricks"
