"""The optional native path of CompactHistogram's polynomial arithmetic (``_gf2native.c``).

CompactHistogram's field for ``|X| = 2**64`` has ``2**39366`` elements: interpolating a
polynomial of degree ``10**4`` over it is out of reach in Python (about an hour with the
pure path of :mod:`exactdp.histograms.fields`).  The C file ``_gf2native.c``, compiled when
the package is installed (``pip install .`` needs only ``gcc``; the build is optional and a
failure leaves the pure path), does it in seconds because the interpolation nodes lie in a
small subfield ``K = GF(2**(2 * 3**k))`` of ``L`` (:func:`exactdp.histograms.fields.embed`):

* interpolation over ``L`` is ``[L : K] = 3**(l-k)`` independent interpolations over ``K``
  (one per coordinate of the values in the basis ``1, t, ..., t**(s-1)`` of ``L`` over
  ``K``), sharing one subproduct tree, each ``O(M(N) log N)`` with Karatsuba products in
  ``K[X]`` ([vzGG13] Sections 10.1-10.3);
* multiplication by a node is ``s`` products in ``K``, with PCLMULQDQ.

The library is loaded with :mod:`ctypes` (it includes no ``Python.h``).  The native and the
pure path compute the same thing -- the unique interpolating polynomial, the same Horner
value -- by different algorithms, and ``tests/test_native.py`` checks that they agree.
``EXACTDP_NATIVE=0`` in the environment disables the native path; ``EXACTDP_THREADS``
caps its threads (default: the CPU count).

Interrupts.  Python runs signal handlers only in the main thread, between bytecodes, so a
Ctrl-C during a long C call would wait for the call to end (half a minute for ``n = 10**4``
over ``GF(2**39366)``).  Each call therefore runs in a helper thread (:func:`_call`) while the
main thread waits in slices of :data:`POLL_SECONDS`; an exception raised there by a signal
handler (``KeyboardInterrupt``, an alarm's timeout) sets the call's cancellation flag, which
the C code polls at fixed points of its schedule (never at data-dependent ones), waits for
the call to return (well within a second), and propagates unchanged.  The flag is read only;
an uninterrupted call returns exactly what it would without it.
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Callable, Sequence
from functools import cache

from exactdp.native_library import load
from exactdp.params import DomainError, ParameterError, ResourceLimitError

__all__ = ["MAX_BYTES", "CoordinateTable", "available", "interpolate", "status", "supports"]

#: Elements of K up to this many 64-bit words (K of level <= 5, 486 bits).
_MAX_WORDS = 8
_VERSION = 2
#: The C entry points' return value when the cancellation flag was set.
_CANCELLED = -3
#: How often (seconds) the main thread wakes while a native call runs, to run signal handlers.
POLL_SECONDS = 0.05  # float-ok: a wait timeout for threading.Event, never data
#: Calls estimated below this many products in K run directly in the calling thread: they
#: take milliseconds, and a helper thread (~0.1 ms) would dominate the many tiny
#: interpolations of the proofs.  The estimate depends only on the sizes, never the data.
_DIRECT_WORK = 1 << 16
_PARALLEL_WORK = 1 << 14
#: Working-memory limit of one native call, in bytes.
MAX_BYTES = 1 << 34
_u64p = ctypes.POINTER(ctypes.c_uint64)
_intp = ctypes.POINTER(ctypes.c_int)


@cache
def _library() -> tuple[ctypes.CDLL | None, str]:
    lib, why = load(__file__, "_gf2native", "gf2_native_version", _VERSION)
    if lib is None:
        return None, why
    if not lib.gf2_cpu_ok():
        return None, "this CPU lacks PCLMULQDQ/SSE4.1"
    lib.gf2_interpolate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, _u64p, _u64p,
                                    _u64p, ctypes.c_int, _intp]
    lib.gf2_to_table.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, _u64p, _u64p,
                                 ctypes.c_int, _intp]
    lib.gf2_evaluate_table.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, _u64p, _u64p,
                                       _u64p, ctypes.c_int, _intp]
    return lib, why


def available() -> bool:
    """Whether the compiled library is present, loadable and usable on this CPU."""
    return _library()[0] is not None


def status() -> str:
    """One line saying which path CompactHistogram's arithmetic takes, and why."""
    return _library()[1]


