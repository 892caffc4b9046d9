"""``--random-source``: where a release command's random bytes come from.

``auto`` (the default) is the ChaCha20 keystream keyed from the OS when the ``cryptography``
package is installed, else the OS CSPRNG; ``keystream`` insists on the keystream; ``os`` reads
every byte from the OS.  The draws made from the bytes are the same exact ones either way
(see :mod:`exactdp.keystream` for what the keystream's security rests on).
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_random_source", "release_source_of"]

_HELP = ("random bytes: auto (default: a ChaCha20 keystream keyed from the OS when "
         "'cryptography' is installed, else the OS), keystream, or os")


def add_random_source(p: argparse.ArgumentParser) -> None:
    """Add ``--random-source {auto,keystream,os}`` to a release command."""
    p.add_argument("--random-source", default="auto", choices=("auto", "keystream", "os"),
                   metavar="R", help=_HELP)


def release_source_of(args: argparse.Namespace) -> Any:
    """A fresh source for one release (a new key for the keystream)."""
    from exactdp.keystream import release_source

    return release_source(getattr(args, "random_source", "auto"))
