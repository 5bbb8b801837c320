"""Code normalised and fingerprinted: the tokens two copies share whatever their names, comments and layout.

:func:`normalise` parses the code with :mod:`ast`, drops docstrings, bare strings and
type annotations, renames every name the code binds itself (:class:`_Rename`) and writes
it again with ``ast.unparse`` (so formatting and comments go), then lists its tokens.
:func:`fingerprint` winnows them as MOSS does (Schleimer, Wilkerson and Aiken 2003,
"Winnowing: local algorithms for document fingerprinting"): every :data:`K` consecutive
tokens are hashed, and in each window of :data:`W` consecutive hashes the smallest is
kept, so any run of ``K + W - 1`` tokens two codes share gives them a fingerprint in common.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import io
import tokenize

__all__ = ["K", "W", "fingerprint", "normalise"]

K = 5
"""Tokens per hashed k-gram (MOSS's noise threshold: shorter runs in common are ignored)."""
W = 4
"""Hashes per window: any run of ``K + W - 1 = 8`` tokens in common is found."""


class _Strip(ast.NodeTransformer):
    """Docstrings, bare strings and type annotations out."""

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                kept = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
                setattr(node, field, kept or ([ast.Pass()] if field == "body" else []))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns = None
        if isinstance(node, ast.arg):
            node.annotation = None
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST | None:
        if node.value is None:
            return None
        return ast.Assign(targets=[node.target], value=node.value, lineno=node.lineno)


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
                    found |= {
                        n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
                    }
    return found


class _Rename(ast.NodeTransformer):
    """Each name the code binds to ``g0``, ``l0``, ``a0``, ... in the order first met (``canonical``), else ``V``.

    Scopes are kept apart (each function's arguments and variables are numbered on their own, ``l0``,
    ``l1``, ...; the module's ``g0``, ...), and so are attributes (``a0``, ...): ``self.c = c`` and
    ``def score(child, parent_visits, c)`` stay what they are whether or not the student reuses a name.
    """

    def __init__(self, tree: ast.Module, canonical: bool) -> None:
        self.canonical = canonical
        self.attributes: dict[str, str] = {}
        self.attribute_names = _attributes(tree)
        self.scopes: list[tuple[set[str], dict[str, str], str]] = [(_stored(tree), {}, "g")]
        self.in_class = False

    def _new(self, old: str, names: dict[str, str], prefix: str) -> str:
        if not self.canonical:
            return "A" if prefix == "a" else "V"
        return names.setdefault(old, f"{prefix}{len(names)}")

    def name(self, old: str) -> str:
        for bound, names, prefix in reversed(self.scopes):
            if old in bound:
                return self._new(old, names, prefix)
        return old

    def attribute(self, old: str) -> str:
        return self._new(old, self.attributes, "a") if old in self.attribute_names else old

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self.attribute(node.id) if self.in_class else self.name(node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg = self.name(node.arg)
        return node

    def visit_keyword(self, node: ast.keyword) -> ast.AST:
        if node.arg is not None:
            node.arg = self.name(node.arg)
        return self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        node.attr = self.attribute(node.attr)
        return self.generic_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        node.name = self.attribute(node.name) if self.in_class else self.name(node.name)
        outer, self.in_class = self.in_class, True
        try:
            return self.generic_visit(node)
        finally:
            self.in_class = outer

    def _function(self, node: ast.AST) -> ast.AST:
        node.name = self.attribute(node.name) if self.in_class else self.name(node.name)
        outer, self.in_class = self.in_class, False
        self.scopes.append((_stored(node), {}, "l"))
        try:
            return self.generic_visit(node)
        finally:
            self.scopes.pop()
            self.in_class = outer

    visit_FunctionDef = visit_AsyncFunctionDef = _function


_SKIP = {tokenize.NL, tokenize.COMMENT, tokenize.ENCODING, tokenize.ENDMARKER}
_SHOWN = {tokenize.NEWLINE: ";", tokenize.INDENT: "{", tokenize.DEDENT: "}"}


def normalise(code: str | list[ast.stmt], canonical: bool = False) -> list[str]:
    """The tokens of ``code`` with docstrings, comments, annotations and formatting gone and its own names renamed.

    Args:
        code: Python source, or definitions from :func:`part_code`.
        canonical: rename each bound name by first use, scope by scope (:class:`_Rename`): two codes
            then have the same tokens exactly when one is the other renamed. Else every bound name to
            ``V`` and every own attribute to ``A`` (what winnowing compares: renaming changes nothing).

    Raises:
        SyntaxError: for source that is not Python.
    """
    module = ast.parse(code) if isinstance(code, str) else ast.Module(body=copy.deepcopy(code), type_ignores=[])
    module = _Strip().visit(module)
    module = _Rename(module, canonical).visit(module)
    text = ast.unparse(ast.fix_missing_locations(module))
    tokens = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type not in _SKIP:
            tokens.append(_SHOWN.get(token.type, token.string))
    return tokens


def _hash(gram: tuple[str, ...]) -> int:
    return int.from_bytes(hashlib.blake2b("\x00".join(gram).encode(), digest_size=8).digest(), "big")


def fingerprint(tokens: list[str], k: int = K, w: int = W) -> frozenset[int]:
    """The winnowed fingerprints of ``tokens``: in each window of ``w`` k-gram hashes, the smallest (rightmost)."""
    hashes = [_hash(tuple(tokens[i : i + k])) for i in range(len(tokens) - k + 1)]
    if len(hashes) <= w:
        return frozenset(hashes[-1:] and [min(hashes)])
    chosen = set()
    for start in range(len(hashes) - w + 1):
        window = hashes[start : start + w]
        low = min(window)
        chosen.add(low)  # positions are not kept: Jaccard compares the sets
    return frozenset(chosen)
