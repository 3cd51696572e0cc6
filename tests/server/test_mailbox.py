"""The table actor's mailbox (issue 24): first in first out, a wait ends when a command comes, and a
reader cancelled while it waited leaves nothing behind that a later command would trip on."""

from __future__ import annotations

import asyncio

import pytest

from app.server.tables.mailbox import Mailbox


async def test_commands_come_out_in_the_order_they_went_in() -> None:
    box: Mailbox[int] = Mailbox()
    for n in range(5):
        box.put_nowait(n)
    assert box.qsize() == 5
    assert [box.get_nowait() for _ in range(5)] == [0, 1, 2, 3, 4]
    assert box.empty()
    with pytest.raises(asyncio.QueueEmpty):
        box.get_nowait()


async def test_a_wait_ends_when_a_command_comes_and_not_before() -> None:
    box: Mailbox[str] = Mailbox()
    waiter = box.wait()
    await asyncio.sleep(0)
    assert not waiter.done()
    box.put_nowait("act")
    assert waiter.done()
    await waiter
    assert box.get_nowait() == "act"
    assert box.wait().done() is False  # empty again: the next wait waits


async def test_a_second_reader_waiting_at_once_is_refused() -> None:
    box: Mailbox[str] = Mailbox()
    first = box.wait()
    with pytest.raises(RuntimeError):
        box.wait()  # it would take the first reader's wakeup
    box.put_nowait("x")
    assert first.done()


async def test_a_wait_with_a_command_already_there_is_done_at_once() -> None:
    box: Mailbox[str] = Mailbox()
    box.put_nowait("first")
    assert box.wait().done()


async def test_a_reader_cancelled_while_waiting_does_not_break_the_next_command() -> None:
    box: Mailbox[str] = Mailbox()
    got: list[str] = []

    async def reader() -> None:
        while True:
            if box.empty():
                await box.wait()
            got.append(box.get_nowait())

    task = asyncio.create_task(reader())
    await asyncio.sleep(0)
    task.cancel()
    await asyncio.wait({task})
    box.put_nowait("after")  # the cancelled reader's future is not set again
    assert box.qsize() == 1 and got == []
    again = asyncio.create_task(reader())
    try:
        for _ in range(100):
            if got:
                break
            await asyncio.sleep(0)
        assert got == ["after"]
    finally:
        again.cancel()
        await asyncio.wait({again})
