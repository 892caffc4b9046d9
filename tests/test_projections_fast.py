"""The batch path of DP-SignOPORP (exactdp/projections/fast.py, native kernel and pure
fallback) against the pure per-vector path: same uniforms in the same order, same bits."""

from __future__ import annotations

import ctypes
import random
from array import array

import pytest

from exactdp.params import ParameterError, ParameterTypeError
from exactdp.projections import Base, DPSignOPORP, OPORPPlan, fast
from exactdp.randomness import SeededSource, SystemSource

PLAN = OPORPPlan.sample(12, 3, SeededSource(3))


def vectors(n: int, p: int, c: int, seed: int) -> list[tuple[int, ...]]:
    rng = random.Random(seed)
    return [tuple(rng.randint(-c, c) for _ in range(p)) for _ in range(n)]


def flat(rows: list[tuple[int, ...]], code: str) -> array:
    return array(code, [v for row in rows for v in row])


@pytest.fixture(params=["native", "pure"])
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "native":
        if not fast.available():
            pytest.skip(f"native kernel: {fast.status()}")
    else:
        monkeypatch.setattr(fast, "_library", lambda: (None, "disabled in this test"))
    return str(request.param)


@pytest.mark.parametrize("base, l_max, beta, smooth", [
    (Base(3, 2), 4, 1, True), (Base(3, 2), 1, 2, False), (Base(19, 7), 5, 3, True),
    (Base(3, 2), 14, 1, True),  # D of more than 64 bits: two limbs in the kernel
])
@pytest.mark.parametrize("code, c", [("b", 3), ("h", 300), ("i", 70000)])
def test_batch_equals_repeated_sample(path: str, base: Base, l_max: int, beta: int,
                                      smooth: bool, code: str, c: int) -> None:
    mech = DPSignOPORP(PLAN, beta, base, l_max, smooth)
    rows = vectors(40, 12, c, 7) + [(0,) * 12]
    got = mech.sample_batch(flat(rows, code), SeededSource(11))
    src = SeededSource(11)
    assert got.tolist() == [list(mech.sample(u, src)) for u in rows]
    assert got.shape == (len(rows), 3)


def test_batch_with_the_system_source_releases_signs(path: str) -> None:
    mech = DPSignOPORP(PLAN, 1, Base(3, 2), 4)
    out = mech.sample_batch(flat(vectors(50, 12, 5, 1), "b"), SystemSource())
    assert {v for row in out.tolist() for v in row} <= {-1, 1}


def test_two_dimensional_numpy_input() -> None:
    np = pytest.importorskip("numpy")
    mech = DPSignOPORP(PLAN, 1, Base(3, 2), 4)
    rows = vectors(5, 12, 5, 2)
    got = mech.sample_batch(np.array(rows, dtype=np.int16), SeededSource(4))
    src = SeededSource(4)
    assert got.tolist() == [list(mech.sample(u, src)) for u in rows]
    with pytest.raises(ParameterError):
        mech.sample_batch(np.zeros((2, 6), dtype=np.int8), SeededSource(4))


@pytest.mark.skipif(not fast.available(), reason="native kernel not built")
def test_native_rejection_keeps_exactly_the_words_below_d() -> None:
    lib = fast._library()[0]
    d = 10
    words = [3, 12, 9, 15, 0, 10, 9]
    rnd = b"".join(w.to_bytes(8, "little") for w in words)
    out = (ctypes.c_uint64 * 4)()
    used = ctypes.c_long(0)
    dl = (ctypes.c_uint64 * 1)(d)
    got = lib.proj_reject(rnd, len(words), 1, 15, dl, out, 4, ctypes.byref(used))
    assert got == 4 and list(out) == [3, 9, 0, 9] and used.value == 7
    # the top limb is masked to bitlen(D) bits: 2^64 - 1 masked to 4 bits is 15, rejected
    got = lib.proj_reject(b"\xff" * 8 + (7).to_bytes(8, "little"), 2, 1, 15, dl, out, 1,
                          ctypes.byref(used))
    assert got == 1 and out[0] == 7 and used.value == 2


@pytest.mark.skipif(not fast.available(), reason="native kernel not built")
def test_system_uniforms_are_the_accepted_masked_words(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = random.Random(5)
    taken: list[bytes] = []

    def fake_urandom(n: int) -> bytes:
        b = stream.randbytes(n)
        taken.append(b)
        return b

    monkeypatch.setattr(fast.os, "urandom", fake_urandom)
    d = 3**45 + 17  # 72 bits: two limbs
    lib = fast._library()[0]
    out = fast._system_uniforms(lib, d, 30, 2)
    got = [out[2 * i] | out[2 * i + 1] << 64 for i in range(30)]
    expected = []
    for chunk in taken:
        for w in range(len(chunk) // 16):
            v = int.from_bytes(chunk[16 * w:16 * w + 16], "little") & ((1 << 72) - 1)
            if v < d and len(expected) < 30:
                expected.append(v)
    assert got == expected[:30] and all(0 <= v < d for v in got)


@pytest.mark.parametrize("data, error", [
    (array("d", [0.0] * 12), ParameterTypeError),
    (array("q", [0] * 12), ParameterTypeError),
    (array("b", [0] * 13), ParameterError),
    (array("b"), ParameterError),
    ([0] * 12, ParameterTypeError),
])
def test_batch_clear_errors(data: object, error: type) -> None:
    with pytest.raises(error):
        DPSignOPORP(PLAN, 1, Base(3, 2), 2).sample_batch(data, SeededSource(1))
