"""``check_chance_uct``: graded checks of a student's UCT through chance nodes (notebook 12).

The agent is the student's UCT of notebook 04b with chance nodes added: at a chance position
(``game.to_move(state) == CHANCE``) the tree holds one child per outcome, an iteration draws
an outcome with its probability (``game.chance_outcomes``) and follows its child (adding it
the first time), each outcome keeps its own statistics, and the backup passes through the
chance node. An outcome's node counts the results of the player who rolled (its ``player`` is
the chance node's). Nodes have ``state``, ``move``, ``children``, ``visits``, ``wins`` (as
:class:`~mctslab.course.exercises.TreeNode`).

Every call into the agent has a time limit (:func:`~mctslab.course.exercises.uct.call_limit`)
and the whole run :data:`TOTAL_SECONDS`; nothing the agent does makes the check hang or raise.
Each check blames one part of the notebook's skeleton (``draw_outcome``, ``select_chance``,
``expand_chance``, ``simulate_chance``, ``backpropagate``, ``search``). The statistical checks
and their false-alarm probabilities are in :mod:`.chance_probes`.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from typing import Any

from ...games import make_game
from .causes import drawn_pair
from .chance_depth import _DepthProbes
from .chance_probes import CHECKS, WEIGHTS, _Failed, _Probes
from .isolation import unchanged_globals
from .limits import TimeLimitExceeded, cpu_seconds, progress, time_limit
from .report import FAILED, NOT_WRITTEN, PASSED, SKIPPED, Check, Report, fail_the_next_check, weighed
from .student import _function, _hang_hint, _recursion, _Skip, _where
from .uct import call_limit

__all__ = ["CHECKS", "TOTAL_SECONDS", "check_chance_uct"]

TOTAL_SECONDS = 60.0
"""The limit of a whole ``check_chance_uct``, in CPU seconds (:mod:`.limits`); a correct student's agent
takes about 2 s."""


class _Runner(_Probes, _DepthProbes):
    """Runs the checks of one agent factory, each call into it under its limit, into a :class:`Report`."""

    def __init__(self, make_agent: Callable[[int], Any], show_progress: bool) -> None:
        super().__init__()
        self.make_agent = make_agent
        self.report = Report("check_chance_uct: your UCT through chance nodes")
        self.stub: str | None = None
        self.out_of_time = False
        self.calling: tuple[str, int | None] = ("make_agent", None)
        self.bar = progress(len(CHECKS), "check_chance_uct", show_progress)

    def call(self, part: str, function: Callable[..., Any], *args: Any, iterations: int | None = None) -> Any:
        self.calling = (part, iterations)
        served = getattr(function, "served_call", None)
        if served is not None:  # the agent lives in a submission's kernel (the grader's judge): its limits apply there
            return served(part, call_limit(iterations), *args)
        with time_limit(call_limit(iterations), part):
            return function(*args)

    def agent(self, seed: int, iterations: int | None = None) -> Any:
        maker = self.make_agent
        if inspect.isclass(maker) and _first_parameter(maker) not in (None, "seed"):
            raise _Failed(
                f"check_chance_uct was given the class `{maker.__name__}`: it calls make_agent(seed). Pass a "
                f"factory: `check_chance_uct(lambda seed: {maker.__name__}(seed=seed))`"
            )
        agent = self.call("make_agent", maker, seed)
        if iterations is not None:
            agent.iterations = iterations
        return agent

    def run(self, name: str) -> None:
        title, needs, part = CHECKS[name]
        if needs == "all":
            needs = tuple(other for other in CHECKS if other != name)
        began = time.perf_counter()
        status, detail, part = self._outcome(name, needs, part)
        self.report.checks.append(Check(name, title, status, detail, part, time.perf_counter() - began))
        self.bar.set_postfix_str(name, refresh=False)
        self.bar.update()

    def _outcome(self, name: str, needs: tuple[str, ...], part: str) -> tuple[str, str, str]:
        if self.stub is not None:
            return NOT_WRITTEN, f"waiting for `{self.stub}`", self.stub
        if self.out_of_time:
            return SKIPPED, f"check_chance_uct ran out of its {TOTAL_SECONDS:g} s of CPU time before this check", part
        blocked = [f"'{self.report[n].title}'" for n in needs if self.report.status(n) != PASSED]
        if blocked:
            those = blocked[0] if len(blocked) == 1 else ", ".join(blocked[:-1]) + " and " + blocked[-1]
            one = len(blocked) == 1
            return SKIPPED, f"runs once {those} pass{'es' * one}: fix {'that' if one else 'those'} first", part
        try:
            ok, detail, *blame = getattr(self, name)()
        except NotImplementedError as err:
            self.stub = _where(err).removeprefix(" in `").removesuffix("`") or "your code"
            return NOT_WRITTEN, f"not written yet: fill in `{self.stub}` above, then run this check again", self.stub
        except _Skip as skip:
            return SKIPPED, str(skip), part
        except _Failed as failed:
            return FAILED, str(failed), failed.part or part
        except TimeLimitExceeded as err:
            return FAILED, *self._overran(err)
        except Exception as err:  # a student's bug: report it, never raise
            cause = self._cause(err)
            if cause is not None:  # a slip elsewhere that this error is the consequence of
                return FAILED, *cause
            recursion = _recursion(err)
            if recursion is not None:  # the student's recursion, never the check's: name the function that recursed
                return FAILED, recursion[1], recursion[0]
            function = _function(err)
            if function is None:
                return (
                    FAILED,
                    (
                        f"the check could not use what your agent returned ({type(err).__name__}: {err}; raised in "
                        "the check, not in your code): look at what `search` and `select_move` return"
                    ),
                    part,
                )
            return FAILED, f"your agent raised {type(err).__name__}{_where(err)}: {err}", function
        return (PASSED if ok else FAILED), detail, (blame[0] if blame else part)

    def _cause(self, err: Exception) -> tuple[str, str] | None:
        """(detail, part) when ``err`` is the consequence of a slip in another function than the one that raised it.

        An (outcome, probability) pair drawn as the outcome fails in ``game.apply``
        (:func:`~.causes.drawn_pair`); a root never counted fails as log(0) in ``ucb1``, once
        the root is fully expanded: a search of one iteration tells it (the root 0 visits,
        its child 1).
        """
        pair = drawn_pair(err)
        if pair is not None:
            return pair, "draw_outcome"
        if not isinstance(err, ValueError | ZeroDivisionError):
            return None
        try:
            game = make_game("pig:target=10")
            root = self.search(self.agent(0, 1), game, game.initial_state())
            below = [ch.visits for ch in root.children if ch.visits]
        except (Exception, TimeLimitExceeded):  # noqa: BLE001 - the probe tells nothing: the error stands as it is
            return None
        if root.visits != 0 or below != [1]:
            return None
        then = f"{type(err).__name__}{_where(err)}: {err}"
        return (
            "after 1 iteration the root has 0 visits and its one child 1: `backpropagate` stops before the root. "
            f"The root's visits are UCB1's N for its children, so later your agent raised {then} (log(0)). Update "
            "every node up to and including the root"
        ), "backpropagate"

    def _overran(self, err: TimeLimitExceeded) -> tuple[str, str]:
        function = _function(err, named=True)
        if err.part == "check_chance_uct":
            self.out_of_time = True
            hint = _hang_hint(function, None, err)
            return f"check_chance_uct stopped after {err.within}, its limit: {hint}", function or self.calling[0]
        part, iterations = self.calling
        at = f" at {iterations} iteration{'s' * (iterations != 1)}" if iterations is not None else ""
        hint = _hang_hint(function, iterations, err)
        return f"your agent's `{part}` did not return within {err.within}{at}: {hint}", function or part


def _first_parameter(cls: type) -> str | None:
    try:
        parameters = [p for p in inspect.signature(cls).parameters.values() if p.kind != p.VAR_KEYWORD]
    except (TypeError, ValueError):
        return None
    return parameters[0].name if parameters else None


def check_chance_uct(make_agent: Callable[[int], Any], show_progress: bool = True) -> Report:
    """Grade a student's UCT through chance nodes: outcomes, their draws, statistics, point of view, play.

    The checks, in order (each runs once those it builds on have passed, so a report points
    at the cause; each names the part of the skeleton at fault):

    * ``factory``: ``make_agent(seed)`` makes an agent of the student's own (not the
      package's UCT, a subclass or a wrapper: :mod:`.provenance`);
    * ``budget``: the root has ``iterations`` visits after a search;
    * ``outcomes``: a chance node's children are outcomes of its position, one child each
      (not one merged child), each holding the position its outcome leads to;
    * ``draws``: a loaded die's faces are drawn in proportion to their probabilities;
    * ``statistics``: a chance node's visits are its outcomes' visits (plus at most the one
      playout from the chance node itself);
    * ``growth``: each iteration adds one node, below the outcomes too (an outcome's node made
      without untried moves, a selection that stops at the outcome's node it reaches);
    * ``point_of_view``: an outcome that ends the game is credited to the player who rolled,
      and a chance node's wins are its outcomes' wins;
    * ``players``: at every depth, each node counts the results of the player who moved into
      it (a child's ``player`` flipped from its parent's is wrong after a roll in Pig);
    * ``playouts``: playouts draw outcomes by their probabilities too;
    * ``playout_policy``: playouts choose the players' moves uniformly at random (exact binomial
      test of the choices the playouts made);
    * ``determinism``: same seed, same trees (names the function that draws from the
      ``random`` module's own generator, when one does);
    * ``strength``: the exact best move (expectimax, value iteration) at five positions of
      loaded dice and Pig where it has a clear margin.

    The false-alarm probability of the statistical checks (``draws``, ``playouts``,
    ``playout_policy``, ``strength``) for a correct agent is below 2e-5 in all; see
    :mod:`.chance_probes` and :mod:`.chance_depth` (``growth`` and ``players`` are exact).

    Args:
        make_agent: ``make_agent(seed)`` returns a fresh agent seeded with the int ``seed``,
            with ``iterations``, ``search(game, state)`` (the root of its tree) and
            ``select_move(game, state)``.
        show_progress: show a progress bar when the checks run more than 2 s.

    Returns:
        A :class:`~mctslab.course.exercises.Report`; ``report.ok`` is True when every check
        passed. Nothing is raised for a mistake in the agent, nor for a stub that raises
        ``NotImplementedError`` ("not written yet").
    """
    runner = _Runner(make_agent, show_progress)
    began, began_cpu = time.perf_counter(), cpu_seconds()
    try:
        with unchanged_globals(), time_limit(TOTAL_SECONDS, "check_chance_uct"):
            for name in CHECKS:
                runner.run(name)
    except TimeLimitExceeded as err:  # between two checks: the next one fails, those after it were not run
        runner.out_of_time = True
        before = len(runner.report.checks)
        left = fail_the_next_check(runner.report, CHECKS, "check_chance_uct", err, cpu_seconds() - began_cpu)
        if len(runner.report.checks) > before:
            runner.bar.update()
        with unchanged_globals():
            for name in left:
                runner.run(name)
    finally:
        runner.bar.close()
    runner.report.seconds = time.perf_counter() - began
    return weighed(runner.report, WEIGHTS)
