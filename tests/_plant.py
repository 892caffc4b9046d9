"""The planting helpers shared by the tests that show a check failing on a planted bug.

:func:`plant` takes a function's source, replaces one expression (which must occur exactly
once, so the test breaks loudly if the line changes), compiles it in the function's own module
namespace and monkeypatches it into every module that holds the original -- what editing the
source line would do.  :func:`build_planted_c` does the same for a C extension's source: a
mutated copy compiled beside the test.
"""

from __future__ import annotations
import __future__

import inspect
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

__all__ = ["build_planted_c", "plant"]


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


def build_planted_c(source: Path, tmp_path: Path, old: str, new: str) -> Path | None:
    """The C file ``source`` with ``old`` (which must occur exactly once) replaced by ``new``,
    compiled in ``tmp_path`` as an extension module of the same name; its path (None: no
    compiler or Python headers here)."""
    text = source.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    copy = tmp_path / source.name
    copy.write_text(text.replace(old, new), encoding="utf-8")
    include = sysconfig.get_paths()["include"]
    gcc = shutil.which("gcc")
    if gcc is None or not (Path(include) / "Python.h").is_file():
        return None
    target = tmp_path / f"{source.stem}{sysconfig.get_config_var('EXT_SUFFIX')}"
    subprocess.run([gcc, "-shared", "-fPIC", "-O1", f"-I{include}", str(copy), "-o",
                    str(target)], check=True, capture_output=True)
    return target
