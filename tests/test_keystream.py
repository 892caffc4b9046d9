"""The keystream source: ChaCha20 bytes keyed from the OS, exact draws from them, the flag."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp import keystream
from exactdp.fastsample import FastSample
from exactdp.keystream import KeystreamSource, KeystreamUnavailableError, release_source
from exactdp.params import ParameterError
from exactdp.randomness import ByteSource, SystemSource, plain_byte_source

pytestmark = pytest.mark.skipif(not keystream.available(), reason="cryptography missing")
ROOT = Path(__file__).resolve().parents[1]

# RFC 8439 appendix A.1, test vector 1: the ChaCha20 block of the all-zero key and nonce at
# block counter 0 (an expected value from the RFC, not from the code under test).
RFC8439_A1 = bytes.fromhex(
    "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
    "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586")


def test_the_bytes_are_the_chacha20_keystream_of_the_os_key(monkeypatch):
    monkeypatch.setattr(keystream.os, "urandom", lambda k: bytes(k))
    src = KeystreamSource()
    assert src.random_bytes(10) + src.random_bytes(54) == RFC8439_A1


def test_a_new_key_per_source_and_per_rekey():
    a, b = KeystreamSource(), KeystreamSource()
    assert a.random_bytes(32) != b.random_bytes(32)
    first = a.random_bytes(32)
    a.rekey()
    assert a.random_bytes(32) != first


def test_a_forked_child_rekeys(monkeypatch):
    src = KeystreamSource()
    keys = []
    monkeypatch.setattr(keystream.os, "urandom", lambda k: keys.append(k) or bytes(k))
    src.random_bytes(8)
    assert keys == []  # same process: the stream goes on
    monkeypatch.setattr(keystream.os, "getpid", lambda: -1)
    src.random_bytes(8)
    assert keys == [32]


def test_rekeyed_after_rekey_bytes(monkeypatch):
    monkeypatch.setattr(keystream, "REKEY_BYTES", 100)
    src = KeystreamSource()
    keys = []
    monkeypatch.setattr(keystream.os, "urandom", lambda k: keys.append(k) or bytes(k))
    src.random_bytes(60)
    src.random_bytes(60)  # 120 > 100: a fresh key first
    assert keys == [32]
    assert len(src.random_bytes(250)) == 250  # longer than one key's bytes: in pieces


class _Bytes(ByteSource):
    """A byte source reading a given byte string (to enumerate every byte value)."""

    def __init__(self, data: bytes) -> None:
        self.data, self.read = data, 0

    def random_bytes(self, k: int) -> bytes:
        out = self.data[self.read:self.read + k]
        assert len(out) == k, "read past the planted bytes"
        self.read += k
        return out


@pytest.mark.parametrize("d", [*range(1, 41), 255, 256, 257, 1000, 65535])
def test_uniform_is_exact_given_uniform_bytes(d):
    """Every accepted value of the ceil(K/8) bytes read maps to one u, each u of [d]_+ by
    the same number of byte strings; a rejected string reads again."""
    size = (d.bit_length() + 7) // 8
    hits: Counter[int] = Counter()
    rejected = 0
    for r in range(256 ** size):
        src = _Bytes(r.to_bytes(size, "little") + (0).to_bytes(size, "little"))
        u = src.uniform(d)
        assert 1 <= u <= d
        if src.read == size:
            hits[u] += 1
        else:
            rejected += 1
            assert u == 1  # the planted second read is zero
    assert set(hits) == set(range(1, d + 1))
    assert len(set(hits.values())) == 1
    assert rejected < 256 ** size / 2 + 1  # K bits kept: acceptance above 1/2


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 2**300), st.integers(0, 5))
def test_keystream_batches_lie_in_the_domain(d, k):
    src = KeystreamSource()
    us = list(src.uniform_many(d, k))
    assert len(us) == k and all(1 <= u <= d for u in us)
    assert 1 <= src.uniform(d) <= d


def test_release_source_names(monkeypatch):
    assert type(release_source("os")) is SystemSource
    assert type(release_source("keystream")) is KeystreamSource
    assert type(release_source()) is KeystreamSource
    with pytest.raises(ParameterError, match="must be one of auto, keystream, os"):
        release_source("fast")
    monkeypatch.setattr(keystream, "_cipher", lambda: None)
    assert type(release_source("auto")) is SystemSource  # the fallback
    with pytest.raises(KeystreamUnavailableError, match="cryptography"):
        release_source("keystream")


def test_plain_byte_sources_only():
    class Counting(SystemSource):
        pass

    assert plain_byte_source(SystemSource()) is not None
    assert plain_byte_source(KeystreamSource()) is not None
    assert plain_byte_source(Counting()) is None


def test_fastsample_one_draw_and_batches_with_the_keystream():
    mech = FastSample(20, "1/2", "1/8")
    src = KeystreamSource()
    assert 0 <= mech.sample(5, src) <= 20
    assert all(0 <= z <= 20 for z in mech.sample_many([0, 5, 20] * 50, src))


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "exactdp.cli", *args], cwd=ROOT, check=False,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("choice", ["auto", "keystream", "os"])
def test_cli_random_source(choice):
    run = _cli("sample", "fastsample", "--n", "10", "--epsilon", "1/2", "--count", "3",
               "--gamma", "1/1000", "--draws", "3",
               "--json", "--random-source", choice)
    assert run.returncode == 0, run.stderr
    values = json.loads(run.stdout)["values"]
    assert len(values) == 3 and all(0 <= int(v) <= 10 for v in values)


def test_cli_random_source_refuses_an_unknown_name():
    run = _cli("sample", "fastsample", "--n", "10", "--epsilon", "1/2", "--count", "3",
               "--random-source", "fast")
    assert run.returncode == 2 and "Traceback" not in run.stderr
