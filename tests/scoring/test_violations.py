"""The seed 001 violation catalogue and judges' sanctions written into the pulya (RULES.md §11)."""

from __future__ import annotations

import json

import pytest

from app.engine.scoring import ScoreSheet
from app.engine.scoring.catalogue import catalogue_json
from app.engine.scoring.violations import (
    BY_KEY,
    CATALOGUE,
    Effect,
    Role,
    SanctionError,
    apply_sanction,
    revoke_sanction,
)
from app.table.fourth import join_sheet
from tests.scoring.helpers import WHIST, allpass, game, misere, sheet_after


def test_catalogue_lists_every_seed_001_row_with_seed_002_overrides() -> None:
    """§11: the 28 rows of seed 001's table (12 dealing, 5 bidding, 4 contract, 7 play) are kept as data,
    plus seed 002's all-pass penalties; keys are unique and every entry has a penalty for some role."""
    seed001 = [v for v in CATALOGUE if v.source == "seed 001"]
    assert len(seed001) == 28
    assert len(BY_KEY) == len(CATALOGUE)
    assert all(v.penalties for v in CATALOGUE)
    by_phase = {
        phase: sum(v.phase == phase for v in seed001) for phase in ("dealing", "bidding", "contract", "play")
    }
    assert by_phase == {"dealing": 12, "bidding": 5, "contract": 4, "play": 7}
    overrides = {
        v.key: v.penalties[Role.PLAYER] for v in CATALOGUE if v.source == "seed 002" and v.phase == "play"
    }
    assert {p.effect for p in overrides.values()} == {Effect.EXTRA_TRICKS}
    assert {p.amount for p in overrides.values()} == {2}


def test_catalogue_as_json_for_the_judges_screen() -> None:
    """§11: the catalogue serialises with each role's penalty and whether it can be written."""
    data = json.loads(json.dumps(catalogue_json()))
    signals = next(entry for entry in data if entry["key"] == "signals")
    assert signals["online"] is True
    assert signals["penalties"]["whister"]["effect"] == "down-tricks"
    assert signals["penalties"]["whister"]["expressible"] is True


def test_physical_table_entries_are_marked_and_refused_online() -> None:
    """§11: violations impossible online (the server deals and validates) are listed with online=False and
    refused unless the judge insists; signals between whisters remain possible online."""
    assert not BY_KEY["dealer-looked-at-talon"].online
    assert BY_KEY["signals"].online
    sheet = sheet_after(game(2, 0, "6s", [(1, WHIST), (2, WHIST)], {0: 6, 1: 2, 2: 2}))
    with pytest.raises(SanctionError, match="online"):
        apply_sanction(sheet, "dealer-looked-at-talon", Role.DEALER, 2)


def test_two_points_to_mountain() -> None:
    """Seed 001 «Посмотрел прикуп» (dealer): 2 points to the dealer's mountain, with an audit line."""
    sheet = sheet_after(game(2, 0, "6s", [(1, WHIST), (2, WHIST)], {0: 6, 1: 2, 2: 2}))
    after = apply_sanction(
        sheet, "dealer-looked-at-talon", Role.DEALER, 2, judge="chief judge", note="seen", allow_offline=True
    )
    assert after.mountains == (0, 0, 2)
    line = after.history[-1]
    assert line.kind == "sanction"
    assert "chief judge" in line.summary
    assert "dealer-looked-at-talon" in line.summary


def test_whister_without_one_for_signals() -> None:
    """Seed 001 «Лишние слова, жесты, знаки» (whister, repeated): without one on 7♠ (P=4): the whister's
    mountain + P·1 = 4 (half-responsible write, §5.4)."""
    sheet = sheet_after(game(2, 0, "7s", [(1, WHIST), (2, WHIST)], {0: 7, 1: 2, 2: 1}))
    after = apply_sanction(sheet, "signals", Role.WHISTER, 1, deal=0)
    assert after.mountains == (0, 4, 0)


def test_declarer_without_two_writes_remiz_and_consolation() -> None:
    """Seed 001 «Количество карт» (declarer): without two on 8♦ (P=6): mountain 2·6·2 = 24 and each other
    player writes 24 consolation."""
    sheet = sheet_after(game(2, 0, "8d", [(1, WHIST), (2, WHIST)], {0: 8, 1: 1, 2: 1}))
    after = apply_sanction(
        sheet, "wrong-card-count-at-contract", Role.DECLARER, 0, deal=0, allow_offline=True
    )
    assert after.mountains[0] - sheet.mountains[0] == 24
    assert after.whists[1][0] - sheet.whists[1][0] == 24
    assert after.whists[2][0] - sheet.whists[2][0] == 24


