"""Single-point source mutations found with :mod:`ast` (the mutator of ``mutate.py``).

Each mutation is one small textual edit ``source[start:end] -> replacement`` (byte offsets of
the UTF-8 source) at a node found by walking the module's syntax tree, so that everything else
in the file -- comments, formatting, line numbers -- stays byte-identical and the diff a
reader sees is one line.  Every mutant is checked to parse and to differ from the original
program as a syntax tree (:func:`apply`), so "the mutant is the same program" never hides in
the list.

Operators (the ``operator`` names in mutant ids):

* ``cmp_<a>_<b>`` -- comparison swaps ``<`` / ``<=``, ``>`` / ``>=``, ``==`` / ``!=``,
  ``is`` / ``is not``, ``in`` / ``not in``;
* ``arith_<a>_<b>`` -- ``+`` / ``-``, ``*`` -> ``//``, ``//`` -> ``*``, ``/`` -> ``*``,
  ``%`` -> ``//``, ``**`` -> ``*``, ``<<`` / ``>>``, ``&`` / ``|``, ``^`` -> ``|`` (also in
  augmented assignments such as ``+=``);
* ``const_inc`` / ``const_dec`` -- an integer literal ``k`` becomes ``k + 1`` / ``k - 1``;
  ``fraction_swap`` -- ``Fraction(a, b)`` with two literals becomes ``Fraction(b, a)``;
  ``bool_flip`` -- ``True`` / ``False``;
* ``bool_and_or`` / ``bool_or_and`` -- ``and`` / ``or``; ``not_drop`` -- ``not x`` -> ``x``;
* ``stmt_drop`` -- a statement in the body of a ``for``/``while``/``if`` becomes ``pass``;
  ``loop_skip_first`` / ``loop_skip_last`` -- a ``for`` loop or comprehension skips the
  first / last element of what it iterates over (``list(xs)[1:]`` / ``list(xs)[:-1]``);
* ``range_stop_inc`` / ``range_stop_dec`` / ``range_start_inc`` -- ``range(n)`` ->
  ``range(n + 1)``, ``range(n - 1)``; ``range(a, b)`` -> ``range(a + 1, b)``;
* ``return_negate`` -- ``return cond`` -> ``return not (cond)`` for a comparison / boolean;
  ``return_inc`` -- ``return e`` -> ``return (e) + 1`` for an arithmetic ``e``;
* ``minmax`` -- ``min(...)`` / ``max(...)`` swapped.

Where mutations are *not* made: outside function bodies (module constants are resource limits
and tables), in docstrings, type annotations, f-strings, ``raise`` and ``assert`` statements
(error messages and internal invariants), ``__repr__``/``__str__``, and on string
concatenation.  A mutant inside the test of an ``if`` whose body only raises (an input-
validation guard), or that drops such a ``raise``, is tagged ``guard``: the proofs never feed
invalid parameters, so only the tests can kill those, and the report counts them apart.

Identity: ``id`` is ``file:line:col:operator`` (for people; it moves when lines move) and
``key`` is ``file::function::operator::original->replacement#occurrence`` (for the results
file and the list of equivalent mutants; it survives edits elsewhere in the file).
"""

from __future__ import annotations

import ast
import bisect
import difflib
import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

__all__ = ["Mutant", "apply", "diff", "family", "find_mutants", "is_valid", "select"]

_CMP_SWAP: dict[type, tuple[type, str, str, str]] = {
    # node op -> (replacement op, original token, replacement token, operator name)
    ast.Lt: (ast.LtE, "<", "<=", "cmp_lt_le"),
    ast.LtE: (ast.Lt, "<=", "<", "cmp_le_lt"),
    ast.Gt: (ast.GtE, ">", ">=", "cmp_gt_ge"),
    ast.GtE: (ast.Gt, ">=", ">", "cmp_ge_gt"),
    ast.Eq: (ast.NotEq, "==", "!=", "cmp_eq_ne"),
    ast.NotEq: (ast.Eq, "!=", "==", "cmp_ne_eq"),
    ast.Is: (ast.IsNot, "is", "is not", "cmp_is_isnot"),
    ast.IsNot: (ast.Is, "is not", "is", "cmp_isnot_is"),
    ast.In: (ast.NotIn, "in", "not in", "cmp_in_notin"),
    ast.NotIn: (ast.In, "not in", "in", "cmp_notin_in"),
}

