from __future__ import annotations

import os

import pytest

from app.solver import KERNELS

# Every solver test runs against both kernels; without a compiler only the pure one exists, and CI
# (PREFERANS_REQUIRE_COMPILED=1) fails in test_build.py instead of skipping.
IMPLEMENTATIONS = sorted(KERNELS)


@pytest.fixture(params=IMPLEMENTATIONS)
def implementation(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


def compiled_required() -> bool:
    return os.environ.get("PREFERANS_REQUIRE_COMPILED", "") not in ("", "0")
