"""``exactdp sparse-vector project | query``: ALP sketches of sparse vectors (paper 003/000).

``project`` reads a file of ``key,value`` lines, draws an ALP sketch (Aumüller, Lebeda & Pagh,
full version Algorithm 4 = short version Algorithm 1) and writes it as a sealed sketch file
(:mod:`exactdp.sparse_vectors.sketch_file`); ``query`` loads a sketch file, checks it and prints
the ALP-estimator (Algorithm 5 = short version Algorithm 2) of each key as an exact fraction.

The input file format (:func:`read_pairs`):

* UTF-8; a byte-order mark is dropped; lines end with ``\\n`` or ``\\r\\n``;
* blank lines and lines whose first non-space character is ``#`` are ignored; the first other
  line may be the header ``key,value``;
* every other line is ``KEY,VALUE`` (spaces around either field are ignored): ``KEY`` a plain
  decimal integer in ``[1, D]`` (ASCII digits, no sign or leading zeros), ``VALUE`` an exact
  non-negative number (``12``, ``2.5``, ``1e3`` or ``5/2``) on the grid ``{0, 1/G, 2/G, ...}``;
* a key may appear only once; a zero value is the same as leaving the key out; at most
  ``--sparsity K`` values may be non-zero.

Every violation is an error naming the line; nothing is drawn before the whole file is read.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from fractions import Fraction
from typing import Any

from exactdp.cli._common import (
    EPILOG,
    OK,
    add_input_limit,
    add_json,
    epsilon_in_range,
    input_limit,
    output_path,
    progress,
    seeded_source,
    write_json,
)
from exactdp.cli.random_source import add_random_source, release_source_of
from exactdp.files import InputFileError
from exactdp.params import DomainError, ExactDPError, ParameterError, positive_int, to_fraction

__all__ = ["COMMANDS", "decimal_rounded", "read_pairs"]

_KEY = re.compile(r"[1-9][0-9]*", re.ASCII)
_PLAIN = re.compile(r"0|[1-9][0-9]*", re.ASCII)
# Exact non-negative numbers besides plain integers: decimals, exponents, fractions.
_NUMBER = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[0-9]+/[0-9]+",
                     re.ASCII)
_HEADER = re.compile(r"\s*key\s*,\s*value\s*", re.IGNORECASE)
_MAX_FIELD = 200  # characters in one KEY or VALUE (a 2^4096 key has 1234 digits: see below)

GUARANTEE = (
    "The sketch is eps_cert-DP for neighbours ||x - x'||_1 <= 1 (replacing a record of a "
    "histogram changes two counts and costs 2*eps), with eps_cert = c(1 - 2p)/p exact and "
    "written in the file, whatever the hash functions: their Carter-Wegman seeds are drawn "
    "before the data and public. What beta truncates: values above about beta are estimated as "
    "about beta; beta costs no privacy, only space (s*m bits) and query time.")
_INTEGRITY = (
    "The file carries a SHA-256 digest that 'query' checks with every derived field: it "
    "detects corruption and editing; it is not an authentication.")
_INPUT = (
    "FILE: one 'KEY,VALUE' per line, KEY in [1, D], VALUE an exact number >= 0 on the grid "
    "{0, 1/G, ...}; at most K values non-zero. Blank lines and lines starting with '#' are "
    "skipped, and the first line may be the header 'key,value'.")


def _show(text: str) -> str:
    return repr(text) if len(text) <= 40 else repr(text[:37] + "...")


def _key(text: str, universe: int, where: str) -> int:
    """A plain decimal key in ``[1, D]``."""
    if not _KEY.fullmatch(text):
        raise InputFileError(f"{where}: key {_show(text)} is not a plain decimal integer in "
                             f"[1, D] (ASCII digits, no sign, spaces or leading zeros)")
    if len(text) > len(str(universe)) or int(text) > universe:
        raise DomainError(f"{where}: key {_show(text)} is outside [1, D] with D = {universe}")
    return int(text)


def _units(text: str, grid: int, where: str) -> int:
    """``VALUE * G`` as a non-negative int (the value must lie on the grid ``1/G``)."""
    if _PLAIN.fullmatch(text):
        return int(text) * grid
    if text.startswith("-") and _NUMBER.fullmatch(text[1:]):
        raise DomainError(f"{where}: value {_show(text)} is negative; values are >= 0")
    if not _NUMBER.fullmatch(text):
        raise InputFileError(f"{where}: value {_show(text)} is not an exact non-negative "
                             f"number ('12', '2.5', '1e3' or '5/2', ASCII digits)")
    try:
        x = to_fraction(text, "value")
    except ExactDPError as exc:
        raise InputFileError(f"{where}: {exc}") from None
    scaled = x * grid
    if scaled.denominator != 1:
        raise DomainError(f"{where}: value {_show(text)} = {x} is not on the grid "
                          f"{{0, 1/G, 2/G, ...}} with G = {grid} (value * G = {scaled}); "
                          f"pass a --grid G that makes it a whole number of steps")
    return int(scaled)


def read_pairs(text: str, universe: int, grid: int, sparsity: int,
               where: str = "input") -> dict[int, int]:
    """The ``key,value`` lines of ``text`` as ``{key: X}`` with ``X = value * G`` (the grid
    units ALP takes), zero values dropped; see the module docstring for the rules."""
    pairs: dict[int, int] = {}
    first_line: dict[int, int] = {}
    nonzero = 0
    header_allowed = True
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for number, raw in enumerate(lines, 1):
        here = f"{where} line {number}"
        line = raw.removesuffix("\r")
        if "\r" in line:
            raise InputFileError(f"{here} contains a carriage return inside the line (lines "
                                 f"end with \\n or \\r\\n)")
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if header_allowed and _HEADER.fullmatch(line):
            header_allowed = False
            continue
        header_allowed = False
        fields = line.split(",")
        if len(fields) != 2:
            raise InputFileError(f"{here} = {_show(line)} must be 'KEY,VALUE' (one comma, "
                                 f"e.g. '17,3')")
        key_text, value_text = fields[0].strip(), fields[1].strip()
        for name, field in (("key", key_text), ("value", value_text)):
            if len(field) > _MAX_FIELD + len(str(universe)):
                raise InputFileError(f"{here}: the {name} has {len(field)} characters; a "
                                     f"{name} this long cannot be meant")
        key = _key(key_text, universe, here)
        units = _units(value_text, grid, here)
        if key in first_line:
            raise InputFileError(f"{here}: key {key} already appeared on line "
                                 f"{first_line[key]}; give each key once (add the values "
                                 f"yourself if that is what you mean)")
        first_line[key] = number
        if units:
            nonzero += 1
            if nonzero > sparsity:
                raise DomainError(f"{here}: this is non-zero value number {nonzero}, more "
                                  f"than --sparsity K = {sparsity} (ALP takes k-sparse "
                                  f"vectors; raise --sparsity, which costs space, not privacy)")
            pairs[key] = units
    return pairs


def decimal_rounded(q: Fraction, places: int = 6) -> str:
    """``q`` rounded to ``places`` decimals (half away from zero), exactly, without floats."""
    scale = 10**places
    num = abs(q.numerator) * scale
    whole, rest = divmod(num, q.denominator)
    if 2 * rest >= q.denominator:
        whole += 1
    sign = "-" if q < 0 and whole else ""
    digits = str(whole).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}" if places else f"{sign}{digits}"


# --------------------------------------------------------------------------- project

def _add_project(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "project", help="draw an ALP sketch of a sparse vector and write it to a file",
        epilog=EPILOG,
        description="Draw an ALP sketch (ALP-projection: ALP-full Algorithm 4 = ALP-short "
                    "Algorithm 1, exact) of the k-sparse vector in FILE into --output SKETCH; "
                    "read it with 'exactdp sparse-vector query'. "
                    + GUARANTEE + " " + _INPUT + " " + _INTEGRITY)
    p.add_argument("file", metavar="FILE", help="the key,value lines ('-': standard input)")
    p.add_argument("--epsilon", required=True, metavar="E",
                   help="privacy budget of the whole sketch, > 0, at most 1000")
    p.add_argument("--alpha", metavar="A",
                   help="p = 1/(alpha + 2), unit alpha/eps (default 3)")
    p.add_argument("--beta", required=True, metavar="B",
                   help="the value cap: m = ceil(beta*eps/alpha) columns")
    p.add_argument("--rows", required=True, metavar="S",
                   help="rows s of the s x m bit matrix (s = 10k: collisions <= 1/10)")
    p.add_argument("--sparsity", required=True, metavar="K",
                   help="k: the largest number of non-zero values (public)")
    p.add_argument("--universe-size", required=True, metavar="D",
                   help="keys lie in [1, D]: 1000, 1e6, 2^64 (at most 2^4096)")
    p.add_argument("--grid", default="1", metavar="G",
                   help="values lie on {0, 1/G, 2/G, ...} (default 1)")
    p.add_argument("--variant", default="paper", metavar="V",
                   choices=("paper", "unscaled", "histogram-tight"),
                   help="paper (default), unscaled (c = 1) or histogram-tight (integer "
                        "values: worst ratio exactly L <= e^eps, less noise)")
    p.add_argument("--seed", help="reproducible sketch for examples (NOT for releases)")
    add_random_source(p)
    p.add_argument("--output", required=True, metavar="SKETCH",
                   help="write the sketch file to SKETCH, atomically")
    p.add_argument("--force", action="store_true",
                   help="allow --output to replace an existing file")
    add_json(p)
    add_input_limit(p)
    p.add_argument("--max-cells", default="1e8", metavar="N",
                   help="refuse more than N = s*m cells (default 1e8, at most 2^31)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress on stderr (a --seed warning is still printed)")
    p.set_defaults(func=_cmd_project)


def _params(args: argparse.Namespace) -> tuple[Any, dict[str, str]]:
    """The ALPParams of the command line, and the request to record in the sketch."""
    from exactdp.histograms.datafile import parse_universe_size
    from exactdp.sparse_vectors.alp import ALPParams, tight_bound
    from exactdp.spend import budget

    universe = parse_universe_size(args.universe_size)
    rows = positive_int(args.rows, "--rows")
    sparsity = positive_int(args.sparsity, "--sparsity")
    grid = positive_int(args.grid, "--grid")
    epsilon = epsilon_in_range(budget(args.epsilon, "--epsilon"))
    beta = _positive(args.beta, "--beta")
    if args.variant == "unscaled":
        if args.alpha is not None:
            raise ParameterError("--alpha does not apply to --variant unscaled (there c = 1 "
                                 "and p = 1/(eps + 2))")
        params = ALPParams.unscaled(epsilon, beta, rows, sparsity, universe, grid)
        return params, {"constructor": "unscaled", "epsilon": str(epsilon),
                        "beta": str(beta)}
    alpha = _positive("3" if args.alpha is None else args.alpha, "--alpha")
    if args.variant == "paper":
        params = ALPParams.from_paper(epsilon, alpha, beta, rows, sparsity, universe, grid)
        return params, {"constructor": "from_paper", "epsilon": str(epsilon),
                        "alpha": str(alpha), "beta": str(beta)}
    unit = alpha / epsilon
    if grid != 1:
        raise ParameterError(f"--grid {grid}: --variant histogram-tight is private only on "
                             f"integer values (--grid 1); on a finer grid its ratio exceeds "
                             f"e^eps")
    if unit.denominator != 1:
        raise ParameterError(f"--variant histogram-tight needs alpha/eps = {unit} to be a "
                             f"whole number n (the scale is c = 1/n); e.g. --alpha "
                             f"{_ceil(unit) * epsilon}")
    bound = tight_bound(epsilon)
    params = ALPParams.histogram_tight(bound, unit.numerator, beta, rows, sparsity, universe)
    return params, {"constructor": "histogram_tight", "epsilon": str(epsilon),
                    "alpha": str(alpha), "beta": str(beta), "bound": str(bound)}


def alp_spend(params: Any, requested: Fraction) -> Any:
    """What the sketch spends (:meth:`ALPParams.spend`), checked against the budget."""
    spent = params.spend(requested)
    if not spent.at_most(requested):  # never: each variant is calibrated to spend eps
        raise ParameterError(f"the sketch would spend {spent.expression()} > --epsilon "
                             f"{requested}")
    return spent


def _ceil(q: Fraction) -> int:
    return -((-q.numerator) // q.denominator)


def _positive(text: str, name: str) -> Fraction:
    q = to_fraction(text, name)
    if q <= 0:
        raise ParameterError(f"{name} = {q} must be positive")
    return q


def _cmd_project(args: argparse.Namespace) -> int:
    from exactdp.files import read_text
    from exactdp.params import ResourceLimitError
    from exactdp.randomness import RandomSource
    from exactdp.sparse_vectors.alp import ALP
    from exactdp.sparse_vectors.sketch_file import sketch_json

    def say(message: str) -> None:
        if not args.quiet and not args.json:
            progress(message)

    start = time.perf_counter()
    out = output_path(args)  # before anything is read or drawn
    params, request = _params(args)
    spent = alp_spend(params, Fraction(request["epsilon"]))
    cells = params.rows * params.columns
    limit = to_fraction(args.max_cells, "--max-cells")
    if cells > limit:
        raise ResourceLimitError(f"the sketch would have s*m = {params.rows}*{params.columns} "
                                 f"= {cells} cells, over --max-cells {args.max_cells}; use "
                                 f"fewer --rows or a smaller --beta (or a larger --alpha), or "
                                 f"raise --max-cells")
    name = "standard input" if args.file == "-" else repr(args.file)
    text = read_text(args.file, "input", input_limit(args))
    pairs = read_pairs(text, params.universe, params.grid, params.sparsity,
                       where=f"input {name}")
    say(f"read the input in {time.perf_counter() - start:.1f} s; drawing {params.columns} "
        f"hash functions and the {params.rows} x {params.columns} sketch")
    source: RandomSource = (release_source_of(args) if args.seed is None
                            else seeded_source(args.seed))
    sketch = ALP(params).project(pairs, source)
    document = sketch_json(sketch, request=request, input_file=args.file,
                           seeded=args.seed is not None, spent=True)
    assert out is not None  # --output is required
    write_json(document, out)
    if args.seed is not None:  # printed even with --quiet: it changes what the file means
        progress("warning: --seed made the hash functions and the noise predictable (the "
                 "sketch records seeded: true); never publish this sketch")
    summary = {
        "output": args.output,
        "variant": params.variant,
        "spent": spent.to_json(),
        "epsilon_cert": str(params.epsilon_cert),
        "scale": str(params.scale),
        "flip": str(params.flip),
        "rows": str(params.rows),
        "columns": str(params.columns),
        "cells": str(cells),
        "sha256": document["integrity"]["sha256"],
        "seeded": args.seed is not None,
    }
    if args.json:
        write_json(summary)
    else:
        print(f"wrote {args.output}: an ALP sketch ({params.variant}) of s = {params.rows} "
              f"rows and m = {params.columns} columns; eps_cert = {params.epsilon_cert} "
              f"exactly (the sketch is eps_cert-DP for l1 neighbours ||x - x'||_1 <= 1)")
        if params.variant == "histogram-tight":
            print(f"on integer vectors differing by 1 in one key the ratio is at most L = "
                  f"{1 + params.epsilon_cert} <= e^eps (exactly)")
        print(spent.describe())
        print("query it with: exactdp sparse-vector query "
              f"{args.output} KEY ...")
    say(f"done in {time.perf_counter() - start:.1f} s")
    return OK


# --------------------------------------------------------------------------- query

def _add_query(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "query", help="estimates of keys from an ALP sketch file",
        epilog=EPILOG,
        description="Load SKETCH (written by 'exactdp sparse-vector project'), check it and "
                    "print the ALP-estimator (full version Algorithm 5 = short version "
                    "Algorithm 2) of each KEY: the average of all argmax positions of the "
                    "walk over the key's m bits, divided by the scale c (and so in the units "
                    "of the input values), as an exact fraction; the decimal beside it is "
                    "rounded and labelled so. Reading a sketch is post-processing: it costs "
                    "no privacy, however many keys are queried. " + _INTEGRITY)
    p.add_argument("sketch", metavar="SKETCH")
    p.add_argument("keys", nargs="+", metavar="KEY",
                   help="keys: plain decimal integers in [1, D]")
    add_json(p)
    add_input_limit(p)
    p.set_defaults(func=_cmd_query)


def _cmd_query(args: argparse.Namespace) -> int:
    from exactdp.sparse_vectors.sketch_file import load_sketch

    loaded = load_sketch(args.sketch, input_limit(args))
    sketch = loaded.sketch
    keys = [_query_key(k, sketch.params.universe) for k in args.keys]
    if loaded.seeded:
        progress("warning: this sketch was drawn with --seed (it records seeded: true): its "
                 "noise is predictable and it protects nobody")
    rows = [(k, sketch.estimate(k)) for k in keys]
    if args.json:
        write_json([{"key": str(k), "estimate": str(e),
                     "estimate_rounded_6_decimals": decimal_rounded(e)} for k, e in rows])
    else:
        # One write: a row that stdout cannot encode fails before any row is printed.
        sys.stdout.write("key\testimate (exact)\trounded to 6 decimals\n"
                         + "".join(f"{k}\t{e}\t{decimal_rounded(e)}\n" for k, e in rows))
        sys.stdout.flush()
    return OK


def _query_key(text: str, universe: int) -> int:
    if not _KEY.fullmatch(text):
        raise ParameterError(f"KEY {_show(text)} is not a plain decimal integer in [1, D] "
                             f"(ASCII digits, no sign, spaces or leading zeros)")
    if len(text) > len(str(universe)) or int(text) > universe:
        raise DomainError(f"KEY {_show(text)} is outside [1, D] with D = {universe} (the "
                          f"sketch's universe)")
    return int(text)


# --------------------------------------------------------------------------- the group

def _add_sparse_vector(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "sparse-vector", help="ALP sketches of sparse vectors: project, query",
        epilog=EPILOG,
        description="Private sparse vectors with the ALP sketch (Aumüller, Lebeda & Pagh, "
                    "'Differentially Private Sparse Vectors with Low Error, Optimal Space, "
                    "and Fast Access'): 'project' draws a sketch of a k-sparse vector and "
                    "writes it to a file; 'query' reads estimates of keys from it. "
                    + GUARANTEE)
    group = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    _add_project(group)
    _add_query(group)


COMMANDS = [_add_sparse_vector]
