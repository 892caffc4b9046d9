"""The C-level fast paths of exactdp.histograms.polymul (_product, floor_divide) and of
ApproxBinDraw (search's batched abs_test events, prefix sums, _check_vector): same values,
plain ints out (no gmpy2 value leaks), the same trace as the step-by-step loop, and a planted
bug in each fast path caught."""

from __future__ import annotations

import random

import pytest

import exactdp.histograms.orderstats as os_mod
import exactdp.histograms.polymul as pm
from exactdp.histograms.orderstats import ApproxBinDraw
from exactdp.trace import record, recording


def _schoolbook(a: list[int], b: list[int], length: int) -> list[int]:
    return [sum(a[i] * b[k - i] for i in range(k + 1) if i < len(a) and k - i < len(b))
            for k in range(length)]


def _vectors() -> list[list[int]]:
    rng = random.Random(11)
    out = [[], [0], [0, 0], [5], [0, 3], [3, 0, 0], [1, 2, 3], [2**64 - 1] * 9,
           [255] * 40, [0, 0, 7, 0]]
    out += [[rng.choice((0, rng.getrandbits(rng.randrange(1, 90)))) for _ in
             range(rng.randrange(1, 14))] for _ in range(40)]
    return out


def _check_products() -> None:
    vecs = _vectors()
    for backend in pm.BACKENDS:
        for a in vecs:
            for length in (0, 1, 3, 9, 16):
                sq = pm.truncated_square(a, length, backend=backend)
                assert sq == _schoolbook(a, a, length)
                assert all(type(v) is int for v in sq)
            for b in vecs[::3]:
                got = pm.truncated_product(a, b, 12, backend=backend)
                assert got == _schoolbook(a, b, 12)
                assert all(type(v) is int for v in got)
        # slots filled to the byte: the carry bits of a long sum must be counted
        a, b = [2**15 - 1] * 200, [2**16 - 1] * 200
        assert pm.truncated_product(a, b, 200, backend=backend) == _schoolbook(a, b, 200)


def _check_floor_divide() -> None:
    values = [0, 1, 7, 8, 2**200 + 3, 3**150]
    for divisor in (1, 2, 3, 8, 2**64, 3**40 + 1):
        got = pm.floor_divide(values, divisor)
        assert got == [v // divisor for v in values]
        assert all(type(v) is int for v in got)


def test_products_and_floor_divide_exact_plain_ints() -> None:
    _check_products()
    _check_floor_divide()


def _reference_search(draw: ApproxBinDraw, u: int) -> int:
    """ApproxBinDraw.search's loop step by step, one record per test (the old code)."""
    found = None
    for width in draw.widths:
        sums = draw.prefix_sums(width)
        for ell in range(width // 2, width):
            record("abs_test")
            if found is None and sums[ell] >= u:
                found = min(ell, draw.t)
                if not draw.padded:
                    return found
    return draw.t if found is None else found


_GRID = [(3, 1, 2, 8, 2), (5, 1, 3, 20, 3), (4, 2, 5, 12, 4), (7, 3, 4, 30, 5),
         (2, 0, 1, 5, 3), (3, 1, 1, 6, 2)]


def _check_search() -> None:
    for m, p, q, s, t in _GRID:
        for padded in (False, True):
            for u in range(1, s + 1):
                runs = []
                for fn in (lambda d, u=u: d.search(u), lambda d, u=u: _reference_search(d, u)):
                    draw = ApproxBinDraw(m, p, q, s, t, padded=padded, shortcuts=False,
                                         exponent_rounds=m.bit_length() if padded else None)
                    with recording() as events:
                        out = fn(draw)
                    runs.append((out, events))
                assert runs[0] == runs[1], (m, p, q, s, t, padded, u)


def _check_prefix() -> None:
    for m, p, q, s, t in _GRID:
        draw = ApproxBinDraw(m, p, q, s, t)
        for width in draw.widths:
            a = ([s - draw.p_prime, draw.p_prime] + [0] * width)[:width]
            conv = os_mod.approx_conv_exp(a, m, s)
            assert draw.prefix_sums(width) == [sum(conv[:k + 1]) for k in range(width)]


def test_search_batched_events_equal_step_by_step() -> None:
    _check_search()
    _check_prefix()


@pytest.mark.parametrize(("owner", "name", "old", "new", "check"), [
    (pm, "_product", "reversed(x)), -1) + 1:]", "reversed(x)), -1):]", _check_products),
    (pm, "_product", "2 * max(x).bit_length() + lx.bit_length()", "2 * max(x).bit_length()",
     _check_products),
    (pm, "_product", "min(lx, ly).bit_length()", "1", _check_products),
    (pm, "_product", "range(width, size + width, width)", "range(width, size, width)",
     _check_products),
    (pm, "_product", "return array(code, raw).tolist()",
     "return array(code, raw).tolist()[1:] + [0]", _check_products),
    (pm, "_product", "if name == \"gmpy2\" and size > _GMP_BYTES:",
     "if name == \"gmpy2\" and size > 0:\n        packed_y += 1", _check_products),
    (pm, "floor_divide", "return list(map(floordiv, map(int, values), repeat(divisor)))",
     "return list(map(floordiv, map(int, values), repeat(divisor + 1)))",
     _check_floor_divide),
    (pm, "floor_divide", "repeat(divisor.bit_length() - 1)", "repeat(divisor.bit_length())",
     _check_floor_divide),
    (ApproxBinDraw, "search", "hit - low + 1", "hit - low", _check_search),
    (ApproxBinDraw, "search", "found = min(hit, self.t)", "found = min(hit + 1, self.t)",
     _check_search),
    (ApproxBinDraw, "prefix_sums", "list(itertools.accumulate(conv))",
     "[0] + list(itertools.accumulate(conv))[:-1]", _check_prefix),
])
def test_planted_fast_path_bugs_caught(monkeypatch: pytest.MonkeyPatch, owner: object,
                                       name: str, old: str, new: str, check: object) -> None:
    from _plant import plant

    check()  # passes as written
    plant(monkeypatch, owner, name, old, new)
    with pytest.raises(AssertionError):
        check()


def test_planted_check_vector_fast_path_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    from _plant import plant
    from test_orderstats import test_approx_conv_exp_bad_input

    test_approx_conv_exp_bad_input()
    plant(monkeypatch, os_mod, "_check_vector", "max(vec) <= s", "max(vec) <= s + 1")
    with pytest.raises(pytest.fail.Exception):
        test_approx_conv_exp_bad_input()


def test_slot_table_machine_widths(monkeypatch: pytest.MonkeyPatch) -> None:
    from array import array

    for need, (size, code) in pm._SLOTS.items():
        assert need <= size and array(code).itemsize == size
    _check_products()
    # a slot narrower than the bytes needed is caught
    monkeypatch.setitem(pm._SLOTS, 3, (2, "H"))
    with pytest.raises((AssertionError, OverflowError)):
        _check_products()
