"""The planting helper shared by the tests that show a verify row failing on a planted bug.

:func:`plant` takes a function's source, replaces one expression (which must occur exactly
once, so the test breaks loudly if the line changes), compiles it in the function's own module
namespace and monkeypatches it into every module that holds the original -- what editing the
source line would do.
"""

from __future__ import annotations
import __future__

import inspect
import sys
import textwrap
from types import ModuleType
from typing import Any

import pytest

__all__ = ["plant"]


def plant(monkeypatch: pytest.MonkeyPatch, owner: type | ModuleType, name: str, old: str,
          new: str) -> None:
    """Replace ``old`` by ``new`` in the source of ``owner.name`` and patch it in."""
    attr = inspect.getattr_static(owner, name)
    wrap = type(attr) if isinstance(attr, (classmethod, staticmethod)) else None
    target: Any = attr.__func__ if wrap is not None else attr
    func: Any = inspect.unwrap(target)  # an lru_cache'd function: plant its uncached body
    src = textwrap.dedent(inspect.getsource(func))
    assert src.count(old) == 1, f"{old!r} does not occur exactly once in {func.__qualname__}"
    lines = src.replace(old, new).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("def "))
    body = textwrap.indent("\n".join(lines[start:]), "    ")
    # The enclosing function supplies the __class__ cell that zero-argument super() needs.
    code = f"def _planted(__class__):\n{body}\n    return {func.__name__}\n"
    namespace: dict[str, Any] = {}
    exec(compile(code, f"<planted {func.__qualname__}>", "exec",  # noqa: S102
                 flags=__future__.annotations.compiler_flag, dont_inherit=True),
         func.__globals__, namespace)
    planted = namespace["_planted"](owner if isinstance(owner, type) else None)
    if isinstance(owner, type):
        monkeypatch.setattr(owner, name, planted if wrap is None else wrap(planted))
        return
    for module in list(sys.modules.values()):  # every `from m import f` binding
        for key, value in list(vars(module).items()) if module is not None else ():
            if value is target:
                monkeypatch.setattr(module, key, planted)
