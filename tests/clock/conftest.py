from __future__ import annotations

from dataclasses import dataclass

import pytest


@dataclass
class FakeTime:
    """A fake monotonic time source in milliseconds; the clock itself never reads time."""

    now: int = 1_000_000

    def advance(self, ms: int) -> int:
        self.now += ms
        return self.now


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime()
