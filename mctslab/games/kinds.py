"""Kinds of games: how many players, whether chance moves, whether anything is hidden.

A game declares its kind with three class attributes of
:class:`~mctslab.games.base.Game` (``num_players``, ``has_chance``,
``perfect_information``), after OpenSpiel's ``GameType``; :meth:`Game.kind
<mctslab.games.base.Game.kind>` gathers them into a :class:`GameKind`. Agents declare
which traits (:data:`TRAITS`) they can play and ask the game for its own: none of
them tests a game's type.
"""

from __future__ import annotations

from functools import cache
from typing import Final, NamedTuple

CHANCE: Final = -1
"""What :meth:`Game.to_move <mctslab.games.base.Game.to_move>` returns at a chance node.

At a chance node no player chooses: the next move (a die's face, a card dealt) is drawn
with the probabilities of :meth:`Game.chance_outcomes
<mctslab.games.base.Game.chance_outcomes>`. As in OpenSpiel, where the chance player is -1."""

ONE_PLAYER: Final = "one player"
TWO_PLAYERS: Final = "two players"
MANY_PLAYERS: Final = "more than two players"
WITH_CHANCE: Final = "chance"
HIDDEN_INFORMATION: Final = "hidden information"

TRAITS: Final = frozenset({ONE_PLAYER, TWO_PLAYERS, MANY_PLAYERS, WITH_CHANCE, HIDDEN_INFORMATION})
"""Every trait a game can have: one of the three player counts, and chance and hidden information if it has them."""

CLASSIC: Final = frozenset({TWO_PLAYERS})
"""The traits of a two-player game without chance or hidden information (tic-tac-toe, Connect Four, Nim)."""


class GameKind(NamedTuple):
    """What kind of game a game is (see :meth:`Game.kind <mctslab.games.base.Game.kind>`).

    Attributes:
        players: the number of players, >= 1.
        chance: True if some positions are chance nodes (``to_move`` is :data:`CHANCE`).
        perfect_information: False if a player may not see all of the position
            (:meth:`~mctslab.games.base.Game.information_state` tells what each sees).
    """

    players: int
    chance: bool
    perfect_information: bool

    @property
    def traits(self) -> frozenset[str]:
        """This kind as a set of :data:`TRAITS`, e.g. ``{"two players", "chance"}``."""
        return _traits(self.players, self.chance, self.perfect_information)

    def describe(self) -> str:
        """Words for messages: ``"a one-player game with chance"``, ``"a two-player game with hidden information"``."""
        players = {1: "one-player", 2: "two-player"}.get(self.players, f"{self.players}-player")
        extra = [
            word
            for flag, word in ((self.chance, "chance"), (not self.perfect_information, "hidden information"))
            if flag
        ]
        return f"a {players} game" + (f" with {' and '.join(extra)}" if extra else "")


def describe_traits(traits: frozenset[str]) -> str:
    """Words for what an agent plays, e.g. ``"two-player games without chance or hidden information"``."""
    names = {ONE_PLAYER: "one-player", TWO_PLAYERS: "two-player", MANY_PLAYERS: "many-player"}
    counts = [name for trait, name in names.items() if trait in traits]
    with_ = [t for t in (WITH_CHANCE, HIDDEN_INFORMATION) if t in traits]
    without = [t for t in (WITH_CHANCE, HIDDEN_INFORMATION) if t not in traits]
    text = "games of any number of players," if len(counts) == 3 else f"{' or '.join(counts) or 'no'} games"
    if with_:
        text += f" with or without {' or '.join(with_)}"
    if without:
        text += f"{' and' if with_ else ''} without {' or '.join(without)}"
    return text


@cache
def _traits(players: int, chance: bool, perfect_information: bool) -> frozenset[str]:
    """:attr:`GameKind.traits`, made once per kind (every search asks for its game's)."""
    count = ONE_PLAYER if players == 1 else TWO_PLAYERS if players == 2 else MANY_PLAYERS
    traits = {count}
    if chance:
        traits.add(WITH_CHANCE)
    if not perfect_information:
        traits.add(HIDDEN_INFORMATION)
    return frozenset(traits)