def test_whists_of_the_damage() -> None:
    """Seed 001 «Посмотрел прикуп» (player): the damage is written as whists on the offender."""
    sheet = sheet_after(game(2, 0, "6s", [(1, WHIST), (2, WHIST)], {0: 6, 1: 2, 2: 2}))
    after = apply_sanction(
        sheet, "looked-at-talon-in-bidding", Role.PLAYER, 0, damage={1: 20, 2: 10}, allow_offline=True
    )
    assert after.whists[1][0] - sheet.whists[1][0] == 20
    assert after.whists[2][0] - sheet.whists[2][0] == 10
    with pytest.raises(SanctionError, match="damage"):
        apply_sanction(sheet, "looked-at-talon-in-bidding", Role.PLAYER, 0, allow_offline=True)


def test_declarer_loses_a_trick() -> None:
    """Seed 001 «Увидел не последнюю взятку» (declarer loses a trick): 6♠ made with exactly 6 against two
    whisters (2 and 2) becomes 5 / 3 / 2 with the trick going to the first whister. Before: pool 2, whists
    8 and 8. After: mountain 2·2·1 = 4, whists 3·4 + 4 = 16 and 2·4 + 4 = 12. Written: pool −2,
    mountain +4, whists +8 and +4."""
    sheet = sheet_after(game(2, 0, "6s", [(1, WHIST), (2, WHIST)], {0: 6, 1: 2, 2: 2}))
    after = apply_sanction(sheet, "saw-earlier-trick", Role.PLAYER, 0, deal=0, allow_offline=True)
    assert after.pools == (0, 0, 0)
    assert after.mountains == (4, 0, 0)
    assert (after.whists[1][0], after.whists[2][0]) == (16, 12)


def test_allpass_extra_tricks_cancel_the_write_off() -> None:
    """Seed 002 (all-pass out-of-turn lead): the 11th and 12th tricks at step 1 (price 2) for a player who
    took none: his −4 write-off becomes 2·2 = +4, a change of +8."""
    sheet = sheet_after(allpass(2, {0: 0, 1: 6, 2: 4}))
    after = apply_sanction(sheet, "allpass-lead-out-of-turn", Role.PLAYER, 0, deal=0, allow_offline=True)
    assert after.mountains == (4, 12, 8)


def test_misere_adds_a_trick() -> None:
    """Seed 001: on misère the trick is added: a clean misère (pool 10) becomes one trick, mountain 20."""
    sheet = sheet_after(misere(1, 2, {2: 0, 0: 5, 1: 5}))
    after = apply_sanction(sheet, "saw-earlier-trick", Role.PLAYER, 2, deal=0, allow_offline=True)
    assert after.pools == (0, 0, 0)
    assert after.mountains == (0, 0, 20)


def test_procedural_penalties_write_nothing_and_are_refused() -> None:
    """§11: a redeal or an exposed card cannot be written into the record."""
    sheet = sheet_after(game(2, 0, "6s", [(1, WHIST), (2, WHIST)], {0: 6, 1: 2, 2: 2}))
    with pytest.raises(SanctionError, match="writes nothing"):
        apply_sanction(sheet, "exposed-card-in-deal", Role.DEALER, 2, allow_offline=True)
    with pytest.raises(SanctionError, match="role"):
        apply_sanction(sheet, "signals", Role.DECLARER, 0, deal=0)


def test_a_sanction_written_at_three_is_revoked_on_the_seat_its_player_holds_after_a_fourth_joined() -> None:
    """§11 with §7.7: 2 points on seat 2's mountain at three; a fourth joins left of dealer 0, so that player
    sits at 3 (the newcomer writes the mountains' average, rounded up: 1). Revoking the stored line takes
    the 2 points off seat 3, not off the player now at seat 2."""
    sheet = sheet_after(game(2, 0, "6s", [(1, WHIST), (2, WHIST)], {0: 6, 1: 2, 2: 2}))
    sanctioned = apply_sanction(
        sheet, "dealer-looked-at-talon", Role.DEALER, 2, judge="j", note="seen", allow_offline=True
    )
    stored = sanctioned.history[-1]
    four = join_sheet(sanctioned, 0, "newcomer")
    assert four.mountains == (0, 1, 0, 2)
    revoked = revoke_sanction(four, stored, judge="j", reason="mistaken")
    assert revoked.mountains == (0, 1, 0, 0)


def test_a_revocation_that_cannot_tell_the_numbering_apart_is_refused() -> None:
    """The same sanction written before and after the join: the stored line cannot say which seat it meant."""
    sheet = sheet_after(game(2, 0, "6s", [(1, WHIST), (2, WHIST)], {0: 6, 1: 2, 2: 2}))

    def sanction(s: ScoreSheet) -> ScoreSheet:
        return apply_sanction(s, "dealer-looked-at-talon", Role.DEALER, 2, judge="j", allow_offline=True)

    before = sanction(sheet)
    after = sanction(join_sheet(before, 0, "newcomer"))
    with pytest.raises(SanctionError, match="fourth joined"):
        revoke_sanction(after, before.history[-1], judge="j", reason="which one?")
