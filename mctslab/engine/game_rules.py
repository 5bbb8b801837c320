"""How the kernels call a game's compiled rules: a game's :class:`~mctslab.games.compiled.CompiledGame` as a Numba type.

A kernel takes the game's record as its first argument (``rules``). Numba types it as
:class:`RulesType`, one type per ``rules`` function of the games (a game file's
``compiled_rules``), whatever the game's parameters; :func:`game_legal`, :func:`game_apply`
and :func:`game_rollout` are overloaded on that type and inline the game's own compiled
functions. So each kernel is compiled once per game file (and cached on disk by Numba,
keyed by its argument types): the engine names no game, and a new game's rules are as
fast as the built-in ones (the same code as when they were written into the kernels).

The type's key holds a hash of the source of the game's module, of :mod:`mctslab.games._jit`
and of this module: Numba's cache checks only the kernels' own file, so without it a changed
game would run the kernels compiled for its old rules.
"""

from __future__ import annotations

import hashlib
import inspect
import sys
import warnings
from collections.abc import Callable
from functools import cache
from typing import Any

from numba import types
from numba.core.errors import NumbaIRAssumptionWarning
from numba.core.extending import NativeValue, intrinsic, models, overload, register_model, typeof_impl, unbox

from ..games import _jit
from ..games.compiled import CompiledGame

__all__ = ["RulesType", "game_apply", "game_legal", "game_rollout", "rules_key"]

warnings.filterwarnings("ignore", category=NumbaIRAssumptionWarning, module=r"numba\.core\.ssa")
# Inlining the game's functions into the overloads below (inline="always", as the kernels inlined their games' code
# before) makes Numba's internal SSA check warn that a renamed variable "is not in scope" (a pedantic check that asks
# for a bug report, not an error: the kernels build the same trees bit for bit); calls instead of inlining cost speed.

_RULES: dict[str, Callable[[], Any]] = {}
"""The ``rules`` function of every key typed in this process (the overloads look the functions up here)."""


@cache
def _source_hash(module: str) -> str:
    """A short hash of a module's source (its file's text)."""
    return hashlib.sha1(inspect.getsource(sys.modules[module]).encode()).hexdigest()[:16]


@cache
def rules_key(rules: Callable[[], Any]) -> str:
    """The key of a game's ``rules`` function: its dotted name and a hash of the source of its module, of ``_jit``
    and of this module (what the kernels inline besides their own file, which Numba's cache checks itself)."""
    sources = _source_hash(rules.__module__) + _source_hash(_jit.__name__)[:8] + _source_hash(__name__)[:8]
    key = f"{rules.__module__}.{rules.__qualname__}@{sources}"
    _RULES[key] = rules
    return key


class RulesType(types.Type):
    """The Numba type of a :class:`~mctslab.games.compiled.CompiledGame`: one per ``rules`` function (``key``)."""

    def __init__(self, key: str) -> None:
        self.key_name = key
        super().__init__(name=f"GameRules({key})")

    def functions(self) -> Any:
        """The game's compiled ``legal``, ``apply`` and ``rollout``."""
        return _RULES[self.key_name]()


@cache
def _rules_type(rules: Callable[[], Any]) -> RulesType:
    """The type of the games whose rules are ``rules``, made once (making a Numba type costs microseconds per call)."""
    return RulesType(rules_key(rules))


@typeof_impl.register(CompiledGame)
def _typeof_compiled_game(value: CompiledGame, context: Any) -> RulesType:
    return _rules_type(value.rules)


@register_model(RulesType)
class _RulesModel(models.OpaqueModel):
    """Nothing is passed at run time: the type says which functions to call."""


@unbox(RulesType)
def _unbox_rules(typ: RulesType, obj: Any, c: Any) -> NativeValue:
    return NativeValue(c.context.get_constant_null(typ))


def game_legal(rules, prm, tab, st, out):  # noqa: ANN001, ANN201 - a stub Numba overloads below
    """The game's ``legal(prm, tab, st, out)``: its legal moves into ``out``; their number."""


def game_apply(rules, prm, tab, st, move):  # noqa: ANN001, ANN201
    """The game's ``apply(prm, tab, st, move)``: ``move`` played in ``st``."""


def game_rollout(rules, prm, tab, st, buf, limit, played, mark):  # noqa: ANN001, ANN201
    """The game's ``rollout(prm, tab, st, buf, limit, played, mark)``: a random playout's result."""


@overload(game_legal, inline="always")
def _legal(rules, prm, tab, st, out):  # noqa: ANN001, ANN202
    if isinstance(rules, RulesType):
        legal = rules.functions().legal

        def impl(rules, prm, tab, st, out):  # noqa: ANN001, ANN202
            return legal(prm, tab, st, out)

        return impl
    return None


@overload(game_apply, inline="always")
def _apply(rules, prm, tab, st, move):  # noqa: ANN001, ANN202
    if isinstance(rules, RulesType):
        apply = rules.functions().apply

        def impl(rules, prm, tab, st, move):  # noqa: ANN001, ANN202
            apply(prm, tab, st, move)

        return impl
    return None


def borrowed_view(context, builder, signature, args):  # noqa: ANN001, ANN201
    """Codegen of a view of ``args[0]`` (typed ``signature.return_type``) that holds no reference (a null meminfo)."""
    source = context.make_array(signature.args[0])(context, builder, value=args[0])
    view = context.make_array(signature.return_type)(context, builder)
    context.populate_array(
        view, data=source.data, shape=source.shape, strides=source.strides, itemsize=source.itemsize, meminfo=None
    )
    return view._getvalue()


@intrinsic
def _writable(typingctx, array):  # noqa: ANN001, ANN202
    """A view of ``array`` typed writable, holding no reference: the empty table a rollout that marks nothing gets
    (a constant, so read-only to Numba; never written: ``mark`` is False), typed as a table it could mark."""
    if not isinstance(array, types.Array):
        return None
    return array.copy(readonly=False)(array), borrowed_view


@overload(game_rollout, inline="always")
def _rollout(rules, prm, tab, st, buf, limit, played, mark):  # noqa: ANN001, ANN202
    if isinstance(rules, RulesType):
        rollout = rules.functions().rollout

        def impl(rules, prm, tab, st, buf, limit, played, mark):  # noqa: ANN001, ANN202
            return rollout(prm, tab, st, buf, limit, _writable(played), mark)

        return impl
    return None
