"""Mutation operators: where in a module's ``ast`` a mutant can be made, and what it becomes.

:func:`find_sites` walks one module and returns a :class:`Site` for every mutant the
operators of :data:`OPERATORS` can make: the node to replace, the node replacing it, and
the function it lives in.  Turning a site into text (and checking that the text parses to
exactly the intended tree) is :mod:`mqcn_suite.selftest.mutants`' job.

What is never mutated, and why:

* bytes constants, f-strings, docstrings, and string constants anywhere but the *keys* listed
  below — they are the texts of messages and reasons; changing them is almost always
  equivalent, so they are not generated at all.  A string that is a key (``StringAlter``) is
  one whose value decides behaviour: an operand of a comparison (also an element of a tuple,
  list or set literal compared with ``in``), a key of a dict literal, a subscript
  (``x["key"]``), an attribute or key name given to ``getattr``/``hasattr``/``setattr``/
  ``delattr`` or to a ``.get``/``.pop``/``.setdefault``/``.startswith``/``.endswith``/
  ``.removeprefix``/``.removesuffix`` call, or an element of a tuple literal of a ``for``
  loop's table (``for key, wanted in (("next_hops", ""), …)``).  A requirement ID
  (``"MQCN-…"``) is never a key: ``req`` guards it at import;
* type annotations, decorators (``@dataclass(frozen=True)``…), class bases — declarations,
  not behaviour;
* ``import``, ``assert``, ``__all__ = …``, ``if TYPE_CHECKING:`` and ``if __name__ ==
  "__main__":`` blocks;
* ``req("MQCN-…")`` calls (and assignments of them): a mutated requirement ID fails at import.

>>> import ast
>>> sites = find_sites(ast.parse("def f(a):\\n    return a < 1\\n"))
>>> [(s.operator, s.scope, s.description) for s in sites]  # doctest: +NORMALIZE_WHITESPACE
[('ReturnNone', 'f', 'return X -> return None'), ('CompareSwap', 'f', '< -> <='),
 ('NumberIncrement', 'f', '1 -> 2'), ('NumberZero', 'f', '1 -> 0')]
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

MODULE_SCOPE = "<module>"

OPERATORS: dict[str, str] = {
    "CompareSwap": "one comparison operator: == <-> !=, < <-> <=, > <-> >=, in <-> not in, "
    "is <-> is not",
    "BoolOpSwap": "and <-> or",
    "NotRemove": "not X -> X",
    "NotInsert": "the condition X of an if, while or conditional expression -> not X",
    "TrueFalse": "True <-> False",
    "NumberIncrement": "a numeric constant n -> n + 1",
    "NumberZero": "a numeric constant n -> 0 (n is not 0)",
    "ArithSwap": "+ <-> -, // <-> * (in expressions and augmented assignments)",
    "ReturnNone": "return X -> return None",
    "StatementDelete": "a call statement, an assignment or a del -> pass",
    "IfTrue": "if C: -> if True:",
    "IfFalse": "if C: -> if False:",
    "BreakContinue": "break <-> continue",
    "ArgDelete": "one positional or keyword argument of a call deleted (not message texts)",
    "AugAssignToAssign": "x op= y -> x = y",
    "StringAlter": 'a key string "s" -> "sXX" ("" -> "XX"): comparison operands, dict keys, '
    "subscripts, attribute and key names given to getattr/.get/...",
}
# The operators of issue 10; ArgDelete, AugAssignToAssign and StringAlter came with issue 17.
CLASSIC_OPERATORS: tuple[str, ...] = (
    "CompareSwap",
    "BoolOpSwap",
    "NotRemove",
    "NotInsert",
    "TrueFalse",
    "NumberIncrement",
    "NumberZero",
    "ArithSwap",
    "ReturnNone",
    "StatementDelete",
    "IfTrue",
    "IfFalse",
    "BreakContinue",
)
STRING_SUFFIX = "XX"  # what StringAlter appends: no key of the model ends so
_NAME_FUNCTIONS = frozenset({"getattr", "hasattr", "setattr", "delattr"})
_KEY_METHODS = frozenset(
    {"get", "pop", "setdefault", "startswith", "endswith", "removeprefix", "removesuffix"}
)
_REQUIREMENT_ID = re.compile(r"^MQCN-[0-9.]+-[0-9]+$")

_COMPARE_SWAPS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_ARITH_SWAPS: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.FloorDiv: ast.Mult,
    ast.Mult: ast.FloorDiv,
}
_SYMBOLS: dict[type[ast.AST], str] = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.Add: "+",
    ast.Sub: "-",
    ast.FloorDiv: "//",
    ast.Mult: "*",
    ast.And: "and",
    ast.Or: "or",
}
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True, slots=True, eq=False)
class Site:
    """One possible mutant: ``node`` (held at ``parent.field[index]``) becomes ``replacement``.

    ``scope`` is the qualified name of the function holding the node (``Class.method``; a
    function nested in it, a lambda or a comprehension counts as part of it), or of the class
    whose body holds it, or ``<module>``.  ``unit`` is the function whose tests must run
    against the mutant — ``None`` when the node runs at import time (module level, class
    bodies, decorators, default values), where every test must run.
    """

    operator: str
    node: ast.AST
    replacement: ast.AST
    parent: ast.AST
    field: str
    index: int | None
    scope: str
    unit: str | None
    description: str


@dataclass(frozen=True, slots=True)
class _Where:
    """Walking context: the qualified name so far and the function unit we are in."""

    qualname: tuple[str, ...] = ()
    unit: str | None = None
    returns_none: bool = False  # the enclosing function is annotated ``-> None``

    @property
    def scope(self) -> str:
        return self.unit or (".".join(self.qualname) if self.qualname else MODULE_SCOPE)


def find_sites(tree: ast.Module) -> list[Site]:
    """Every mutant the operators can make in ``tree``, in source order."""
    finder = _Finder()
    finder.body(tree, "body", _Where())
    return finder.sites


def function_units(tree: ast.Module) -> dict[str, tuple[int, int]]:
    """Each function unit's body lines: ``{"Class.method": (first line, last line)}``.

    A test that executes any line in that range ran the function.  The ``def`` line itself,
    its decorators and default values run at import time and are not part of the range.
    """
    units: dict[str, tuple[int, int]] = {}

    def walk(body: list[ast.stmt], prefix: tuple[str, ...]) -> None:
        for statement in body:
            if isinstance(statement, _FUNCTIONS):
                name = ".".join((*prefix, statement.name))
                end = statement.end_lineno or statement.body[-1].lineno
                units[name] = (statement.body[0].lineno, end)
            elif isinstance(statement, ast.ClassDef):
                walk(statement.body, (*prefix, statement.name))
            elif isinstance(statement, ast.If | ast.Try | ast.With):
                for field in ("body", "orelse", "finalbody"):
                    walk(getattr(statement, field, []), prefix)
                for handler in getattr(statement, "handlers", []):
                    walk(handler.body, prefix)

    walk(tree.body, ())
    return units


def is_req_call(node: ast.AST | None) -> bool:
    """``req("MQCN-…")`` (or ``catalog.req(...)``): a guarded requirement ID, never mutated."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (isinstance(func, ast.Name) and func.id == "req") or (
        isinstance(func, ast.Attribute) and func.attr == "req"
    )


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _skipped_if(statement: ast.If) -> bool:
    """``if TYPE_CHECKING:`` and ``if __name__ == "__main__":`` blocks are left alone."""
    test = statement.test
    if isinstance(test, ast.Name | ast.Attribute):
        name = test.id if isinstance(test, ast.Name) else test.attr
        return name == "TYPE_CHECKING"
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
    )


