"""The lazy draw chain's optional C accelerator (``_cdraw.c``) and whether it is in use.

The comparisons of :class:`~exactdp.audit.facade_lazy.LazyUnit` with an int or a finite
float, the exploring source's coin behind them (:meth:`GuardedSource.explore_coin
<exactdp.audit.per_input.GuardedSource.explore_coin>`,
:meth:`~exactdp.explore.ExploringSource.explore_coin`), the ``random()`` and
``randrange(n)`` of the facade of ``random``
(:meth:`~exactdp.audit.facade_random.RandomFacade.random`) and the facades' plain integer
draws through the draw engine's ``draw(n)`` (the numpy facade's ``integers(n)`` and
``choice`` of a list or tuple: :class:`~exactdp.audit.facade_numpy.NumpyFacade`) are
written twice, with the same rules: in Python (the reference, used everywhere else and
whenever the C one is not) and in C, for CPython 3.11, where a draw compared once costs a
few C calls instead of a dozen Python frames.  Every case the C code does not handle itself
is handed to the Python code before anything is changed, so both give the same answers,
cells, coins and records; the tests compare them.

``EXACTDP_NATIVE=0`` (every optional kernel) or ``EXACTDP_CDRAW=0`` (this one) in the
environment at import selects the Python code.
"""

from __future__ import annotations

from typing import Any

from exactdp.audit.bytecode import gettrace, settrace

__all__ = ["C", "available", "status"]

_VERSION = 2


def _load() -> tuple[Any, str]:
    from exactdp.native_library import load_module

    module, why = load_module(__file__, "_cdraw", _VERSION, switch="EXACTDP_CDRAW")
    if module is not None:
        module.setup_trace(gettrace, settrace)
    return module, why


#: the C module, or None (the Python code is used)
C, _STATUS = _load()


def available() -> bool:
    """Whether the lazy draw chain runs in C (else in Python: the same results, slower)."""
    return C is not None


def status() -> str:
    """Which draw chain is in use, and why not the C one."""
    return _STATUS
