"""The hidden-information audit itself must be able to fail: a leaking view is caught."""

from __future__ import annotations

import pytest

from app.engine import DealState, TableState, views
from app.engine.__main__ import run_random
from app.engine.audit import cards_in
from app.engine.cards import Card


def test_cards_in_finds_cards_in_keys_values_and_encoded_text() -> None:
    found = cards_in({"sA": ["hT", {"x": "d7"}], "n": 10, "text": "not a card sA"})
    assert found == {Card.parse("sA"), Card.parse("hT"), Card.parse("d7")}
    assert cards_in('{"hand": ["cK"]}') == {Card.parse("cK")}


def test_audit_catches_a_view_that_shows_the_declarers_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    """§12: the declarer's hand is never shown to others during play; a view that did so is reported."""
    honest = views.visible_hands

    def leaky(state: TableState, deal: DealState, viewer: int | None) -> dict[int, list[str]]:
        shown = honest(state, deal, viewer)
        if deal.declarer is not None:
            shown[deal.declarer] = [c.text for c in deal.hands[deal.declarer]]
        return shown

    monkeypatch.setattr(views, "visible_hands", leaky)
    stats = run_random(3, 20, seed=1)
    assert stats["errors"] > 0 and "shows" in stats["error_samples"][0]


def test_random_games_claim_and_the_views_show_only_the_claimers_hand() -> None:
    """§4.10, §12: in random games with claims (accepted, rejected, void), every view shows the declarer's
    hand only once he claimed, and nothing else."""
    stats = run_random(3, 60, seed=5)
    assert stats["claims"] > 0 and stats["errors"] == 0, stats


def test_audit_catches_a_claim_view_that_shows_more_than_the_claimers_hand(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A view that, during a claim, also showed each defender the other's closed hand is reported."""
    honest = views.visible_hands

    def leaky(state: TableState, deal: DealState, viewer: int | None) -> dict[int, list[str]]:
        shown = honest(state, deal, viewer)
        if deal.claim is not None:
            for seat in deal.active:
                shown[seat] = [c.text for c in deal.hands[seat]]
        return shown

    monkeypatch.setattr(views, "visible_hands", leaky)
    stats = run_random(3, 60, seed=5)
    assert stats["claims"] > 0 and stats["errors"] > 0
    assert any("claim" in sample for sample in stats["error_samples"])
