"""Three and four browsers register, sit from the lobby and play whole deals by clicking (issue 10)."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import Browser

from tests.server.conftest import ADMIN, ServerProcess, login
from tests.web.hidden import assert_no_leak
from tests.web.measure import sideways
from tests.web.site import Observer, Player, assert_sheets_match, open_spectator, play_deal, seat_players


async def _deal_end_checks(players: list[Player], observer: Observer, shots: Path, label: str) -> None:
    sheet = observer.client.sheet
    assert sheet is not None
    await assert_sheets_match(players, sheet)
    for player in players:
        words = await player.page.text_content("[data-result]")
        assert words and words.strip()
        # Usable at 375 px: nothing sticks out sideways.
        wider = await sideways(player.page)
        assert not wider, f"seat {player.seat}: {wider}"
        await player.page.screenshot(path=str(shots / f"{label}-end-seat{player.seat}.png"), full_page=True)


async def test_three_players_play_a_whist_game_a_misere_and_an_all_pass_by_clicking(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    table_id, operator, observer, players = await seat_players(
        browser, sqlite_server, 3, {"pool_size": 30, "deal_time": 120, "reserve_time": 600}, phone_seat=2
    )
    watcher = await open_spectator(browser, sqlite_server, table_id)
    pages = [*players, watcher]
    try:
        assert await watcher.page.locator("[data-hand-seat]").count() == 0  # a spectator sees no hand
        end = await play_deal(pages, observer, "game", artifacts)
        assert end["result"]["type"] == "game" and end["result"]["calls"]
        assert len({seat for seat, c in end["result"]["calls"] if c == "whist"}) == 1  # a lone whister
        assert end["result"]["play"] == "open"
        await _deal_end_checks(pages, observer, artifacts, "game")
        sheet = observer.client.sheet
        assert sheet is not None
        history_lines = len(sheet["history"])

        end = await play_deal(pages, observer, "misere", artifacts)
        assert end["result"]["type"] == "misere"
        # RULES §8: the misère bonus is added to every seat's deal time, and the clocks say so.
        assert any("+300" in note for p in players for note in p.clock_notes), [
            p.clock_notes for p in players
        ]
        await _deal_end_checks(pages, observer, artifacts, "misere")

        end = await play_deal(pages, observer, "allpass", artifacts)
        assert end["result"]["type"] == "allpass"
        await _deal_end_checks(pages, observer, artifacts, "allpass")
        sheet = observer.client.sheet
        assert sheet is not None and len(sheet["history"]) == history_lines + 2

        checked = await assert_no_leak(sqlite_server, table_id, pages)
        assert checked > 200
        for player in pages:
            assert not player.errors, player.errors
    finally:
        await observer.stop()
        await operator.close()


async def test_four_players_dealer_whist_and_misere_for_two_by_clicking(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    """RULES §4.8: both defenders pass, the 4-seat dealer is asked last, looks at a hand and whists, then
    plays the open defender hands from his page; then a misère for two with the dealer (§3.3)."""
    table_id, operator, observer, players = await seat_players(
        browser, sqlite_server, 4, {"pool_size": 30, "deal_time": 120, "reserve_time": 600}, phone_seat=2
    )
    try:
        end = await play_deal(players, observer, "dealer_whist", artifacts)
        result = end["result"]
        assert result["type"] == "game"
        assert [seat for seat, call in result["calls"] if call == "whist"] == [end["result"]["dealer"]]
        await _deal_end_checks(players, observer, artifacts, "dealer-whist")

        # §3.3: misère for two — the first bidder invites the dealer (who sees that hand), who accepts.
        end = await play_deal(players, observer, "invite", artifacts)
        assert end["result"]["type"] == "misere" and end["result"]["partner"] == end["result"]["dealer"]
        await _deal_end_checks(players, observer, artifacts, "invite")
        await assert_no_leak(sqlite_server, table_id, players)
        admin = await login(sqlite_server, ADMIN)
        log = await admin.call("GET", f"/api/admin/tables/{table_id}/log")
        await admin.close()
        kinds = [row["action"]["type"] for row in log["actions"]]
        assert "dealer_look" in kinds and "invite_dealer" in kinds and "answer_invitation" in kinds
        for player in players:
            assert not player.errors, player.errors
    finally:
        await observer.stop()
        await operator.close()
