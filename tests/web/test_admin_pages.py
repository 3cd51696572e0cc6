"""The operator's and the administrator's pages (issue 11): one main flow each, clicked in Chromium."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import Browser, Page

from tests.server.conftest import ADMIN, OPERATOR, PASSWORD, ServerProcess, login
from tests.server.test_archive import interrupted_in_play
from tests.web.site import open_player, sit_from_lobby


async def logged_in(
    browser: Browser, server: ServerProcess, name: str, route: str, password: str = PASSWORD
) -> tuple[Page, list[str]]:
    """A page logged in as ``name`` on ``route``, and the list its uncaught errors go to."""
    context = await browser.new_context(viewport={"width": 1280, "height": 1000})
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    await page.goto(f"{server.url}/#/login")
    await page.fill("#login-name", name)
    await page.fill("#login-password", password)
    await page.click("[data-action=login]")
    await page.wait_for_selector("[data-lobby]")
    await page.click(f"[data-nav={route}]")
    return page, errors


async def test_an_operator_creates_a_room_a_bad_override_is_shown_beside_its_field(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    page, errors = await logged_in(browser, sqlite_server, OPERATOR, "operator")
    await page.wait_for_selector("[data-operator][data-loaded=true] [data-room-form]")
    await page.fill("#room-name", "Club Neva")
    await page.fill("#room-pool_size", "-5")
    await page.fill("#room-deal_time", "30")
    await page.click("[data-action=create-room]")
    error = page.locator("[data-field-error=pool_size]")
    await error.wait_for()
    assert "pool_size" in (await error.text_content() or "")
    assert await page.locator("[data-op-room]").count() == 0  # nothing was created
    await page.screenshot(path=str(artifacts / "bad-override.png"), full_page=True)
    await page.fill("#room-pool_size", "10")
    await page.click("[data-action=create-room]")
    room = page.locator("[data-op-room]")
    await room.wait_for()
    assert "pool_size=10" in (await room.text_content() or "")
    assert await page.locator("[data-field-error]").count() == 0
    # Edit the room: a bad override is refused beside the field, a good one is saved.
    await page.click("[data-action=edit-room]")
    await page.fill("[data-room-edit] input[name=overrides]", '{"pool_size": 0}')
    await page.click("[data-action=save-room]")
    await page.wait_for_selector("[data-field-error=edit-overrides]")
    await page.fill("[data-room-edit] input[name=overrides]", '{"pool_size": 12}')
    await page.click("[data-action=save-room]")
    await page.wait_for_selector("[data-op-room]:has-text('pool_size=12')")
    await page.click("[data-op-room] [data-action=open-table][data-seats='3']")
    table = page.locator("[data-op-table][data-status=waiting]")
    await table.wait_for()
    table_id = await table.get_attribute("data-op-table")
    # Robots fill the seats (their REST route), the game starts; the operator stops it with a reason (§7.7).
    operator = await login(sqlite_server, OPERATOR)
    try:
        for seat in range(3):
            await operator.call("POST", f"/api/tables/{table_id}/robots", {"seat": seat, "level": "random"})
    finally:
        await operator.close()
    await page.reload()
    await page.wait_for_selector(f"[data-op-table='{table_id}'][data-status=playing]")
    await page.screenshot(path=str(artifacts / "room.png"), full_page=True)
    await page.fill(f"[data-stop-reason='{table_id}']", "the club closes")
    await page.click(f"[data-action=stop-table][data-table='{table_id}']")
    await page.wait_for_selector(f"[data-op-game='{table_id}']")
    assert await page.locator(f"[data-op-table='{table_id}']").count() == 0
    assert errors == []


async def test_an_admin_finds_an_interrupted_deal_previews_confirms_and_revises_an_award(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    table, _ = await interrupted_in_play(sqlite_server)
    try:
        page, errors = await logged_in(browser, sqlite_server, ADMIN, "admin")
        await page.wait_for_selector("[data-admin-archive]")
        await page.fill("#archive-table", str(table.id))
        await page.click("[data-action=filter]")
        await page.wait_for_selector("[data-archive-total='1']")
        await page.click("[data-archive-deal] a")
        await page.wait_for_selector("[data-admin-deal][data-deal-status=awaiting]")
        assert await page.locator("[data-judge-hand] [data-card]").count() == 30
        assert await page.locator("[data-judge-trick]").count() >= 1
        await page.wait_for_selector("[data-suggestion=position]")
        await page.fill("#award-reason", "the solver's line")
        await page.click("[data-action=preview]")
        await page.wait_for_selector("[data-preview=finished] [data-sheet]")
        await page.screenshot(path=str(artifacts / "preview.png"), full_page=True)
        await page.click("[data-action=confirm]")
        await page.wait_for_selector("[data-award-revision='1']")
        await page.wait_for_selector("[data-admin-deal][data-deal-status=awarded]")
        # A revision: one trick moves between the declarer and a defender.
        declarer = await page.locator("[data-judge-hand]", has_text="(").get_attribute("data-judge-hand")
        others = [
            seat
            for seat in await page.locator("[data-award-seat]").evaluate_all(
                "inputs => inputs.map(i => i.dataset.awardSeat)"
            )
            if seat != declarer
        ]
        giver = page.locator(f"[data-award-seat='{declarer}']")
        taker = page.locator(f"[data-award-seat='{others[0]}']")
        if int(await giver.input_value()) == 0:
            giver, taker = taker, giver
        await giver.fill(str(int(await giver.input_value()) - 1))
        await taker.fill(str(int(await taker.input_value()) + 1))
        await page.fill("#award-reason", "one trick conceded")
        await page.click("[data-action=preview]")
        await page.wait_for_selector("[data-preview]")
        await page.click("[data-action=confirm]")
        await page.wait_for_selector("[data-award-revision='2']")
        assert "one trick conceded" in (await page.locator("[data-award-revision='2']").text_content() or "")
        revised = await page.locator("[data-settlement]").last.text_content()
        await page.screenshot(path=str(artifacts / "revised.png"), full_page=True)

        # The players' game page shows the final result: the settlement after the revision.
        await page.goto(f"{sqlite_server.url}/#/games/{table.id}")
        await page.wait_for_selector("[data-game-page] [data-status=finished]")
        assert await page.locator("[data-settlement]").text_content() == revised

        # The game's admin page: a judge's sanction written into the sheet, then revoked by a new entry.
        await page.goto(f"{sqlite_server.url}/#/admin/tables/{table.id}")
        await page.wait_for_selector(
            "#sanction-violation option[value='dealer-looked-at-talon']", state="attached"
        )
        await page.select_option("#sanction-violation", "dealer-looked-at-talon")
        await page.click("[data-action=impose]")
        await page.wait_for_selector("[data-field-error=reason]")  # the reason is required
        await page.fill("#sanction-reason", "saw the talon")
        await page.click("[data-action=impose]")
        await page.wait_for_selector("[data-field-error=violation]")  # an offline entry needs the override
        await page.check("#sanction-offline")
        await page.click("[data-action=impose]")
        await page.wait_for_selector("[data-sanction][data-revoked=false]")
        await page.wait_for_selector("[data-sheet]")
        await page.fill("[data-revoke-reason]", "misread")
        await page.click("[data-action=revoke]")
        await page.wait_for_selector("[data-sanction][data-revoked=true]")
        assert errors == []
    finally:
        await table.close()


async def test_an_operator_makes_a_private_room_invites_players_who_sit_and_a_stranger_is_refused(
    sqlite_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    """Issue 11: a private room with overrides (a bad one shown beside its field, then a good one), a table
    opened, a player invited by name and one by an invite link sit; a stranger is refused in the page, and
    shut out once spectating is closed; a revoked link grants nothing."""
    page, errors = await logged_in(browser, sqlite_server, OPERATOR, "operator")
    await page.wait_for_selector("[data-operator][data-loaded=true] [data-room-form]")
    await page.fill("#room-name", "Club Fontanka")
    await page.fill("#room-pool_size", "0")
    await page.check("#room-private")
    await page.click("[data-action=create-room]")
    await page.locator("[data-field-error=pool_size]").wait_for()
    assert await page.locator("[data-op-room]").count() == 0  # nothing was created
    await page.fill("#room-pool_size", "10")
    assert await page.is_checked("#room-private")  # the form kept its choice through the refusal
    await page.click("[data-action=create-room]")
    privacy = page.locator("[data-privacy][data-private=true]")
    await privacy.wait_for()
    room_id = await privacy.get_attribute("data-privacy")
    assert "pool_size=10" in (await page.locator(f"[data-op-room='{room_id}']").text_content() or "")
    await page.click(f"[data-op-room='{room_id}'] [data-action=open-table][data-seats='3']")
    table = page.locator("[data-op-table][data-status=waiting]")
    await table.wait_for()
    table_id = int(await table.get_attribute("data-op-table") or 0)

    invited, linked, stranger, late = [await open_player(browser, sqlite_server) for _ in range(4)]
    # Invite by name: an unknown name is refused beside the field; a real one is listed.
    await page.fill(f"[data-invite-user='{room_id}']", "nobody-by-this-name")
    await page.click(f"[data-privacy='{room_id}'] [data-action=invite-user]")
    refusal = page.locator(f"[data-field-error='invite-{room_id}']")
    await refusal.wait_for()
    assert "nobody-by-this-name" in (await refusal.text_content() or "")
    await page.fill(f"[data-invite-user='{room_id}']", invited.name)
    await page.click(f"[data-privacy='{room_id}'] [data-action=invite-user]")
    await page.wait_for_selector(f"[data-invited='{invited.name}']")
    await page.click(f"[data-privacy='{room_id}'] [data-action=create-link]")
    link_field = page.locator("[data-invite-link]")
    await link_field.wait_for()
    link = await link_field.input_value()
    assert link.startswith(f"{sqlite_server.url}/#/invite/")
    await page.screenshot(path=str(artifacts / "private-room.png"), full_page=True)

    # The invited player sits from the lobby; the link's holder opens it, lands at the table and sits there.
    await sit_from_lobby(invited, table_id, 0)
    await linked.page.goto(link)
    await linked.page.wait_for_selector(f"[data-table='{table_id}'][data-version]")
    await linked.page.click("[data-action=sit][data-seat='1']")
    await linked.page.wait_for_selector(f"[data-table='{table_id}'][data-my-seat='1']")

    # The stranger sees the room marked, is offered no seat in the lobby, and is refused at the table.
    lobby = stranger.page
    await lobby.reload()
    marked = lobby.locator(f"[data-room='{room_id}'][data-private=true][data-may-sit=false]")
    await marked.wait_for()
    assert await marked.locator("[data-action=sit]").count() == 0
    await lobby.click(f'[data-action=watch][data-table="{table_id}"]')
    await lobby.wait_for_selector(f"[data-table='{table_id}'][data-version]")
    await lobby.click("[data-action=sit][data-seat='2']")
    await lobby.wait_for_selector("[data-notice][data-notice-code=not_invited]")
    assert await lobby.locator("[data-my-seat='']").count() == 1  # still a spectator
    await lobby.screenshot(path=str(artifacts / "stranger-refused.png"), full_page=True)

    # Spectating closed: the stranger's table page is shut out, and says why.
    await page.uncheck(f"[data-privacy='{room_id}'] [data-action=toggle-spectators]")
    await page.wait_for_selector(
        f"[data-privacy='{room_id}'] [data-action=toggle-spectators]:not(:checked)", state="attached"
    )
    await lobby.wait_for_selector("[data-table] [data-notice][data-notice-code=private_room]")

    # A revoked link grants nothing: its page shows the server's refusal.
    await page.click(f"[data-privacy='{room_id}'] [data-action=revoke-link]")
    await page.wait_for_selector("[data-link][data-revoked=true]")
    await late.page.goto(link)
    await late.page.wait_for_selector("[data-invite-error=invite_revoked]")

    await page.reload()
    seats = page.locator(f"[data-op-table='{table_id}']")
    await seats.wait_for()
    text = await seats.text_content() or ""
    assert invited.name in text and linked.name in text and stranger.name not in text
    listed = page.locator(f"[data-privacy='{room_id}'] [data-invited]")
    assert sorted(await listed.evaluate_all("els => els.map(e => e.dataset.invited)")) == sorted(
        [invited.name, linked.name]
    )
    for player in (invited, linked, stranger, late):
        assert player.errors == [], player.errors
    assert errors == []
