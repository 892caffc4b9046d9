"""Random bytes at stream-cipher speed: a ChaCha20 keystream under a 256-bit key from the OS.

:class:`KeystreamSource` is a :class:`~exactdp.randomness.ByteSource`: every draw is made from
its bytes exactly as :class:`~exactdp.randomness.SystemSource` makes it from the OS's (rejection
on whole bytes, the same reductions), so each sampler's output law is the one the checker
certifies *given uniform bytes*.  Only where the bytes come from changes:

* the key: 32 bytes from ``os.urandom`` when the source is created, again after every
  :data:`REKEY_BYTES` bytes of output, on :meth:`KeystreamSource.rekey`, and in a child
  process after ``fork`` (so that a parent and a child never share a keystream);
* the bytes: ChaCha20 (RFC 8439's cipher, from the ``cryptography`` package's OpenSSL
  binding; never a cipher written here) encrypting zeros under that key, nonce 0 -- the
  keystream itself.

What the security rests on: that ChaCha20 under a uniformly random secret key is a
pseudorandom generator (no feasible test tells its output from uniform bytes), that the OS
key is uniform and secret, and that nobody reads this process's memory.  The first is the
same assumption the Linux kernel's own random-number generator rests on (it expands its
entropy pool with ChaCha20).  The differential privacy of a release made with these bytes
is then computational: against every feasible observer it is the certified guarantee up to
a negligible advantage.  ``source="os"`` (:class:`~exactdp.randomness.SystemSource`) reads
every byte from the OS instead.

The ``cryptography`` package is optional (the ``[fast]`` extra); without it
:func:`release_source` falls back to the OS source and :class:`KeystreamSource` refuses with a
:class:`KeystreamUnavailableError` naming the package.
"""

from __future__ import annotations

import os
from typing import Any

from exactdp.params import ParameterError
from exactdp.randomness import (
    _PLAIN_BYTE_SOURCES,
    ByteSource,
    RandomSource,
    SystemSource,
)

__all__ = ["REKEY_BYTES", "SOURCE_NAMES", "KeystreamSource", "KeystreamUnavailableError",
           "available", "release_source"]

#: The keystream is rekeyed from the OS after this many bytes (1 GiB): far below ChaCha20's
#: 2**38-byte block-counter limit for one key and nonce.
REKEY_BYTES = 1 << 30

#: The plaintext: zeros, encrypted in slices of at most this many bytes.
_ZEROS_LEN = 1 << 20
_ZEROS = memoryview(bytes(_ZEROS_LEN))

#: The names :func:`release_source` takes (the ``--random-source`` choices).
SOURCE_NAMES = ("auto", "keystream", "os")


class KeystreamUnavailableError(ParameterError):
    """The keystream source was asked for but the ``cryptography`` package is missing."""


def _cipher() -> Any:
    """The ``cryptography`` names used here, or None when the package is missing."""
    try:
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
    except ImportError:
        return None
    return Cipher, algorithms.ChaCha20


def available() -> bool:
    """Whether :class:`KeystreamSource` can be built (``cryptography`` is importable)."""
    return _cipher() is not None


class KeystreamSource(ByteSource):
    """Uniform bytes from a ChaCha20 keystream keyed with 32 bytes of ``os.urandom``.

    Exact in the same sense as :class:`~exactdp.randomness.SystemSource`: given uniform
    bytes, every ``uniform(d)`` is exactly uniform on ``[d]_+`` (rejection on whole bytes);
    its security rests on ChaCha20 being a pseudorandom generator (see the module).  Create
    one per release (or call :meth:`rekey` between releases): the key never outlives it.
    """

    def __init__(self) -> None:
        parts = _cipher()
        if parts is None:
            raise KeystreamUnavailableError(
                "the keystream source needs the 'cryptography' package (pip install "
                "'exactdp[fast]'); pass the OS source instead (SystemSource(), or "
                "--random-source os)")
        self._cipher_class, self._chacha = parts
        self.rekey()

    def rekey(self) -> None:
        """A new 256-bit key from ``os.urandom``; the bytes read so far are forgotten."""
        cipher = self._cipher_class(self._chacha(os.urandom(32), bytes(16)), mode=None)
        self._stream = cipher.encryptor()
        self._left = REKEY_BYTES
        self._pid = os.getpid()

    def random_bytes(self, k: int) -> bytes:
        """``k`` keystream bytes (the keystream XOR zeros)."""
        if self._pid != os.getpid() or k > self._left:
            self.rekey()  # a forked child, or the rekey limit: a fresh key from the OS
        if k > REKEY_BYTES:
            return b"".join(self.random_bytes(min(REKEY_BYTES, k - i))
                            for i in range(0, k, REKEY_BYTES))
        self._left -= k
        if k <= _ZEROS_LEN:  # a slice of one buffer of zeros: no allocation of k zeros
            return self._stream.update(_ZEROS[:k])  # type: ignore[no-any-return]
        return b"".join(self._stream.update(_ZEROS[:min(_ZEROS_LEN, k - i)])
                        for i in range(0, k, _ZEROS_LEN))

    def __repr__(self) -> str:
        return "KeystreamSource()  # ChaCha20 keyed from the OS"


_PLAIN_BYTE_SOURCES.add(KeystreamSource)


def release_source(name: str = "auto") -> RandomSource:
    """The source of one release: ``"keystream"`` (:class:`KeystreamSource`, a fresh key),
    ``"os"`` (:class:`~exactdp.randomness.SystemSource`) or ``"auto"`` (the keystream when
    ``cryptography`` is installed, else the OS)."""
    if name not in SOURCE_NAMES:
        raise ParameterError(f"random source = {name!r} must be one of "
                             f"{', '.join(SOURCE_NAMES)}")
    if name == "os" or (name == "auto" and not available()):
        return SystemSource()
    return KeystreamSource()