_ARITH_SWAP: dict[type, tuple[str, str, str]] = {
    # node op -> (original token, replacement token, operator name)
    ast.Add: ("+", "-", "arith_add_sub"),
    ast.Sub: ("-", "+", "arith_sub_add"),
    ast.Mult: ("*", "//", "arith_mul_floordiv"),
    ast.FloorDiv: ("//", "*", "arith_floordiv_mul"),
    ast.Div: ("/", "*", "arith_div_mul"),
    ast.Mod: ("%", "//", "arith_mod_floordiv"),
    ast.Pow: ("**", "*", "arith_pow_mul"),
    ast.LShift: ("<<", ">>", "arith_lshift_rshift"),
    ast.RShift: (">>", "<<", "arith_rshift_lshift"),
    ast.BitAnd: ("&", "|", "arith_and_or"),
    ast.BitOr: ("|", "&", "arith_or_and"),
    ast.BitXor: ("^", "|", "arith_xor_or"),
}

#: Characters that may sit between an operand and its operator besides the operator itself.
_GAP_FILLER = " \t\r\n\\()"


@dataclass(frozen=True)
class Mutant:
    """One single-point mutation of ``file`` (path relative to the tree root, ``/``-separated)."""

    file: str
    line: int          # 1-based line of the edit
    col: int           # 0-based column (characters) of the edit
    operator: str
    start: int         # byte offsets of the edit in the original UTF-8 source
    end: int
    replacement: str
    function: str      # qualified name of the enclosing function
    original: str      # the replaced text
    guard: bool        # inside an input-validation guard (see the module docstring)
    occurrence: int = 0  # among mutants with the same (function, operator, original, replacement)

    @property
    def id(self) -> str:
        return f"{self.file}:{self.line}:{self.col}:{self.operator}"

    @property
    def key(self) -> str:
        orig = " ".join(self.original.split())
        return (f"{self.file}::{self.function}::{self.operator}::{orig}->{self.replacement}"
                f"#{self.occurrence}")


def _line_starts(data: bytes) -> list[int]:
    starts = [0]
    for i, b in enumerate(data):
        if b == 0x0A:
            starts.append(i + 1)
    return starts


