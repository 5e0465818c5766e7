"""Mutants as text edits: stable IDs, verified splices, diffs and sampling.

A :class:`Mutant` is one :class:`~mqcn_suite.selftest.operators.Site` turned into an edit of
the source text: replace characters ``start:end`` (the node's span) with ``replacement``.
Everything else in the file stays byte for byte, so the mutated file differs from the
original on the mutated line(s) only, and a unified diff shows exactly the fault.

Every edit is verified when it is made: the edited source must parse, and its tree must be
the original tree with exactly that one node replaced.  (An expression is wrapped in
parentheses when operator precedence needs it.)  A site that cannot be spliced so is listed
in :attr:`FileMutants.invalid`, never run.

**Stable IDs.**  ``server.py:NotificationServer._apply_update:CompareSwap:1@3f9a0c``:

* the file, relative to ``mqcn_model/``;
* the scope: the function (``Class.method``) whose body holds the node, or the class whose
  body holds it, or ``<module>``;
* the operator;
* the ordinal of this operator among the mutants of this scope whose mutated line(s) have
  the same text (1 unless a line is repeated in the function, or holds two sites);
* after ``@``, a short hash of the mutated line(s), whitespace-normalised.

Nothing in it is a line number, so moving lines, adding code elsewhere, re-indenting or
adding comments leaves every ID unchanged; editing the mutated line gives its mutants new
IDs, as it should (they are different mutants).  The line number is kept separately, for
display.
"""

from __future__ import annotations

import ast
import difflib
import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from mqcn_suite.selftest.operators import Site, find_sites, function_units

MODEL_DIR = "mqcn_model/"
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Mutant:
    """One mutant of one file: where it is, what it does, and the edit that makes it."""

    id: str
    file: str  # posix path from the project root, e.g. "mqcn_model/server.py"
    scope: str
    unit: str | None  # the function whose tests run against it; None: every test
    operator: str
    ordinal: int
    line: int
    end_line: int
    description: str
    start: int  # character offsets of the replaced text in the original source
    end: int
    replacement: str

    def apply(self, source: str) -> str:
        """The mutated source (``source`` must be the text the mutant was made from)."""
        return source[: self.start] + self.replacement + source[self.end :]

    def diff(self, source: str, context: int = 1) -> str:
        """A unified diff from the original to the mutated file."""
        before = source.splitlines(keepends=True)
        after = self.apply(source).splitlines(keepends=True)
        lines = difflib.unified_diff(before, after, f"a/{self.file}", f"b/{self.file}", n=context)
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "file": self.file,
            "scope": self.scope,
            "operator": self.operator,
            "line": self.line,
            "description": self.description,
        }


@dataclass(frozen=True, slots=True)
class FileMutants:
    """Every mutant of one file, and what :mod:`.testmap` needs to select their tests."""

    file: str
    source: str
    file_hash: str
    mutants: list[Mutant]
    units: dict[str, tuple[int, int]]  # function unit -> its body's (first, last) line
    invalid: list[str] = field(default_factory=list)


def display_name(file: str) -> str:
    """``mqcn_model/codec/update.py`` -> ``codec/update.py``: the file's name in IDs."""
    return file.removeprefix(MODEL_DIR)


