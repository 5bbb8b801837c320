"""Code normalised and fingerprinted: the tokens two copies share whatever their names, comments and layout.

:func:`tokens` parses the code with :mod:`ast` and lists its syntax tree in order (each
node's kind, then its names and constants, then its children; a block's end marked), so
formatting and comments are gone; docstrings, bare strings and type annotations are left
out, and every name the code binds itself is renamed (:class:`_Tokens`).
:func:`fingerprint` winnows the tokens as MOSS does (Schleimer, Wilkerson and Aiken 2003,
"Winnowing: local algorithms for document fingerprinting"): every :data:`K` consecutive
tokens are hashed, and in each window of :data:`W` consecutive hashes the smallest is
kept, so any run of ``K + W - 1`` tokens two codes share gives them a fingerprint in common.
"""

from __future__ import annotations

import ast
import hashlib

__all__ = ["K", "W", "fingerprint", "normalise", "tokens"]

K = 5
"""Tokens per hashed k-gram (MOSS's noise threshold: shorter runs in common are ignored)."""
W = 4
"""Hashes per window: any run of ``K + W - 1 = 8`` tokens in common is found."""


def _stored(node: ast.AST) -> set[str]:
    """The variables bound anywhere in ``node``: definitions, arguments, assignments, imports, ``except ... as``."""
    names = set()
    for n in ast.walk(node):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n is not node:
            names.add(n.name)
        elif isinstance(n, ast.arg):
            names.add(n.arg)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            names.add(n.id)
        elif isinstance(n, ast.alias):
            names.add(n.asname or n.name.split(".")[0])
        elif isinstance(n, ast.ExceptHandler) and n.name:
            names.add(n.name)
    return names


def _attributes(tree: ast.AST) -> set[str]:
    """The attributes the code chooses itself: those it assigns, its methods and its class-level names."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            found.add(node.attr)
        elif isinstance(node, ast.ClassDef):
            for statement in node.body:
                if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    found.add(statement.name)
                else:
                    stored = (
                        n for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
                    )
                    found |= {n.id for n in stored}
    return found


_BLOCKS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.While, ast.With, ast.Try)
_QUIET = (ast.expr_context,)  # Load / Store: said by where a name stands


class _Tokens:
    """The token lists of a tree: ``canonical`` (own names ``g0``, ``l0``, ``a0``, ... by first use) and ``plain``.

    Each name the code binds itself is renamed; the names it only reads (``math``, ``max``,
    ``TreeNode``, ``node.untried``) stay, since the exercise fixes them. Scopes are kept apart
    (each function's arguments and variables are numbered on their own, ``l0``, ``l1``, ...;
    the module's ``g0``, ...), and so are attributes (``a0``, ...), so that ``self.c = c`` and
    ``def score(child, parent_visits, c)`` read the same whether or not the student reuses a
    name. In ``plain``, every own name is ``V`` and every own attribute ``A``: renaming a few
    names, or adding one, changes nothing that winnowing compares.
    """

    def __init__(self, tree: ast.Module) -> None:
        self.canonical: list[str] = []
        self.plain: list[str] = []
        self.attribute_names = _attributes(tree)
        self.attributes: dict[str, str] = {}
        self.scopes: list[tuple[set[str], dict[str, str], str]] = [(_stored(tree), {}, "g")]
        self.in_class = False

    def emit(self, canonical: str, plain: str | None = None) -> None:
        self.canonical.append(canonical)
        self.plain.append(canonical if plain is None else plain)

    def name(self, old: str) -> None:
        if self.in_class:
            self.attribute(old)
            return
        for bound, names, prefix in reversed(self.scopes):
            if old in bound:
                self.emit(names.setdefault(old, f"{prefix}{len(names)}"), "V")
                return
        self.emit(old)

    def attribute(self, old: str) -> None:
        if old in self.attribute_names:
            self.emit(self.attributes.setdefault(old, f"a{len(self.attributes)}"), "A")
        else:
            self.emit(old)

    def children(self, node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            self.visit(child)

    def visit(self, node: ast.AST) -> None:
        if isinstance(node, _QUIET):
            return
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            return  # a docstring, a bare string, `...`
        if isinstance(node, ast.AnnAssign):
            if node.value is not None:  # `x: int = 1` is `x = 1`; `x: int` alone says nothing
                self.emit("Assign")
                self.visit(node.target)
                self.visit(node.value)
            return
        self.emit(type(node).__name__)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.name(node.name)
            outer, self.in_class = self.in_class, False
            self.scopes.append((_stored(node), {}, "l"))
            for part in (*node.decorator_list, node.args, *node.body):  # the return annotation left out
                self.visit(part)
            self.scopes.pop()
            self.in_class = outer
        elif isinstance(node, ast.ClassDef):
            self.name(node.name)
            for part in (*node.decorator_list, *node.bases, *node.keywords):
                self.visit(part)
            outer, self.in_class = self.in_class, True
            for statement in node.body:
                self.visit(statement)
            self.in_class = outer
        elif isinstance(node, ast.Name):
            self.name(node.id)
        elif isinstance(node, ast.arg):
            self.name(node.arg)  # its annotation left out
        elif isinstance(node, ast.keyword):
            if node.arg is not None:
                self.name(node.arg)
            self.visit(node.value)
        elif isinstance(node, ast.Attribute):
            self.visit(node.value)
            self.attribute(node.attr)
        elif isinstance(node, ast.Constant):
            self.emit(repr(node.value))
        elif isinstance(node, ast.alias):
            self.emit(node.name)
            if node.asname:
                self.name(node.asname)
        elif isinstance(node, ast.ExceptHandler):
            if node.type is not None:
                self.visit(node.type)
            if node.name:
                self.name(node.name)
            for statement in node.body:
                self.visit(statement)
        else:
            self.children(node)
        if isinstance(node, _BLOCKS):
            self.emit("end")


def tokens(code: str | list[ast.stmt]) -> tuple[list[str], list[str]]:
    """The normalised tokens of ``code``: ``(canonical, plain)`` (see :class:`_Tokens`).

    Two codes have the same canonical tokens exactly when one is the other with its own names
    changed (consistently), its comments, docstrings, type annotations or layout changed.

    Args:
        code: Python source, or top-level definitions (:mod:`ast` nodes; they are not changed).

    Raises:
        SyntaxError: for source that is not Python.
    """
    module = ast.parse(code) if isinstance(code, str) else ast.Module(body=list(code), type_ignores=[])
    found = _Tokens(module)
    for statement in module.body:
        found.visit(statement)
    return found.canonical, found.plain


def normalise(code: str | list[ast.stmt], canonical: bool = False) -> list[str]:
    """The canonical tokens of ``code`` (``canonical=True``), else the plain ones that winnowing compares."""
    return tokens(code)[0 if canonical else 1]


def _hash(gram: tuple[str, ...]) -> int:
    return int.from_bytes(hashlib.blake2b("\x00".join(gram).encode(), digest_size=8).digest(), "big")


def fingerprint(tokens: list[str], k: int = K, w: int = W) -> frozenset[int]:
    """The winnowed fingerprints of ``tokens``: in each window of ``w`` k-gram hashes, the smallest.

    Positions are not kept (the similarity compares the sets), so which of two equal smallest
    hashes is chosen does not matter. Fewer than ``k + w - 1`` tokens give at most one fingerprint.
    """
    hashes = [_hash(tuple(tokens[i : i + k])) for i in range(len(tokens) - k + 1)]
    if len(hashes) <= w:
        return frozenset([min(hashes)] if hashes else [])
    return frozenset(min(hashes[start : start + w]) for start in range(len(hashes) - w + 1))
