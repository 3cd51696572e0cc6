"""Token buckets by key (a client address, an account name) for the REST calls that cost a password hash."""

from __future__ import annotations

import math
from collections import OrderedDict


class KeyedLimiter:
    """``rate`` attempts a second per key, bursts up to ``burst``; at most ``max_keys`` keys remembered
    (the least recently used is forgotten first, so memory stays bounded whatever the keys)."""

    def __init__(self, rate: float, burst: float, max_keys: int = 10_000) -> None:
        self.rate = rate
        self.burst = burst
        self.max_keys = max_keys
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, key: str, now: float) -> float:
        """0 when an attempt is allowed (and counted), else the seconds until the next one is."""
        tokens, stamp = self._buckets.pop(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - stamp) * self.rate)
        allowed = tokens >= 1.0
        if allowed:
            tokens -= 1.0
        self._buckets[key] = (tokens, now)
        while len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)
        return 0.0 if allowed else (1.0 - tokens) / self.rate


def retry_after(seconds: float) -> str:
    """A ``Retry-After`` header value: whole seconds, at least 1."""
    return str(max(1, math.ceil(seconds)))
