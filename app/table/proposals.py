"""The pulya's life outside the deal (RULES.md §7.7): proposals, answers, an adjournment — as pure values.

A seated player proposes to settle now, to adjourn, or to be replaced by a named substitute; every other
seated player accepts or declines (a decline ends the proposal); the proposer may withdraw it while it is
open. A substitute must accept too. An operator's or administrator's decision (``reason``) needs no
consents. A table has at most one open proposal. What an agreed proposal does, and when, is the table
step's (`app.table.step`): it takes effect when the deal in progress ends, at once between deals or while
adjourned, and one still open when the next deal starts lapses. Answering is not a move: no clock runs
for it. This module holds the bookkeeping only.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from app.protocol.codes import ErrorCode
from app.table.errors import TableRefused


class ProposalKind(StrEnum):
    SETTLE = "settle"  # end the pulya now "by agreement", settled by §7.2–§7.5
    ADJOURN = "adjourn"  # stop between deals, every clock frozen, until all say "ready"
    SUBSTITUTE = "substitute"  # a registered user not at the table takes the seat from the next deal
    JOIN = "join"  # a fourth player joins three from the next deal (convention `fourth_may_join`)


@dataclass(frozen=True, slots=True)
class Person:
    """A user named in a proposal (the substitute, and the seat's holder he replaces)."""

    user_id: int
    name: str

    def to_json(self) -> dict[str, Any]:
        return {"user_id": self.user_id, "name": self.name}

    @staticmethod
    def from_json(data: dict[str, Any]) -> Person:
        return Person(int(data["user_id"]), str(data["name"]))


@dataclass(frozen=True, slots=True)
class Proposal:
    """An open or agreed proposal. ``by``: the proposing seat (None: an operator's decision, ``reason``
    given, which needs no consents); ``deal``: the deal in progress when it was made (0: none yet);
    ``accepted``: the seats that accepted (the proposer's included); ``seat``/``holder``/``substitute``:
    a substitution's seat, its holder now and who takes it; ``newcomer``: who asks to join three (he
    is not seated, so ``by`` is None; he consents by asking)."""

    kind: ProposalKind
    by: int | None
    deal: int
    accepted: frozenset[int] = frozenset()
    seat: int | None = None
    holder: Person | None = None
    substitute: Person | None = None
    substitute_accepted: bool = False
    reason: str | None = None
    newcomer: Person | None = None

    def agreed(self, seats: int) -> bool:
        """Everyone whose consent it needs has given it (an operator's decision needs none)."""
        if self.reason is not None:
            return True
        if len(self.accepted) < seats:
            return False
        return self.kind is not ProposalKind.SUBSTITUTE or self.substitute_accepted

    def to_json(self) -> dict[str, Any]:
        """Stored with the table and shown to everyone at it (nothing in it is hidden, §12)."""
        return {
            "kind": self.kind.value,
            "by": self.by,
            "deal": self.deal,
            "accepted": sorted(self.accepted),
            "seat": self.seat,
            "holder": None if self.holder is None else self.holder.to_json(),
            "substitute": None if self.substitute is None else self.substitute.to_json(),
            "substitute_accepted": self.substitute_accepted,
            "reason": self.reason,
            "newcomer": None if self.newcomer is None else self.newcomer.to_json(),
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> Proposal:
        holder, substitute, newcomer = data.get("holder"), data.get("substitute"), data.get("newcomer")
        return Proposal(
            kind=ProposalKind(data["kind"]),
            by=None if data.get("by") is None else int(data["by"]),
            deal=int(data["deal"]),
            accepted=frozenset(int(s) for s in data.get("accepted", ())),
            seat=None if data.get("seat") is None else int(data["seat"]),
            holder=None if holder is None else Person.from_json(holder),
            substitute=None if substitute is None else Person.from_json(substitute),
            substitute_accepted=bool(data.get("substitute_accepted", False)),
            reason=data.get("reason"),
            newcomer=None if newcomer is None else Person.from_json(newcomer),
        )


@dataclass(frozen=True, slots=True)
class Adjournment:
    """An adjourned pulya: since when (wall-clock ms: `adjourn_limit` counts across restarts) and the
    seats that have said "ready"."""

    since_wall_ms: int
    ready: frozenset[int] = frozenset()

    def to_json(self) -> dict[str, Any]:
        return {"since_wall_ms": self.since_wall_ms, "ready": sorted(self.ready)}

    @staticmethod
    def from_json(data: dict[str, Any]) -> Adjournment:
        return Adjournment(int(data["since_wall_ms"]), frozenset(int(s) for s in data.get("ready", ())))


# ------------------------------------------------------------------------------------------ bookkeeping


def propose(
    current: Proposal | None,
    kind: ProposalKind,
    seat: int,
    deal: int,
    *,
    holder: Person | None = None,
    substitute: Person | None = None,
    seated: tuple[int, ...] = (),
) -> Proposal:
    """A seated player's new proposal (refused while another is open: at most one per table)."""
    if current is not None:
        raise TableRefused(ErrorCode.PROPOSAL_OPEN, "another proposal is open at this table")
    if kind is ProposalKind.JOIN:
        raise TableRefused(ErrorCode.INVALID_PROPOSAL, "a fourth player asks to join; the seated do not")
    if kind is ProposalKind.SUBSTITUTE:
        if substitute is None or holder is None:
            raise TableRefused(ErrorCode.INVALID_PROPOSAL, "name the substitute")
        if substitute.user_id in seated:
            raise TableRefused(ErrorCode.INVALID_PROPOSAL, "the substitute must not sit at this table")
        return Proposal(kind, seat, deal, frozenset({seat}), seat, holder, substitute)
    if substitute is not None:
        raise TableRefused(ErrorCode.INVALID_PROPOSAL, f"a {kind.value} proposal names no substitute")
    return Proposal(kind, seat, deal, frozenset({seat}))


def ask_to_join(current: Proposal | None, newcomer: Person, deal: int, seated: tuple[int, ...]) -> Proposal:
    """A user not seated asks to join the three (§7.7): a proposal each seated player answers."""
    if current is not None:
        raise TableRefused(ErrorCode.PROPOSAL_OPEN, "another proposal is open at this table")
    if newcomer.user_id in seated:
        raise TableRefused(ErrorCode.ALREADY_SEATED, "you already sit at this table")
    return Proposal(ProposalKind.JOIN, None, deal, newcomer=newcomer)


def decree(
    kind: ProposalKind,
    deal: int,
    reason: str,
    *,
    seat: int | None = None,
    holder: Person | None = None,
    substitute: Person | None = None,
    seated: tuple[int, ...] = (),
) -> Proposal:
    """An operator's or administrator's decision: agreed without consents, with its reason (§7.7)."""
    if not reason.strip():
        raise TableRefused(ErrorCode.INVALID_PROPOSAL, "an operator's decision needs a reason")
    if kind is ProposalKind.JOIN:  # §7.7: a fourth joins with the three players' consent, never by decree
        raise TableRefused(ErrorCode.INVALID_PROPOSAL, "a fourth player joins only with the players' consent")
    if kind is ProposalKind.SUBSTITUTE:
        if seat is None or holder is None or substitute is None:
            raise TableRefused(ErrorCode.INVALID_PROPOSAL, "name the seat and the substitute")
        if substitute.user_id in seated:
            raise TableRefused(ErrorCode.INVALID_PROPOSAL, "the substitute must not sit at this table")
    return Proposal(kind, None, deal, frozenset(), seat, holder, substitute, True, reason[:500])


def answer(current: Proposal | None, seat: int, accept: bool) -> Proposal | None:
    """A seated player's answer: the proposal with his consent, or None when he declined (it ends)."""
    if current is None or current.reason is not None:
        raise TableRefused(ErrorCode.NO_PROPOSAL, "no proposal awaits your answer")
    if seat in current.accepted:
        raise TableRefused(ErrorCode.NO_PROPOSAL, "you have already accepted it")
    return replace(current, accepted=current.accepted | {seat}) if accept else None


def substitute_answer(current: Proposal | None, user_id: int, accept: bool) -> Proposal | None:
    """The named substitute's answer (he is not seated): his consent, or None when he declined."""
    if (
        current is None
        or current.kind is not ProposalKind.SUBSTITUTE
        or current.substitute is None
        or current.substitute.user_id != user_id
        or current.substitute_accepted
    ):
        raise TableRefused(ErrorCode.NO_PROPOSAL, "no proposal awaits your answer")
    return replace(current, substitute_accepted=True) if accept else None


def withdraw_join(current: Proposal | None, user_id: int, seats: int) -> None:
    """The newcomer withdraws his asking to join (never once all three have accepted)."""
    if current is None or current.newcomer is None or current.newcomer.user_id != user_id:
        raise TableRefused(ErrorCode.NO_PROPOSAL, "you have no open proposal to withdraw")
    if current.agreed(seats):
        raise TableRefused(ErrorCode.PROPOSAL_AGREED, "an accepted proposal cannot be withdrawn")


def withdraw(current: Proposal | None, seat: int, seats: int) -> None:
    """The proposer withdraws his proposal (never one already agreed)."""
    if current is None or current.by != seat:
        raise TableRefused(ErrorCode.NO_PROPOSAL, "you have no open proposal to withdraw")
    if current.agreed(seats):
        raise TableRefused(ErrorCode.PROPOSAL_AGREED, "an accepted proposal cannot be withdrawn")


def substitution_line(proposal: Proposal, after_deal: int) -> str:
    """The sheet's history line of a substitution (§7.7)."""
    assert proposal.holder is not None and proposal.substitute is not None
    names = f"{proposal.holder.name} → {proposal.substitute.name}"
    return f"seat {proposal.seat}: {names} after deal {after_deal}"
