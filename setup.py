"""Build the optional compiled solver kernel (``app/solver/_kernel.pyx`` -> ``app.solver._kernel``).

Without a C compiler (or Cython) the install still succeeds and ``app.solver`` uses its pure-Python twin.
Set ``PREFERANS_STRICT_BUILD=1`` (CI does) to make a failed build fail the install instead.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

STRICT = os.environ.get("PREFERANS_STRICT_BUILD", "") not in ("", "0")


class OptionalBuildExt(build_ext):
    """Builds the extension, and in non-strict mode reports a failure and carries on without it."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:
            self._skip(exc)

    def build_extension(self, ext: Any) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:
            self._skip(exc)

    def _skip(self, exc: Exception) -> None:
        if STRICT:
            raise exc
        print(
            f"WARNING: the compiled solver was not built ({exc!r}); app.solver uses the pure-Python kernel",
            file=sys.stderr,
        )


def extensions() -> list[Any]:
    try:
        from Cython.Build import cythonize
    except ImportError:
        if STRICT:
            raise
        print("WARNING: Cython is missing; app.solver will use the pure-Python kernel", file=sys.stderr)
        return []
    from setuptools import Extension

    ext = Extension(
        "app.solver._kernel",
        ["app/solver/_kernel.pyx"],
        extra_compile_args=["-O3"] if sys.platform != "win32" else [],
    )
    try:
        return list(cythonize([ext], language_level=3, quiet=True))
    except Exception as exc:
        if STRICT:
            raise
        print(f"WARNING: cythonize failed ({exc!r}); using the pure-Python kernel", file=sys.stderr)
        return []


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