def source_hash(source: str) -> str:
    """The hash that keys a file's results (state.jsonl) and the test map cache."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def line_hash(lines: Sequence[str], first: int, last: int) -> str:
    """Short hash of lines ``first..last`` (1-based), whitespace-normalised."""
    text = " ".join(_SPACE.sub(" ", line).strip() for line in lines[first - 1 : last])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:6]


class _Offsets:
    """Character offsets from ``ast`` positions (whose columns count UTF-8 bytes)."""

    def __init__(self, source: str) -> None:
        self.lines = source.split("\n")
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line) + 1)

    def at(self, lineno: int, col_bytes: int) -> int:
        line = self.lines[lineno - 1]
        column = len(line.encode("utf-8")[:col_bytes].decode("utf-8", errors="replace"))
        return self.starts[lineno - 1] + column


def _replace(site: Site, new: ast.AST) -> None:
    container = getattr(site.parent, site.field)
    if site.index is None:
        setattr(site.parent, site.field, new)
    else:
        container[site.index] = new


_Path = tuple[tuple[str, int], ...]
_STATEMENT_LISTS = ("body", "orelse", "finalbody", "handlers", "cases")


def _statement_paths(tree: ast.Module) -> list[tuple[ast.stmt, _Path]]:
    """Module-level statements and every statement holding a body, with its path."""
    found: list[tuple[ast.stmt, _Path]] = []

    def walk(node: ast.AST, path: _Path) -> None:
        for name in _STATEMENT_LISTS:
            for index, child in enumerate(getattr(node, name, None) or []):
                inner = (*path, (name, index))
                has_body = any(getattr(child, field, None) for field in _STATEMENT_LISTS)
                if isinstance(child, ast.stmt) and (has_body or not path):
                    found.append((child, inner))
                if has_body:
                    walk(child, inner)

    walk(tree, ())
    return found


def _position(node: ast.AST) -> tuple[tuple[int, int], tuple[int, int]]:
    first = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
    last = (node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
    return first, last


def _enclosing(paths: list[tuple[ast.stmt, _Path]], node: ast.AST) -> _Path:
    """Path of the innermost function (else module-level statement) around ``node``."""
    first, last = _position(node)
    best: _Path = ()
    for statement, path in paths:
        is_function = isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef)
        if not is_function and len(path) > 1:
            continue
        begin, end = _position(statement)
        if begin <= first and last <= end and len(path) > len(best):
            best = path
    if not best:
        raise ValueError(f"line {first[0]} is in no statement that holds a body")
    return best


def _follow(tree: ast.AST, path: _Path) -> ast.AST | None:
    node: ast.AST | None = tree
    for name, index in path:
        children = getattr(node, name, None) or []
        node = children[index] if index < len(children) else None
    return node


def _expected_dump(tree: ast.Module, site: Site, path: _Path) -> str:
    """``ast.dump`` of the statement at ``path`` with the site's node replaced.

    Only that statement (the innermost function around the node, or the module-level
    statement holding it) is compared: no text outside its span is edited, so the rest of
    the module parses as before.
    """
    _replace(site, site.replacement)
    try:
        return ast.dump(_follow(tree, path))  # type: ignore[arg-type]
    finally:
        _replace(site, site.node)


def _candidates(site: Site) -> Iterable[str]:
    text = ast.unparse(site.replacement)
    yield text
    if isinstance(site.node, ast.expr):
        yield f"({text})"


def _top_level_snippets(tree: ast.Module, source: str, offsets: _Offsets) -> list[int | None]:
    """Where each module-level statement's text starts (None: it cannot stand alone).

    A mutant is checked by parsing only the module-level statement around it: its lines,
    from its first decorator to its last line, parse alone to that one statement (each
    begins at column 0 and its brackets and strings close inside it).  A statement sharing a
    line with another (``a = 1; b = 2``) does not, and its mutants are checked against the
    whole module.  Parsing a function instead of the module makes planning a file's
    mutants linear rather than quadratic in its size.
    """
    starts: list[int | None] = []
    for statement in tree.body:
        decorators = getattr(statement, "decorator_list", [])
        first = min([statement.lineno, *(d.lineno for d in decorators)])
        start, end = offsets.starts[first - 1], offsets.starts[statement.end_lineno or 0]
        try:
            alone = ast.parse(source[start:end])
        except SyntaxError:
            alone = None
        fits = alone is not None and len(alone.body) == 1
        starts.append(start if fits and ast.dump(alone.body[0]) == ast.dump(statement) else None)
    return starts


def _verified(
    tree: ast.Module, source: str, snippets: list[int | None], site: Site, path: _Path,
    span: tuple[int, int], offsets: _Offsets,
) -> str | None:  # fmt: skip
    """The first text of ``site``'s replacement that parses to exactly the mutated tree
    (compared within the statement at ``path``), or None."""
    expected = _expected_dump(tree, site, path)
    start, end = span
    index = path[0][1] if path else None
    snippet = snippets[index] if index is not None else None
    if snippet is not None and index is not None:
        statement = tree.body[index]
        stop = offsets.starts[statement.end_lineno or 0]
        text_before, text_after = source[snippet:start], source[end:stop]
        where: _Path = (("body", 0), *path[1:])
        statements = 1
    else:
        text_before, text_after = source[:start], source[end:]
        where, statements = path, len(tree.body)
    for text in _candidates(site):
        try:
            mutated = ast.parse(text_before + text + text_after)
        except SyntaxError:
            continue
        if len(mutated.body) != statements:
            continue
        counterpart = _follow(mutated, where)
        if counterpart is not None and ast.dump(counterpart) == expected:
            return text
    return None


def mutants_of(file: str, source: str) -> FileMutants:
    """Every verified mutant of ``source`` (the text of ``file``), in source order.

    Raises :class:`SyntaxError` when ``source`` itself does not parse.
    """
    tree = ast.parse(source, filename=file)
    offsets = _Offsets(source)
    paths = _statement_paths(tree)
    snippets = _top_level_snippets(tree, source, offsets)
    name = display_name(file)
    ordinals: Counter[tuple[str, str, str]] = Counter()
    mutants: list[Mutant] = []
    invalid: list[str] = []
    for site in find_sites(tree):
        node = site.node
        line, end_line = node.lineno, node.end_lineno or node.lineno  # type: ignore[attr-defined]
        start = offsets.at(line, node.col_offset)  # type: ignore[attr-defined]
        end = offsets.at(end_line, node.end_col_offset)  # type: ignore[attr-defined]
        path = _enclosing(paths, node) if not isinstance(node, ast.Module) else ()
        replacement = _verified(tree, source, snippets, site, path, (start, end), offsets)
        if replacement is None:
            invalid.append(f"{name}:{line}: {site.operator} ({site.description})")
            continue
        digest = line_hash(offsets.lines, line, end_line)
        key = (site.scope, site.operator, digest)
        ordinals[key] += 1
        ordinal = ordinals[key]
        mutants.append(
            Mutant(
                id=f"{name}:{site.scope}:{site.operator}:{ordinal}@{digest}",
                file=file,
                scope=site.scope,
                unit=site.unit,
                operator=site.operator,
                ordinal=ordinal,
                line=line,
                end_line=end_line,
                description=site.description,
                start=start,
                end=end,
                replacement=replacement,
            )
        )
    return FileMutants(file, source, source_hash(source), mutants, function_units(tree), invalid)


def sample(mutants: Sequence[Mutant], count: int, seed: int | str) -> list[Mutant]:
    """``count`` mutants chosen by ``seed``, in their original order.

    Each mutant is ranked by a hash of the seed and its stable ID and the ``count`` lowest
    ranks are taken, so a sample depends only on the seed and the IDs: code added or removed
    elsewhere changes it only where new mutants rank among the chosen.
    """

    def rank(mutant: Mutant) -> str:
        return hashlib.sha256(f"{seed}\0{mutant.id}".encode()).hexdigest()

    chosen = {m.id for m in sorted(mutants, key=rank)[: max(count, 0)]}
    return [m for m in mutants if m.id in chosen]