class _Finder(ast.NodeVisitor):
    """Collects candidate edits; :func:`find_mutants` validates them."""

    def __init__(self, data: bytes, file: str) -> None:
        self.data = data
        self.file = file
        self.starts = _line_starts(data)
        self.stack: list[str] = []
        self.in_function = 0
        self.excluded = 0
        self.guard = 0
        self.out: list[tuple[int, int, str, str, bool]] = []  # start, end, repl, operator, guard

    # -- positions ------------------------------------------------------------------------
    def off(self, line: int, col: int) -> int:
        return self.starts[line - 1] + col

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (self.off(node.lineno, node.col_offset),  # type: ignore[attr-defined]
                self.off(node.end_lineno, node.end_col_offset))  # type: ignore[attr-defined]

    def text(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8")

    def seg(self, node: ast.AST) -> str:
        return self.text(*self.span(node))

    def add(self, start: int, end: int, repl: str, operator: str) -> None:
        if self.in_function and not self.excluded:
            self.out.append((start, end, repl, operator, self.guard > 0))

    def token_in_gap(self, left: ast.AST, right: ast.AST, token: str) -> tuple[int, int] | None:
        """The byte span of ``token`` between the end of ``left`` and the start of ``right``
        when the gap holds nothing else but blanks and parentheses (else ``None``)."""
        a, b = self.span(left)[1], self.span(right)[0]
        gap = self.text(a, b)
        stripped = gap.strip(_GAP_FILLER)
        if " ".join(stripped.split()) != token:
            return None
        i = gap.index(stripped[0])
        prefix = len(gap[:i].encode("utf-8"))
        return a + prefix, a + prefix + len(stripped.encode("utf-8"))

    # -- context --------------------------------------------------------------------------
    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.stack.append(node.name)
        self._body(node.body)
        self.stack.pop()

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.stack.append(node.name)
        self.in_function += 1
        skip = node.name in ("__repr__", "__str__")
        self.excluded += skip
        args = node.args
        for default in [*args.defaults, *args.kw_defaults]:
            if default is not None:
                self.visit(default)
        self._body(node.body)
        self.excluded -= skip
        self.in_function -= 1
        self.stack.pop()

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def _body(self, body: list[ast.stmt]) -> None:
        for i, stmt in enumerate(body):
            if (i == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
                    and isinstance(stmt.value.value, str)):
                continue  # docstring
            self.visit(stmt)

    def _excluded(self, node: ast.AST) -> None:
        self.excluded += 1
        self.generic_visit(node)
        self.excluded -= 1

    visit_JoinedStr = _excluded
    visit_Raise = _excluded
    visit_Assert = _excluded

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)

    def visit_arguments(self, node: ast.arguments) -> None:  # lambdas: defaults only
        for default in [*node.defaults, *node.kw_defaults]:
            if default is not None:
                self.visit(default)

    # -- statements -----------------------------------------------------------------------
    def _drop_statements(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            if isinstance(stmt, ast.Pass):
                continue
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue
            start, end = self.span(stmt)
            guard = isinstance(stmt, ast.Raise) or (
                isinstance(stmt, ast.If) and all(isinstance(s, ast.Raise) for s in stmt.body))
            self.guard += guard
            self.add(start, end, "pass", "stmt_drop")
            self.guard -= guard

    def visit_If(self, node: ast.If) -> None:
        raises_only = all(isinstance(s, ast.Raise) for s in node.body)
        self.guard += raises_only
        self.visit(node.test)
        self.guard -= raises_only
        self._drop_statements(node.body)
        self._drop_statements(node.orelse)
        self._body(node.body)
        self._body(node.orelse)

    def visit_While(self, node: ast.While) -> None:
        self.visit(node.test)
        self._drop_statements(node.body)
        self._body(node.body)
        self._body(node.orelse)

    def visit_For(self, node: ast.For) -> None:
        self._skip_elements(node.iter)
        self.visit(node.iter)
        self._drop_statements(node.body)
        self._body(node.body)
        self._body(node.orelse)

    def visit_comprehension(self, node: ast.comprehension) -> None:
        self._skip_elements(node.iter)
        self.visit(node.iter)
        for cond in node.ifs:
            self.visit(cond)

    def _skip_elements(self, it: ast.expr) -> None:
        start, end = self.span(it)
        src = self.text(start, end)
        self.add(start, end, f"list({src})[1:]", "loop_skip_first")
        self.add(start, end, f"list({src})[:-1]", "loop_skip_last")

    def visit_Return(self, node: ast.Return) -> None:
        value = node.value
        if value is not None:
            start, end = self.span(value)
            src = self.text(start, end)
            is_bool = (isinstance(value, (ast.Compare, ast.BoolOp))
                       or (isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not))
                       or (isinstance(value, ast.Constant) and isinstance(value.value, bool)))
            is_arith = ((isinstance(value, ast.BinOp) and type(value.op) in _ARITH_SWAP
                         and not _stringish(value))
                        or (isinstance(value, ast.Constant) and type(value.value) is int))
            if is_bool:
                self.add(start, end, f"not ({src})", "return_negate")
            elif is_arith:
                self.add(start, end, f"({src}) + 1", "return_inc")
            self.visit(value)

    # -- expressions ----------------------------------------------------------------------
    def visit_Compare(self, node: ast.Compare) -> None:
        operands = [node.left, *node.comparators]
        for i, op in enumerate(node.ops):
            swap = _CMP_SWAP.get(type(op))
            if swap is None:
                continue
            _, token, repl, name = swap
            where = self.token_in_gap(operands[i], operands[i + 1], token)
            if where is not None:
                self.add(where[0], where[1], repl, name)
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        swap = _ARITH_SWAP.get(type(node.op))
        if swap is not None and not _stringish(node):
            token, repl, name = swap
            where = self.token_in_gap(node.left, node.right, token)
            if where is not None:
                self.add(where[0], where[1], repl, name)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        swap = _ARITH_SWAP.get(type(node.op))
        if swap is not None and not _is_str(node.value):
            token, repl, name = swap
            where = self.token_in_gap(node.target, node.value, token + "=")
            if where is not None:
                self.add(where[0], where[1], repl + "=", name)
        self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        token, repl, name = (("and", "or", "bool_and_or") if isinstance(node.op, ast.And)
                             else ("or", "and", "bool_or_and"))
        spans = [self.token_in_gap(a, b, token) for a, b in zip(node.values, node.values[1:])]
        if all(s is not None for s in spans):
            # one operator node of the tree: every ``and`` of ``a and b and c`` changes
            start, end = self.span(node)
            text = self.data[start:end]
            for s in reversed(spans):
                assert s is not None
                text = text[:s[0] - start] + repl.encode() + text[s[1] - start:]
            self.add(start, end, text.decode("utf-8"), name)
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if isinstance(node.op, ast.Not):
            start, _ = self.span(node)
            if self.data[start:start + 3] == b"not":
                self.add(start, start + 3, "", "not_drop")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        start, end = self.span(node)
        if isinstance(node.value, bool):
            self.add(start, end, str(not node.value), "bool_flip")
        elif type(node.value) is int:
            for delta, name in ((1, "const_inc"), (-1, "const_dec")):
                value = node.value + delta
                self.add(start, end, str(value) if value >= 0 else f"({value})", name)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.id if isinstance(func, ast.Name) else None
        if name in ("min", "max"):
            start, end = self.span(func)
            self.add(start, end, "max" if name == "min" else "min", "minmax")
        if name == "Fraction" and len(node.args) == 2 and all(
                isinstance(a, ast.Constant) and type(a.value) is int for a in node.args):
            (s0, e0), (s1, e1) = self.span(node.args[0]), self.span(node.args[1])
            self.add(s0, e1, f"{self.text(s1, e1)}, {self.text(s0, e0)}", "fraction_swap")
        if name == "range" and node.args and not node.keywords and len(node.args) <= 3:
            stop = node.args[0] if len(node.args) == 1 else node.args[1]
            start, end = self.span(stop)
            src = _atom(stop, self.text(start, end))
            self.add(start, end, f"{src} + 1", "range_stop_inc")
            self.add(start, end, f"{src} - 1", "range_stop_dec")
            if len(node.args) >= 2:
                first = node.args[0]
                s0, e0 = self.span(first)
                self.add(s0, e0, f"{_atom(first, self.text(s0, e0))} + 1", "range_start_inc")
        self.generic_visit(node)