def supports(sub_degree: int) -> bool:
    """Whether the native path handles nodes in ``K = GF(2**sub_degree)``."""
    return available() and -(-sub_degree // 64) <= _MAX_WORDS


def _threads(work: int) -> int:
    """Threads for a job of ``work`` products in ``K`` per step: one for small jobs (thread
    start-up would dominate), else ``EXACTDP_THREADS`` or the CPU count."""
    if work < _PARALLEL_WORK:
        return 1
    try:
        return max(1, int(os.environ.get("EXACTDP_THREADS", "0")) or (os.cpu_count() or 1))
    except ValueError:
        return os.cpu_count() or 1


def _words(values: Sequence[int], bits: int,
           in_range: bool = False) -> ctypes.Array[ctypes.c_uint64]:
    """``values`` (ints in ``[0, 2**bits)``) as consecutive little-endian runs of
    ``ceil(bits / 64)`` 64-bit words; one word each (``bits <= 64``): the array is built
    from the ints directly (the same words; an int outside ``[0, 2**64)`` takes the bytes
    path, which refuses it as before).  ``in_range``: the caller has checked that every
    value lies in ``[0, 2**bits)`` (not checked again)."""
    if bits <= 64 and values and (in_range or (0 <= min(values) and max(values) >> 64 == 0)):
        return (ctypes.c_uint64 * len(values))(*values)  # (ctypes would wrap others)
    width = 8 * -(-bits // 64)
    data = b"".join(v.to_bytes(width, "little") for v in values)
    return (ctypes.c_uint64 * (len(data) // 8)).from_buffer_copy(data)


def _ints(buffer: ctypes.Array[ctypes.c_uint64], count: int, bits: int) -> list[int]:
    """The inverse of :func:`_words` for ``count`` elements of ``bits`` bits."""
    if bits <= 64:
        return buffer[:count]
    width = 8 * -(-bits // 64)
    raw = bytes(buffer)
    return [int.from_bytes(raw[i * width:(i + 1) * width], "little") for i in range(count)]


def _lib() -> ctypes.CDLL:
    lib, why = _library()
    if lib is None:
        raise RuntimeError(f"the native path is unavailable: {why}")
    return lib


_ENTRIES: dict[tuple[int, str], Callable[..., int]] = {}


def _entry(name: str) -> Callable[..., int]:
    """The C entry point ``name`` of the loaded library as a function pointer without
    ``argtypes``: the three callers below pass exactly the C types of its parameters
    (Python ints for ``int``, ``ctypes.c_long`` for ``long``, ``uint64`` arrays for the
    element pointers, ``byref``/``pointer`` for the flag), which skips ctypes' conversion
    of every argument (about 2.4 us a call, most of a small interpolation's time).  The
    declared prototypes of :func:`_library` stay for other callers."""
    lib = _lib()
    key = (id(lib), name)  # the pointer keeps its library alive: the id is not reused
    fn = _ENTRIES.get(key)
    if fn is None:
        fn = lib[name]  # a new pointer object, not the attribute that carries argtypes
        fn.restype = ctypes.c_int
        _ENTRIES[key] = fn
    return fn


def _check(code: int, what: str) -> None:
    if code == _CANCELLED:
        # Only _call sets the flag, and it re-raises the interrupt instead of returning.
        raise RuntimeError(f"native {what} was cancelled")
    if code != 0:
        raise RuntimeError(f"native {what} rejected its sizes (code {code})")


def _call(function: Callable[..., int], work: int, *args: object) -> int:
    """``function(*args, flag)`` for a C entry point whose last parameter is a cancellation
    flag, run so that signals are handled while it runs (see the module docstring).

    ``work`` estimates the call's products in ``K`` from its sizes.  In the main thread, a
    call of at least :data:`_DIRECT_WORK` runs in a helper thread and the main thread waits
    for it in slices of :data:`POLL_SECONDS`.  Whatever a signal handler raises meanwhile
    (``KeyboardInterrupt``, ...) sets the flag; the C code stops at its next poll and this
    waits for it (so that no thread is left writing into buffers), then re-raises the
    exception unchanged.  Smaller calls, and calls from other threads (signals reach only
    the main thread), are direct."""
    flag = ctypes.c_int(0)
    if work < _DIRECT_WORK or threading.current_thread() is not threading.main_thread():
        return int(function(*args, ctypes.byref(flag)))
    outcome: list[int] = []
    failure: list[BaseException] = []
    done = threading.Event()

    def target() -> None:
        try:
            outcome.append(int(function(*args, ctypes.pointer(flag))))
        except BaseException as exc:  # noqa: BLE001 - handed to the calling thread
            failure.append(exc)
        finally:
            done.set()

    # Completion is signalled by an Event, not read from Thread.join: a join interrupted by
    # a signal handler marks the thread stopped while it still runs (CPython bpo-45274).
    helper = threading.Thread(target=target, name="exactdp-native", daemon=True)
    helper.start()
    try:
        while not done.wait(POLL_SECONDS):
            pass
    except BaseException:
        flag.value = 1
        _await(done, helper)
        raise
    helper.join()
    if failure:
        raise failure[0]
    return outcome[0]


def _await(done: threading.Event, helper: threading.Thread) -> None:
    """Wait for a cancelled call to return (within a second: the C code polls its flag), so
    that no C code outlives the call, and for its thread to end; a further interrupt
    meanwhile is ignored (the first one is being re-raised)."""
    while not done.is_set() or helper.is_alive():
        try:
            if done.is_set():
                helper.join(POLL_SECONDS)
            else:
                done.wait(POLL_SECONDS)
        except BaseException:  # noqa: BLE001, S110 - a second Ctrl-C: keep waiting
            pass


def _check_memory(count: int, degree: int, sub_degree: int) -> None:
    """Refuse jobs whose working memory (values, coefficients, their byte copies and the
    coordinate table) exceeds :data:`MAX_BYTES`: the C code aborts on a failed allocation."""
    words = -(-degree // 64)
    need = count * 8 * (4 * words + (degree // sub_degree) * -(-sub_degree // 64))
    if need > MAX_BYTES:
        raise ResourceLimitError(f"the native path would need about {need >> 20} MiB for "
                                 f"{count} elements of GF(2^{degree}); the limit is "
                                 f"{MAX_BYTES >> 20} MiB (exactdp.histograms.native.MAX_BYTES)")


def interpolate(degree: int, sub_degree: int, nodes: Sequence[int],
                values: Sequence[int]) -> list[int]:
    """The coefficients (lowest first) of the ``p`` of degree ``< N`` over ``GF(2**degree)``
    with ``p(embed(nodes[i])) = values[i]``, for ``N`` distinct ``nodes`` given as elements
    of ``K = GF(2**sub_degree)`` (bit strings in ``K``'s own model) and ``values`` in ``L``."""
    count = len(nodes)
    if count == 0 or len(values) != count:
        raise ParameterError(f"{count} nodes and {len(values)} values: need as many, >= 1")
    if len(set(nodes)) != count:
        raise ParameterError("interpolation nodes must be distinct")
    if not (0 <= min(nodes) and max(nodes) < 1 << sub_degree):
        raise DomainError(f"a node is not an element of GF(2^{sub_degree})")
    if not (0 <= min(values) and max(values) < 1 << degree):
        raise DomainError(f"a value is not an element of GF(2^{degree})")
    _check_memory(count, degree, sub_degree)
    out = (ctypes.c_uint64 * (count * -(-degree // 64)))()
    s = degree // sub_degree
    # P'(x_i) for every node (count**2 / 2), then s interpolations over K
    _check(_call(_entry("gf2_interpolate"), count * (count + s), degree, sub_degree,
                 ctypes.c_long(count),
                 _words(nodes, sub_degree, True), _words(values, degree, True), out,
                 _threads(count * s)), "interpolation")
    return _ints(out, count, degree)


class CoordinateTable:
    """The coefficients of a polynomial over ``L`` as coordinates over ``K`` (``N * s``
    elements of ``K``), built once; :meth:`evaluate` at an element of ``K`` is then ``N - 1``
    Horner steps of ``s`` products in ``K`` each."""

    def __init__(self, degree: int, sub_degree: int, coefficients: Sequence[int]) -> None:
        self.degree = degree
        self.sub_degree = sub_degree
        self.count = len(coefficients)
        _check_memory(self.count, degree, sub_degree)
        s = degree // sub_degree
        self._table = (ctypes.c_uint64 * (self.count * s * -(-sub_degree // 64)))()
        _check(_call(_entry("gf2_to_table"), self.count * s, degree, sub_degree,
                     ctypes.c_long(self.count),
                     _words(coefficients, degree), self._table, _threads(self.count * s)),
               "coordinate table")

    def evaluate(self, node: int) -> int:
        """``p(embed(node))`` for ``node`` an element of ``K`` (``K``'s own model)."""
        if not 0 <= node < 1 << self.sub_degree:
            raise DomainError(f"{node} is not an element of GF(2^{self.sub_degree})")
        out = (ctypes.c_uint64 * -(-self.degree // 64))()
        s = self.degree // self.sub_degree
        _check(_call(_entry("gf2_evaluate_table"), self.count * (s + 1), self.degree,
                     self.sub_degree, ctypes.c_long(self.count), self._table,
                     _words([node], self.sub_degree), out, _threads(self.count * s)),
               "evaluation")
        return _ints(out, 1, self.degree)[0]
