"""Tournaments with honest statistics: matches, round robins, Elo, on any executor.

* :func:`play_match`: N games between two agents, seats swapped (or fixed), per-game
  seeds from ``numpy.random.SeedSequence``, results resumable from a JSON-lines file;
* :func:`round_robin`: every pair plays a match; a score table and Elo ratings
  (:func:`bradley_terry`) with 95% intervals;
* :func:`wilson`, :class:`Outcomes`, :func:`games_needed` (two rates) and
  :func:`games_needed_one_sample` (one rate against a fixed value): the statistics.

Everything runs on one core, a process pool (the default) or a Dask cluster
(``executor=client.get_executor()``), with the same results.
"""

from .elo import EloRatings, bradley_terry
from .match import SEATS, MatchResult, play_match, read_match
from .records import GameResult, GameTask, game_seed
from .results_file import ResultsFileError, ResultsFileWarning
from .roundrobin import RoundRobinResult, round_robin
from .runner import run_games
from .stats import (
    Outcomes,
    as_far_probability,
    games_needed,
    games_needed_one_sample,
    holm,
    score_interval,
    wilson,
)
from .workers import RunIncomplete, RunInterrupted

__all__ = [
    "SEATS",
    "EloRatings",
    "GameResult",
    "GameTask",
    "MatchResult",
    "Outcomes",
    "ResultsFileError",
    "ResultsFileWarning",
    "RoundRobinResult",
    "as_far_probability",
    "RunIncomplete",
    "RunInterrupted",
    "bradley_terry",
    "game_seed",
    "games_needed",
    "games_needed_one_sample",
    "holm",
    "play_match",
    "read_match",
    "round_robin",
    "score_interval",
    "run_games",
    "wilson",
]
