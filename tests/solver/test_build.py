"""The compiled kernel is the one in use where CI says it must be (PREFERANS_REQUIRE_COMPILED=1)."""

from __future__ import annotations

import pytest

import app.solver
from tests.solver.conftest import compiled_required


@pytest.mark.skipif(not compiled_required(), reason="PREFERANS_REQUIRE_COMPILED is not set")
def test_compiled_kernel_is_in_use() -> None:
    assert "cython" in app.solver.KERNELS, "the Cython extension app.solver._kernel was not built"
    assert app.solver.IMPLEMENTATION == "cython"


def test_implementation_names_the_kernel() -> None:
    assert app.solver.IMPLEMENTATION in app.solver.KERNELS
    assert set(app.solver.KERNELS) <= {"cython", "python"}
