"""Chooses the search kernel at import: the compiled one unless missing or ``PREFERANS_PURE_SOLVER=1``."""

from __future__ import annotations

import os
from typing import Protocol

from app.solver.cancel import CancelToken

PURE_ENV = "PREFERANS_PURE_SOLVER"


class KernelLike(Protocol):
    nodes: int

    def run(  # noqa: PLR0917 - the kernels' hot entry point takes plain positional values
        self,
        hands: tuple[int, int, int],
        trump: int,
        misere: bool,
        declarer: int,
        leader: int,
        trick: tuple[int, ...],
        mode: int,
        beta: int,
        node_budget: int,
        cancel: CancelToken | None,
    ) -> tuple[int, list[tuple[int, int]]]: ...

    def clear(self) -> None: ...


class KernelFactory(Protocol):
    def __call__(self, table_limit: int = ...) -> KernelLike: ...


def _pure_factory() -> KernelFactory:
    from app.solver._pure import Kernel

    return Kernel


def _compiled_factory() -> KernelFactory | None:
    try:
        from app.solver._kernel import Kernel
    except ImportError:
        return None
    factory: KernelFactory = Kernel
    return factory


KERNELS: dict[str, KernelFactory] = {"python": _pure_factory()}
_compiled = _compiled_factory()
if _compiled is not None:
    KERNELS["cython"] = _compiled

IMPLEMENTATION: str = (
    "cython" if "cython" in KERNELS and os.environ.get(PURE_ENV, "") in ("", "0") else "python"
)
