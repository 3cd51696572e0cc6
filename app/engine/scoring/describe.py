"""One-line human summary of a deal for the sheet's history: the contract and its outcome, as a
tournament sheet notes them beside the writes [K 4.2.11]."""

from __future__ import annotations

from app.engine.result import DealKind, DealResult


def describe(result: DealResult) -> str:
    head = f"dealer {result.dealer}"
    tricks = ""
    if result.tricks is not None:
        tricks = ", tricks " + " ".join(f"{seat}:{n}" for seat, n in sorted(result.tricks.items()))
    if result.kind is DealKind.VOID:
        return f"{head}: void deal (all-pass after a timeout, not played)"
    if result.kind is DealKind.ALLPASS:
        talon = f", talon:{result.talon_tricks}" if result.talon_tricks else ""
        return f"{head}: all-pass{tricks}{talon}"
    contract = result.contract.text if result.contract is not None else "?"
    who = f"seat {result.declarer} {contract}"
    if result.kind is DealKind.ZASTREL:
        return f"{head}: {who} zastrel"
    if result.misere_partner is not None:
        who += f" with seat {result.misere_partner}"
    calls = ""
    if result.calls:
        calls = ", calls " + " ".join(f"{seat}:{call.value}" for seat, call in result.calls)
    play = f", {result.play.value}" if result.play is not None else ""
    played = tricks if result.tricks is not None else ", not played"
    return f"{head}: {who}{calls}{play}{played}"
