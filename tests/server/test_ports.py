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
    walk.cursor = 0
    first = walk.ports.start
    with socket.socket() as held:
        held.bind(("127.0.0.1", first + 1))  # the second port of the first block
        held.listen()
        base = walk.take(2)
    assert base >= first + 2
    assert base + 1 < walk.ports.stop