def _assigns_dunder_all(statement: ast.stmt) -> bool:
    targets: list[ast.expr] = []
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, ast.AugAssign | ast.AnnAssign):
        targets = [statement.target]
    return any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)


def _number(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    )


class _Finder:
    """The walk behind :func:`find_sites`: statements and expressions, with their scope."""

    def __init__(self) -> None:
        self.sites: list[Site] = []

    # --- recording ------------------------------------------------------------------------
    def add(
        self,
        operator: str,
        node: ast.AST,
        replacement: ast.AST,
        at: tuple[ast.AST, str, int | None],
        where: _Where,
        description: str,
    ) -> None:
        parent, field, index = at
        site = Site(
            operator, node, replacement, parent, field, index, where.scope, where.unit, description
        )
        self.sites.append(site)

    # --- statements -----------------------------------------------------------------------
    def body(self, parent: ast.AST, field: str, where: _Where) -> None:
        statements: list[ast.stmt] = getattr(parent, field)
        for index, statement in enumerate(statements):
            self.statement(statement, (parent, field, index), where)

    def statement(self, node: ast.stmt, at: tuple[ast.AST, str, int | None], where: _Where) -> None:
        if isinstance(node, ast.Import | ast.ImportFrom | ast.Assert | ast.Global | ast.Nonlocal):
            return
        if isinstance(node, _FUNCTIONS):
            self.function(node, where)
        elif isinstance(node, ast.ClassDef):
            inner = _Where((*where.qualname, node.name), where.unit, where.returns_none)
            self.body(node, "body", inner)
        elif isinstance(node, ast.If):
            if not _skipped_if(node):
                self.if_statement(node, where)
        elif isinstance(node, ast.While):
            self.not_insert(node, "test", where)
            self.expression(node.test, (node, "test", None), where)
            self.body(node, "body", where)
            self.body(node, "orelse", where)
        elif isinstance(node, ast.Return):
            self.return_statement(node, at, where)
        elif isinstance(node, ast.Expr):
            if is_req_call(node.value) or _is_docstring(node):
                return
            if isinstance(node.value, ast.Call):
                self.add("StatementDelete", node, ast.Pass(), at, where, "delete call statement")
            self.expression(node.value, (node, "value", None), where)
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            self.assignment(node, at, where)
        elif isinstance(node, ast.Delete):
            self.add("StatementDelete", node, ast.Pass(), at, where, "delete del statement")
            self.children(node, where)
        elif isinstance(node, ast.Break | ast.Continue):
            other = ast.Continue() if isinstance(node, ast.Break) else ast.Break()
            name = type(node).__name__.lower()
            self.add("BreakContinue", node, other, at, where, f"{name} -> {_keyword(other)}")
        else:  # for, with, try, raise, match...: their expressions and nested bodies
            if isinstance(node, ast.For | ast.AsyncFor):
                self.loop_table(node.iter, where)
            self.children(node, where)

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, where: _Where) -> None:
        # Default values run at definition time: they belong to the enclosing scope.
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self.expression(default, _locate(node.args, default), where)
        returns_none = isinstance(node.returns, ast.Constant) and node.returns.value is None
        qualname = (*where.qualname, node.name)
        unit = where.unit or ".".join(qualname)
        self.body(node, "body", _Where(qualname, unit, returns_none))

    def if_statement(self, node: ast.If, where: _Where) -> None:
        at = (node, "test", None)
        if not isinstance(node.test, ast.Constant):
            self.add("IfTrue", node.test, ast.Constant(True), at, where, "if C -> if True")
            self.add("IfFalse", node.test, ast.Constant(False), at, where, "if C -> if False")
        self.not_insert(node, "test", where)
        self.expression(node.test, at, where)
        self.body(node, "body", where)
        self.body(node, "orelse", where)

    def not_insert(self, node: ast.AST, field: str, where: _Where) -> None:
        test = getattr(node, field)
        if isinstance(test, ast.Constant) or (
            isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
        ):
            return  # a constant is IfTrue/IfFalse's business, `not not X` NotRemove's
        replacement = ast.UnaryOp(ast.Not(), test)
        self.add("NotInsert", test, replacement, (node, field, None), where, "C -> not C")

    def return_statement(
        self, node: ast.Return, at: tuple[ast.AST, str, int | None], where: _Where
    ) -> None:
        value = node.value
        if value is None:
            return
        returns_none = isinstance(value, ast.Constant) and value.value is None
        if where.unit is not None and not where.returns_none and not returns_none:
            replacement = ast.Return(ast.Constant(None))
            self.add("ReturnNone", node, replacement, at, where, "return X -> return None")
        self.expression(value, (node, "value", None), where)

    def assignment(
        self,
        node: ast.Assign | ast.AugAssign | ast.AnnAssign,
        at: tuple[ast.AST, str, int | None],
        where: _Where,
    ) -> None:
        if _assigns_dunder_all(node) or is_req_call(node.value):
            return
        in_class_body = where.unit is None and bool(where.qualname)
        if node.value is not None and not (isinstance(node, ast.AnnAssign) and in_class_body):
            kind = "augmented assignment" if isinstance(node, ast.AugAssign) else "assignment"
            self.add("StatementDelete", node, ast.Pass(), at, where, f"delete {kind}")
        if isinstance(node, ast.AugAssign) and type(node.op) in _ARITH_SWAPS:
            new_op = _ARITH_SWAPS[type(node.op)]()
            swapped = ast.AugAssign(node.target, new_op, node.value)
            text = f"{_SYMBOLS[type(node.op)]}= -> {_SYMBOLS[type(new_op)]}="
            self.add("ArithSwap", node, swapped, at, where, text)
        if isinstance(node, ast.AugAssign):
            plain = ast.copy_location(ast.Assign([node.target], node.value), node)
            text = f"{_SYMBOLS.get(type(node.op), type(node.op).__name__)}= -> ="
            self.add("AugAssignToAssign", node, plain, at, where, text)
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:  # subscripts in targets: x[1] = ...
            self.expression(target, _locate(node, target), where)
        if node.value is not None:
            self.expression(node.value, (node, "value", None), where)

    def children(self, node: ast.AST, where: _Where) -> None:
        """Visit every child of ``node`` (statements as statements, expressions as such)."""
        for field, value in ast.iter_fields(node):
            if field in ("annotation", "returns", "decorator_list", "type_comment"):
                continue
            if isinstance(value, list):
                if value and all(isinstance(item, ast.stmt) for item in value):
                    self.body(node, field, where)
                    continue
                for index, item in enumerate(value):
                    if isinstance(item, ast.expr):
                        self.expression(item, (node, field, index), where)
                    elif isinstance(item, ast.AST):
                        self.children(item, where)
            elif isinstance(value, ast.expr):
                self.expression(value, (node, field, None), where)
            elif isinstance(value, ast.AST):
                self.children(value, where)

    # --- expressions ----------------------------------------------------------------------
    def expression(self, node: ast.AST, at: tuple[ast.AST, str, int | None], where: _Where) -> None:
        if isinstance(node, ast.JoinedStr) or is_req_call(node):
            return  # message texts; requirement IDs
        if isinstance(node, ast.Constant):
            self.constant(node, at, where)
            return
        if isinstance(node, ast.Call):
            self.argument_deletes(node, at, where)
            self.call_keys(node, where)
        elif isinstance(node, ast.Dict):
            for index, key in enumerate(node.keys):
                if key is not None:
                    self.string_key(key, (node, "keys", index), where)
        elif isinstance(node, ast.Subscript):
            self.string_key(node.slice, (node, "slice", None), where)
        if isinstance(node, ast.Compare):
            self.string_key(node.left, (node, "left", None), where)
            for index, comparator in enumerate(node.comparators):
                self.string_key(comparator, (node, "comparators", index), where)
                if isinstance(comparator, ast.Tuple | ast.List | ast.Set):
                    for inner, item in enumerate(comparator.elts):
                        self.string_key(item, (comparator, "elts", inner), where)
            for index, op in enumerate(node.ops):
                if type(op) in _COMPARE_SWAPS:
                    new = _COMPARE_SWAPS[type(op)]()
                    ops = [*node.ops[:index], new, *node.ops[index + 1 :]]
                    swapped = ast.Compare(node.left, ops, node.comparators)
                    text = f"{_SYMBOLS[type(op)]} -> {_SYMBOLS[type(new)]}"
                    self.add("CompareSwap", node, swapped, at, where, text)
        elif isinstance(node, ast.BoolOp):
            new_op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
            text = f"{_SYMBOLS[type(node.op)]} -> {_SYMBOLS[type(new_op)]}"
            self.add("BoolOpSwap", node, ast.BoolOp(new_op, node.values), at, where, text)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            self.add("NotRemove", node, node.operand, at, where, "not X -> X")
        elif isinstance(node, ast.BinOp) and type(node.op) in _ARITH_SWAPS:
            new_op = _ARITH_SWAPS[type(node.op)]()
            text = f"{_SYMBOLS[type(node.op)]} -> {_SYMBOLS[type(new_op)]}"
            self.add("ArithSwap", node, ast.BinOp(node.left, new_op, node.right), at, where, text)
        elif isinstance(node, ast.IfExp):
            self.not_insert(node, "test", where)
        elif isinstance(node, ast.Lambda):
            for default in [*node.args.defaults, *node.args.kw_defaults]:
                if default is not None:
                    self.expression(default, _locate(node.args, default), where)
            self.expression(node.body, (node, "body", None), where)
            return
        self.children(node, where)

    # --- issue 17: argument deletion and key strings ------------------------------------------
    def argument_deletes(
        self, node: ast.Call, at: tuple[ast.AST, str, int | None], where: _Where
    ) -> None:
        """One mutant per argument: the call without it.  Message texts (string constants,
        f-strings) are never deleted, for the reason they are never altered."""
        for index, argument in enumerate(node.args):
            if _is_text(argument):
                continue
            args = [*node.args[:index], *node.args[index + 1 :]]
            shorter = ast.Call(node.func, args, node.keywords)
            text = f"argument {index + 1} deleted"
            self.add("ArgDelete", node, shorter, at, where, text)
        for index, keyword in enumerate(node.keywords):
            if _is_text(keyword.value):
                continue
            keywords = [*node.keywords[:index], *node.keywords[index + 1 :]]
            shorter = ast.Call(node.func, node.args, keywords)
            name = f"{keyword.arg}=" if keyword.arg else "**"
            self.add("ArgDelete", node, shorter, at, where, f"argument {name} deleted")

    def call_keys(self, node: ast.Call, where: _Where) -> None:
        """Attribute names given to getattr & co, keys given to .get & co."""
        func = node.func
        if isinstance(func, ast.Name) and func.id in _NAME_FUNCTIONS and len(node.args) > 1:
            self.string_key(node.args[1], (node, "args", 1), where)
        elif isinstance(func, ast.Attribute) and func.attr in _KEY_METHODS and node.args:
            self.string_key(node.args[0], (node, "args", 0), where)
            if isinstance(node.args[0], ast.Tuple):  # s.startswith(("a", "b"))
                for index, item in enumerate(node.args[0].elts):
                    self.string_key(item, (node.args[0], "elts", index), where)

    def loop_table(self, iterable: ast.expr, where: _Where) -> None:
        """``for a, b in (("x", 1), ("y", 2)):`` — the strings of a literal table."""
        if not isinstance(iterable, ast.Tuple | ast.List):
            return
        for row in iterable.elts:
            if isinstance(row, ast.Tuple):
                for index, item in enumerate(row.elts):
                    self.string_key(item, (row, "elts", index), where)

    def string_key(self, node: ast.AST, at: tuple[ast.AST, str, int | None], where: _Where) -> None:
        if not (isinstance(node, ast.Constant) and type(node.value) is str):
            return
        if _REQUIREMENT_ID.match(node.value):
            return  # guarded by req(): a mutated ID fails at import
        altered = node.value + STRING_SUFFIX
        text = f"{node.value!r} -> {altered!r}"
        self.add("StringAlter", node, ast.Constant(altered), at, where, text)

    def constant(
        self, node: ast.Constant, at: tuple[ast.AST, str, int | None], where: _Where
    ) -> None:
        value = node.value
        if isinstance(value, bool):
            self.add(
                "TrueFalse", node, ast.Constant(not value), at, where, f"{value} -> {not value}"
            )
        elif _number(node):
            bigger = value + 1
            self.add(
                "NumberIncrement", node, ast.Constant(bigger), at, where, f"{value} -> {bigger}"
            )
            if value != 0:
                zero = type(value)(0)
                self.add("NumberZero", node, ast.Constant(zero), at, where, f"{value} -> {zero}")


def _is_text(node: ast.AST) -> bool:
    """A message text: a string constant or an f-string."""
    return isinstance(node, ast.JoinedStr) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str)
    )


def _keyword(node: ast.AST) -> str:
    return type(node).__name__.lower()


def _locate(parent: ast.AST, child: ast.AST) -> tuple[ast.AST, str, int | None]:
    """Where ``child`` sits in ``parent``: the field name and, for a list field, its index."""
    for field, value in ast.iter_fields(parent):
        if value is child:
            return parent, field, None
        if isinstance(value, list):
            for index, item in enumerate(value):
                if item is child:
                    return parent, field, index
    raise ValueError(f"{ast.dump(child)[:60]} is not a child of {type(parent).__name__}")


def iter_operator_names() -> Iterator[str]:
    """The operator names, in the order docs/mutation.md lists them."""
    yield from OPERATORS