def _atom(node: ast.AST, src: str) -> str:
    """``src`` parenthesised unless it is already an atom."""
    atomic = (ast.Name, ast.Attribute, ast.Constant, ast.Call, ast.Subscript)
    return src if isinstance(node, atomic) else f"({src})"


def _is_str(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (
        isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)))


def _stringish(node: ast.BinOp) -> bool:
    """String concatenation / %-formatting, or sequence concatenation of literals."""
    seqs = (ast.List, ast.Tuple, ast.ListComp)
    return any(_is_str(x) or isinstance(x, seqs) for x in (node.left, node.right))


def apply(source: str, mutant: Mutant) -> str:
    """The mutated source text."""
    data = source.encode("utf-8")
    return (data[:mutant.start] + mutant.replacement.encode("utf-8")
            + data[mutant.end:]).decode("utf-8")


def is_valid(source: str, mutant: Mutant) -> bool:
    """Whether the mutant parses and is a different program from ``source`` (syntax trees
    compared)."""
    try:
        mutated = ast.dump(ast.parse(apply(source, mutant)))
    except SyntaxError:
        return False
    return mutated != ast.dump(ast.parse(source))


def find_mutants(source: str, file: str, validate: bool = True) -> list[Mutant]:
    """Every mutant of ``source`` (the text of ``file``) in source order.  With ``validate``
    each is checked by :func:`is_valid` (one parse each: slow on thousands; :func:`select`
    can check only the ones it picks).  Occurrence numbers are counted before validation,
    so a mutant's key does not depend on ``validate``."""
    data = source.encode("utf-8")
    tree = ast.parse(source)
    finder = _Finder(data, file)
    finder.visit(tree)
    original_dump = ast.dump(tree) if validate else ""
    starts = finder.starts
    seen: set[tuple[int, int, str]] = set()
    counts: dict[tuple[str, str, str, str], int] = {}
    out: list[Mutant] = []
    functions = _function_spans(tree, finder)
    for start, end, repl, operator, guard in sorted(finder.out, key=lambda e: (e[0], e[3])):
        if (start, end, repl) in seen:
            continue
        seen.add((start, end, repl))
        line = bisect.bisect_right(starts, start)
        col = len(data[starts[line - 1]:start].decode("utf-8"))
        original = data[start:end].decode("utf-8")
        function = _enclosing(functions, start)
        k = (function, operator, " ".join(original.split()), repl)
        occurrence = counts.get(k, 0)
        counts[k] = occurrence + 1
        mutant = Mutant(file=file, line=line, col=col, operator=operator, start=start, end=end,
                        replacement=repl, function=function, original=original, guard=guard,
                        occurrence=occurrence)
        if validate:
            try:
                dump = ast.dump(ast.parse(apply(source, mutant)))
            except SyntaxError:
                continue
            if dump == original_dump:
                continue
        out.append(mutant)
    return out


