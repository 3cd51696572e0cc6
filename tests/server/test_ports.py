"""The test servers' ports (`tests.server.ports`): outside the ephemeral range, and a block of them is
skipped when any port in it is taken."""

from __future__ import annotations

import socket

from tests.server.ports import _ephemeral, _own_slice, _Walk


def test_the_slice_lies_outside_the_ephemeral_range() -> None:
    ports = _own_slice()
    low, high = _ephemeral()
    assert ports is not None and len(ports) >= 200
    assert ports.stop <= low or ports.start > high


def test_a_block_with_a_port_in_use_is_skipped() -> None:
    walk = _Walk(_own_slice())
    assert walk.ports is not None
    free = walk.take(2)  # a block free now: its second port is taken below
    walk.cursor = free - walk.ports.start
    with socket.socket() as held:
        held.bind(("127.0.0.1", free + 1))
        held.listen()
        base = walk.take(2)
    assert free + 1 not in (base, base + 1)
    assert walk.ports.start <= base and base + 1 < walk.ports.stop


def test_a_block_that_would_pass_the_slices_end_starts_it_again() -> None:
    walk = _Walk(_own_slice())
    assert walk.ports is not None
    walk.cursor = len(walk.ports) - 1  # one port left: a block of two does not fit
    base = walk.take(2)
    assert walk.ports.start <= base and base + 1 < walk.ports.stop
    assert base < walk.ports.start + len(walk.ports) // 2  # from the start, not past the end
