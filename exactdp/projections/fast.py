"""Many vectors at once through DP-SignOPORP (Algorithm 8): the batch path of
:meth:`exactdp.projections.signs.DPSignOPORP.sample_batch`.

The data is one C-contiguous buffer of ``n * p`` integers (format ``b``, ``h`` or ``i``:
8-, 16- or 32-bit; sums of ``p < 2^31`` of them fit in 64 bits).  For each chunk of vectors:

1. draw the chunk's ``n_c * k`` uniforms on ``[D]_+`` in bit order, ``D`` the flipper's
   common denominator (fixed by the public ``(a, b, L_max)``);
2. project, take levels and decide every bit from its uniform (the same rule as
   :meth:`~exactdp.projections.rr.SmoothFlipper.sample`: flip iff ``U <= N_L``).

Step 1 is ONE ``source.uniform_many(D, n_c * k)`` per chunk (the shared batch draw of
:mod:`exactdp.randomness`): for a :class:`~exactdp.randomness.SystemSource` one read of the OS
CSPRNG for the whole chunk, reduced exactly (rejection, see ``SystemSource.uniform_many``);
for any other source ``n_c * k`` calls of ``source.uniform(D)`` in bit order, exactly the draws
:meth:`DPSignOPORP.sample` makes (so the same outputs).  Strict time: every bit costs one
uniform of the fixed domain ``D``; all uniforms of a chunk are drawn before its data is read,
so how many OS bytes a rejection consumes depends only on ``D`` and the OS bytes, never on the
data; the kernel's loops depend only on ``(n, p, k, limbs)`` and its comparisons scan every
limb.

Step 2 runs in the C kernel ``_projnative.c`` when it is built (``pip install .`` compiles it;
``EXACTDP_NATIVE=0`` disables it), else in Python; both compute the same bits from the same
uniforms (tests/test_projections_fast.py).
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

from exactdp.native_library import load
from exactdp.params import DomainError, ParameterError, ParameterTypeError
from exactdp.randomness import RandomSource, UniformBatch

if TYPE_CHECKING:
    from exactdp.projections.signs import DPSignOPORP

__all__ = ["CHUNK_BITS", "available", "oporp_signs_batch", "status"]

_VERSION = 2
#: Bits (vectors x k) decided per chunk: bounds the memory of the chunk's uniforms.
CHUNK_BITS = 1 << 18
_FORMATS = {"b": 1, "h": 2, "i": 4}
_u64p = ctypes.POINTER(ctypes.c_uint64)


@cache
def _library() -> tuple[ctypes.CDLL | None, str]:
    lib, why = load(__file__, "_projnative", "proj_native_version", _VERSION)
    if lib is None:
        return None, why
    lib.proj_oporp_signs.argtypes = [
        ctypes.c_char_p, ctypes.c_int, ctypes.c_long, ctypes.c_long,
        ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.c_int8), ctypes.c_long,
        ctypes.c_int64, ctypes.c_int, ctypes.c_int, _u64p, ctypes.c_char_p,
        ctypes.POINTER(ctypes.c_int8), ctypes.POINTER(ctypes.c_int64)]
    return lib, why


def available() -> bool:
    """Whether the compiled kernel is present and loadable."""
    return _library()[0] is not None


def status() -> str:
    """One line saying which path the batch release takes, and why."""
    return _library()[1]


def _rows(data: object, p: int) -> tuple[memoryview, int]:
    """``data`` as a flat memoryview of ``n * p`` ints of format b/h/i, and ``n``."""
    try:
        view = memoryview(data)  # type: ignore[arg-type]
    except TypeError:
        raise ParameterTypeError(f"data = {type(data).__name__}: pass a buffer of integers "
                                 f"(array.array or a numpy int8/int16/int32 array)") from None
    fmt = view.format.lstrip("@=<")
    if fmt not in _FORMATS or view.itemsize != _FORMATS[fmt]:
        raise ParameterTypeError(f"data has format {view.format!r} (itemsize {view.itemsize}); "
                                 f"pass 8-, 16- or 32-bit signed integers (formats b, h, i), "
                                 f"e.g. numpy .astype('int32')")
    if not view.c_contiguous:
        raise ParameterError("data must be C-contiguous (numpy: np.ascontiguousarray)")
    flat = view.cast("B").cast(fmt)  # type: ignore[call-overload]
    if view.ndim == 2 and view.shape is not None and view.shape[1] != p:
        raise ParameterError(f"data has rows of {view.shape[1]} values; the plan needs p = {p}")
    if len(flat) % p or not len(flat):
        raise ParameterError(f"data has {len(flat)} values, not a positive multiple of p = {p}")
    return flat, len(flat) // p


def _limbs(value: int, nl: int) -> list[int]:
    return [(value >> (64 * i)) & ((1 << 64) - 1) for i in range(nl)]


def oporp_signs_batch(mech: DPSignOPORP, data: object, source: RandomSource) -> memoryview:
    """The released bits of ``mech`` for every row of ``data`` (see the module docstring):
    a memoryview of format ``b``, shape ``(n, k)``, entries ``±1``."""
    plan, flipper = mech.plan, mech.flipper
    p, k = plan.p, plan.k
    flat, n = _rows(data, p)
    d, thresholds = flipper.denominator, flipper.thresholds
    out = bytearray(n * k)
    per_chunk = max(1, CHUNK_BITS // k)
    lib = _library()[0]
    if not (mech.beta < 1 << 63 and flipper.l_max < 1 << 31):
        lib = None  # the kernel's int64 beta and int L_max: ctypes would cut larger values
    bin_of, sign_of = plan.bin_of, plan.sign_of
    if lib is None:
        unit, level_of = mech.beta, flipper.level
        for start in range(0, n, per_chunk):
            m = min(per_chunk, n - start)
            us = source.uniform_many(d, m * k)
            if not isinstance(us, UniformBatch):
                us = _checked(us, d)
            if len(us) != m * k:
                raise DomainError(f"uniform_many({d}, {m * k}) returned {len(us)} draws")
            for r in range(start, start + m):
                row = flat[r * p:(r + 1) * p]
                x = [0] * k
                for i, v in enumerate(row):
                    x[bin_of[i]] += sign_of[i] * v
                for j, xj in enumerate(x):
                    s = -1 if xj < 0 else 1
                    flip = us[(r - start) * k + j] <= thresholds[level_of(xj, unit)]
                    out[r * k + j] = (-s if flip else s) & 0xFF
        return memoryview(out).cast("b", (n, k))
    c_bins = (ctypes.c_int32 * p)(*bin_of)
    c_signs = (ctypes.c_int8 * p)(*sign_of)
    scratch = (ctypes.c_int64 * k)()
    itemsize = flat.itemsize
    c_out = (ctypes.c_int8 * (n * k)).from_buffer(out)
    c_thr: dict[int, ctypes.Array] = {}  # type: ignore[type-arg]
    for start in range(0, n, per_chunk):
        m = min(per_chunk, n - start)
        us = source.uniform_many(d, m * k)
        if len(us) != m * k:
            raise DomainError(f"uniform_many({d}, {m * k}) returned {len(us)} draws")
        raw, nl = _packed(us, d)
        if nl not in c_thr:  # flip iff U <= N_L iff U < N_L + 1 (N_L + 1 <= D fits)
            c_thr[nl] = (ctypes.c_uint64 * (len(thresholds) * nl))(
                *[limb for t in thresholds for limb in _limbs(t + 1, nl)])
        chunk = flat[start * p:(start + m) * p].tobytes()
        code = lib.proj_oporp_signs(
            chunk, itemsize, m, p, c_bins, c_signs, k, mech.beta, flipper.l_max, nl,
            c_thr[nl], raw,
            ctypes.cast(ctypes.byref(c_out, start * k), ctypes.POINTER(ctypes.c_int8)), scratch)
        if code != 0:
            raise RuntimeError(f"native kernel rejected its sizes (code {code})")
    return memoryview(out).cast("b", (n, k))


def _packed(us: Sequence[int], d: int) -> tuple[bytes, int]:
    """The draws ``us`` (in ``[1, D]``) as little-endian 64-bit limbs, and the limb count: a
    :class:`~exactdp.randomness.UniformBatch` is already packed; a list is packed here."""
    if isinstance(us, UniformBatch):
        if us.d != d:
            raise DomainError(f"uniform_many({d}) returned draws in [1, {us.d}]")
        return us.data, us.words
    nl = -(-d.bit_length() // 64)
    return b"".join(u.to_bytes(8 * nl, "little") for u in _checked(us, d)), nl


def _checked(us: Sequence[int], d: int) -> Sequence[int]:
    """A list of draws from a user's ``uniform_many``, refused if any is outside ``[1, D]``."""
    for u in us:
        if isinstance(u, bool) or not isinstance(u, int) or not 1 <= u <= d:
            raise DomainError(f"uniform_many({d}, ...) returned {u!r:.60}, outside [1, {d}]")
    return us