def _function_spans(tree: ast.AST, finder: _Finder) -> list[tuple[int, int, str]]:
    spans: list[tuple[int, int, str]] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                s, e = finder.span(child)
                spans.append((s, e, name))
                walk(child, name + ".")
            else:
                walk(child, prefix)

    walk(tree, "")
    return spans


def _enclosing(spans: list[tuple[int, int, str]], offset: int) -> str:
    best = "<module>"
    best_len = None
    for s, e, name in spans:
        if s <= offset < e and (best_len is None or e - s < best_len):
            best, best_len = name, e - s
    return best


def diff(source: str, mutant: Mutant, context: int = 0) -> str:
    """A unified diff of the mutation (``context`` lines around it)."""
    mutated = apply(source, mutant)
    lines = difflib.unified_diff(source.splitlines(keepends=True),
                                 mutated.splitlines(keepends=True),
                                 fromfile=f"a/{mutant.file}", tofile=f"b/{mutant.file}",
                                 n=context)
    return "".join(lines)


def family(operator: str) -> str:
    """The operator's family: ``cmp``, ``arith``, ``const`` (also ``fraction_swap``,
    ``bool_flip``), ``bool`` (also ``not_drop``), ``stmt``, ``loop``, ``range``, ``return``,
    ``minmax``."""
    head = operator.split("_")[0]
    return {"fraction": "const", "not": "bool"}.get(head, head)


def _rank(seed: int, text: str) -> str:
    return hashlib.sha256(f"{seed}:{text}".encode()).hexdigest()


def _interleave(mutants: list[Mutant], seed: int) -> list[Mutant]:
    """One module's mutants in sampling order: round robin over the operator families (in a
    seeded order), each family's mutants ranked by ``sha256(seed:key)``."""
    groups: dict[str, list[Mutant]] = {}
    for m in mutants:
        groups.setdefault(family(m.operator), []).append(m)
    ranked = [sorted(g, key=lambda x: _rank(seed, x.key))
              for _, g in sorted(groups.items(), key=lambda kv: _rank(seed, kv[0]))]
    out: list[Mutant] = []
    for i in range(max((len(g) for g in ranked), default=0)):
        out.extend(g[i] for g in ranked if i < len(g))
    return out


def _lazy(ms: list[Mutant], accept: Callable[[Mutant], bool] | None) -> Iterator[Mutant]:
    return (x for x in ms if accept is None or accept(x))


def select(by_module: dict[str, list[Mutant]], total: int | None, seed: int,
           accept: Callable[[Mutant], bool] | None = None) -> list[Mutant]:
    """A deterministic sample of ``total`` mutants (all when ``None``), spread evenly over the
    modules and, within a module, over the operator families (round robin; within a family
    the mutants are ranked by ``sha256(seed:key)``, so that an edit elsewhere in a file
    barely changes which mutants are picked); returned in that round-robin order, so that
    every prefix of the list (a run stopped early) is spread over the modules too.
    A mutant ``accept`` rejects (e.g. ``is_valid`` is false) is passed over for the next."""
    chosen: list[Mutant] = []
    live = [_lazy(_interleave(ms, seed), accept) for ms in by_module.values()]
    while live and (total is None or len(chosen) < total):
        for it in list(live):
            if total is not None and len(chosen) >= total:
                break
            nxt = next(it, None)
            if nxt is None:
                live.remove(it)
            else:
                chosen.append(nxt)
    return chosen
