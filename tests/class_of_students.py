"""Issue 40, item 5: a class of four students, each writing notebooks 04b and 12 in their own style.

* **classes**: a node class and an agent whose methods are the phases (``descend``, ``grow``,
  ``playout``, ``update``: ``tests/test_exercise_uct_agent.py``'s ``Student``; :class:`Roller` here);
* **loops**: the notebooks' plain functions on :class:`~mctslab.course.exercises.TreeNode`
  and ``while`` loops, called from a small class (:func:`loops_04b`, :func:`loops_12`);
* **recursion**: a dataclass node and a recursive descent (``RecursiveUCT``, ``DiceMCTS``);
* **dicts**: statistics in dicts keyed by the path of moves from the root, and a view of
  them built for the checks at the end of ``search`` (:class:`PathUCT`, :class:`PathChance`).

Each slip is one change a student makes in their own code, in their own names; the table in
``tests/test_exercise_class.py`` runs them all. Nothing here is the reference's code.
"""

from __future__ import annotations

import math
import random
from typing import Any

from test_exercise_blame import agent_of
from test_exercise_blind_spots import RecursiveUCT, Vertex
from test_exercise_causality import SwallowsErrors  # noqa: F401  (the class's student with an except that hides)
from test_exercise_chance import DiceMCTS, Leaf
from test_exercise_uct_agent import Node, Student, score

from mctslab.course.exercises import TreeNode
from mctslab.games import CHANCE
from mctslab.ucb import SQRT2


# == the dicts student ========================================================================
class View:
    """What ``search`` returns: the dicts' statistics as a tree the checks can walk."""

    def __init__(self, move: Any, state: Any, player: int, visits: int, wins: float) -> None:
        self.move, self.state, self.player, self.visits, self.wins = move, state, player, visits, wins
        self.children: list[View] = []


class PathUCT:
    """Notebook 04b with dicts: N, W, the untried moves and the children of each path of moves."""

    def __init__(self, seed=None, iterations=500, c=SQRT2):
        self.rng, self.iterations, self.c = random.Random(seed), iterations, c

    def pick(self, path, kids, N, W):
        return max(kids[path], key=lambda p: W[p] / N[p] + self.c * math.sqrt(math.log(N[path]) / N[p]))

    def mover(self, game, before, after):
        return game.to_move(before)

    def credit(self, result, who):
        return result[who]

    def playout(self, game, state):
        while not game.is_terminal(state):
            state = game.apply(state, self.rng.choice(game.legal_moves(state)))
        return game.returns(state)

    def runs(self):
        return self.iterations

    def counted(self, path):
        return [path[:k] for k in range(len(path) + 1)]

    def descend(self, path, todo, kids, N, W):
        while not todo[path] and kids[path]:
            path = self.pick(path, kids, N, W)
        return path

    def search(self, game, state):
        root = ()
        states, todo, kids = {root: state}, {root: list(game.legal_moves(state))}, {root: []}
        N, W, who = {root: 0}, {root: 0.0}, {root: 1 - game.to_move(state)}
        for _ in range(self.runs()):
            path = self.descend(root, todo, kids, N, W)
            if todo[path]:
                move = todo[path].pop(self.rng.randrange(len(todo[path])))
                child = path + (move,)
                after = game.apply(states[path], move)
                states[child], todo[child], kids[child] = after, list(game.legal_moves(after)), []
                N[child], W[child], who[child] = 0, 0.0, self.mover(game, states[path], after)
                kids[path].append(child)
                path = child
            result = self.playout(game, states[path])
            for p in self.counted(path):
                N[p] += 1
                W[p] += self.credit(result, who[p])
        return self.view(root, states, who, N, W, kids)

    def view(self, path, states, who, N, W, kids):
        node = View(path[-1] if path else None, states[path], who[path], N[path], W[path])
        node.children = [self.view(p, states, who, N, W, kids) for p in kids[path]]
        return node

    def select_move(self, game, state):
        return max(self.search(game, state).children, key=lambda v: v.visits).move


class PathRootUncounted(PathUCT):
    def counted(self, path):
        return [path[:k] for k in range(1, len(path) + 1)]  # the root left out


class PathLogOfChild(PathUCT):
    def pick(self, path, kids, N, W):
        return max(kids[path], key=lambda p: W[p] / N[p] + self.c * math.sqrt(math.log(N[p]) / N[p]))


class PathMostWins(PathUCT):
    def select_move(self, game, state):
        return max(self.search(game, state).children, key=lambda v: v.wins).move


class PathOneLevel(PathUCT):
    def descend(self, path, todo, kids, N, W):
        if not todo[path] and kids[path]:
            path = self.pick(path, kids, N, W)
        return path


class PathUnseeded(PathUCT):
    def __init__(self, seed=None, iterations=500, c=SQRT2):
        super().__init__(None, iterations, c)  # the seed forgotten


# == the classes student (04b: test_exercise_uct_agent.Student) ================================
class SignSlip(Student):
    def update(self, node, result):
        while node is not None:
            node.visits += 1
            node.wins += result[0]
            node = node.parent


class RootNeverCounted(Student):
    def update(self, node, result):
        while node.parent is not None:
            node.visits += 1
            node.wins += result[node.player]
            node = node.parent


class IfForWhile(Student):
    def descend(self, node):
        if len(node.untried) == 0 and len(node.children) > 0:
            node = self.pick(node)
        return node


class ReturnsTheNode(Student):
    def select_move(self, game, state):
        return max(self.search(game, state).children, key=lambda ch: ch.visits)


class OneTooMany(Student):
    def search(self, game, state):
        root = Node(state, None, None, 1 - game.to_move(state), list(game.legal_moves(state)))
        for _ in range(self.iterations + 1):
            leaf = self.grow(game, self.descend(root))
            self.update(leaf, self.playout(game, leaf.state))
        return root


class DrawIsLoss(Student):
    def update(self, node, result):
        while node is not None:
            node.visits += 1
            node.wins += 1 if result[node.player] == 1 else 0
            node = node.parent


class PlayerOfChild(Student):
    def grow(self, game, node):
        if len(node.untried) == 0:
            return node
        move = node.untried.pop(self.rng.randrange(len(node.untried)))
        state = game.apply(node.state, move)
        child = Node(state, node, move, game.to_move(state), list(game.legal_moves(state)))
        node.children.append(child)
        return child


class Unseeded(Student):
    def __init__(self, iterations=500, c=SQRT2, seed=None):
        super().__init__(iterations, c, None)


class FirstMovePlayouts(Student):
    def playout(self, game, state):
        while not game.is_terminal(state):
            state = game.apply(state, game.legal_moves(state)[0])
        return game.returns(state)


# == the recursion student (04b: test_exercise_blind_spots.RecursiveUCT) =======================
class RecursionStopsAtOneLevel(RecursiveUCT):
    def down(self, v):
        if v.todo or not v.children:
            return v
        log_n = math.log(v.visits)
        return max(v.children, key=lambda k: k.wins / k.visits + SQRT2 * math.sqrt(log_n / k.visits))


class RecursiveTwoInside(RecursiveUCT):
    def down(self, v):
        if v.todo or not v.children:
            return v
        log_n = math.log(v.visits)
        return self.down(max(v.children, key=lambda k: k.wins / k.visits + SQRT2 * math.sqrt(2 * log_n / k.visits)))


class RecursiveWho(RecursiveUCT):
    """The player recorded on a new node is the one to move in its position."""

    def search(self, game, state):
        top = Vertex(state, None, None, 1 - game.to_move(state), list(game.legal_moves(state)))
        for _ in range(self.iterations):
            v = self.down(top)
            if v.todo:
                m = v.todo.pop(self.r.randrange(len(v.todo)))
                s = game.apply(v.state, m)
                kid = Vertex(s, m, v, game.to_move(s), list(game.legal_moves(s)))
                v.children.append(kid)
                v = kid
            s = v.state
            while not game.is_terminal(s):
                s = game.apply(s, self.r.choice(game.legal_moves(s)))
            result = game.returns(s)
            while v is not None:
                v.visits, v.wins, v = v.visits + 1, v.wins + result[v.who], v.up
        return top


class RecursiveBudgetOfItsOwn(RecursiveUCT):
    def search(self, game, state):
        self.iterations = 3 * self.iterations  # "more is better"
        return super().search(game, state)


# == the loops student (notebook 04b's functions) ==============================================
def _ucb(wins, visits, parent_visits, c):
    if visits == 0:
        return math.inf
    return wins / visits + c * math.sqrt(math.log(parent_visits) / visits)


def l_select(node, c):
    while not node.untried and node.children:
        parent = node
        node = max(parent.children, key=lambda ch: _ucb(ch.wins, ch.visits, parent.visits, c))
    return node


def l_expand(game, node, rng):
    if not node.untried:
        return node
    move = node.untried.pop(rng.randrange(len(node.untried)))
    after = game.apply(node.state, move)
    child = TreeNode(after, game.to_move(node.state), move, node, list(game.legal_moves(after)))
    node.children.append(child)
    return child


def l_simulate(game, node, rng):
    state = node.state
    while not game.is_terminal(state):
        moves = game.legal_moves(state)
        state = game.apply(state, moves[rng.randrange(len(moves))])
    return game.returns(state)


def l_backpropagate(node, returns):
    while node is not None:
        node.visits += 1
        node.wins += returns[node.player]
        node = node.parent


def loops_04b(select=l_select, expand=l_expand, simulate=l_simulate, backpropagate=l_backpropagate):
    """The loops student's 04b agent, one function replaced by a slip (called as notebook 04b's class calls them)."""
    return agent_of(expand=expand, select=select, simulate=simulate, backpropagate=backpropagate)


def l_select_past_untried(node, c):
    while node.children:
        parent = node
        node = max(parent.children, key=lambda ch: _ucb(ch.wins, ch.visits, parent.visits, c))
    return node


def l_expand_keeps_move(game, node, rng):
    if not node.untried:
        return node
    move = node.untried[rng.randrange(len(node.untried))]  # not removed
    after = game.apply(node.state, move)
    child = TreeNode(after, game.to_move(node.state), move, node, list(game.legal_moves(after)))
    node.children.append(child)
    return child


def l_expand_returns_parent(game, node, rng):
    if not node.untried:
        return node
    move = node.untried.pop(rng.randrange(len(node.untried)))
    after = game.apply(node.state, move)
    node.children.append(TreeNode(after, game.to_move(node.state), move, node, list(game.legal_moves(after))))
    return node


def l_backpropagate_to_move(node, returns):
    while node is not None:
        node.visits += 1
        node.wins += returns[1 - node.player]  # the player to move there
        node = node.parent


def l_simulate_draw_loss(game, node, rng):
    returns = l_simulate(game, node, rng)
    return tuple(1.0 if r == 1 else 0.0 for r in returns)


def l_select_root_visits(node, c):
    root = node
    while not node.untried and node.children:
        node = max(node.children, key=lambda ch: _ucb(ch.wins, ch.visits, root.visits, c))
    return node


# == notebook 12: the loops student (functions, the skeleton's loop) ===========================
def l_draw(game, state, rng):
    faces, weights = zip(*game.chance_outcomes(state), strict=True)
    return rng.choices(faces, weights)[0]


def l_select_chance(game, node, rng, c, draw=l_draw):
    while True:
        if game.to_move(node.state) == CHANCE:
            face = draw(game, node.state, rng)
            nxt = next((ch for ch in node.children if ch.move == face), None)
            if nxt is None:
                return node, face
            node = nxt
        elif node.untried or not node.children:
            return node, None
        else:
            parent = node
            node = max(parent.children, key=lambda ch: _ucb(ch.wins, ch.visits, parent.visits, c))


def l_expand_chance(game, node, outcome, rng, expand=l_expand):
    if outcome is None:
        return expand(game, node, rng)
    after = game.apply(node.state, outcome)
    child = TreeNode(after, node.player, outcome, node, list(game.legal_moves(after)))
    node.children.append(child)
    return child


def l_simulate_chance(game, node, rng, draw=l_draw):
    state = node.state
    while not game.is_terminal(state):
        if game.to_move(state) == CHANCE:
            state = game.apply(state, draw(game, state, rng))
        else:
            moves = game.legal_moves(state)
            state = game.apply(state, moves[rng.randrange(len(moves))])
    return game.returns(state)


def loops_12(**slips):
    """The loops student's notebook 12 agent; ``slips`` replace ``draw``, ``select``, ``expand`` (of a move),
    ``expand_chance``, ``simulate`` or ``backpropagate``."""
    draw = slips.get("draw", l_draw)
    expand = slips.get("expand", l_expand)
    backpropagate = slips.get("backpropagate", l_backpropagate)
    select = slips.get("select") or (lambda game, node, rng, c: l_select_chance(game, node, rng, c, draw))
    expand_chance = slips.get("expand_chance") or (
        lambda game, node, outcome, rng: l_expand_chance(game, node, outcome, rng, expand)
    )
    simulate = slips.get("simulate") or (lambda game, node, rng: l_simulate_chance(game, node, rng, draw))

    class Loops12:
        def __init__(self, seed=None, iterations=300, c=SQRT2):
            self.iterations, self.c, self.rng = iterations, c, random.Random(seed)

        def search(self, game, state):
            root = TreeNode.root(game, state)
            for _ in range(self.iterations):
                node, outcome = select(game, root, self.rng, self.c)
                node = expand_chance(game, node, outcome, self.rng)
                backpropagate(node, simulate(game, node, self.rng))
            return root

        def select_move(self, game, state):
            return max(self.search(game, state).children, key=lambda ch: ch.visits).move

    return lambda seed: Loops12(seed=seed)


def draw_uniform(game, state, rng):
    return rng.choice([face for face, _ in game.chance_outcomes(state)])


def draw_never_one(game, state, rng):
    pairs = [(f, p) for f, p in game.chance_outcomes(state) if f != 1]
    return rng.choices([f for f, _ in pairs], [p for _, p in pairs])[0]


def draw_pair(game, state, rng):
    pairs = game.chance_outcomes(state)
    return rng.choices(pairs, [p for _, p in pairs])[0]


def select_merged(game, node, rng, c):
    while True:
        if game.to_move(node.state) == CHANCE:
            face = l_draw(game, node.state, rng)
            if not node.children:
                return node, face
            node = node.children[0]  # the outcome drawn not looked at
        elif node.untried or not node.children:
            return node, None
        else:
            parent = node
            node = max(parent.children, key=lambda ch: _ucb(ch.wins, ch.visits, parent.visits, c))


def select_stops_at_outcome(game, node, rng, c):
    while True:
        if game.to_move(node.state) == CHANCE:
            face = l_draw(game, node.state, rng)
            for kid in node.children:
                if kid.move == face:
                    return kid, None
            return node, face
        if node.untried or not node.children:
            return node, None
        parent = node
        node = max(parent.children, key=lambda ch: _ucb(ch.wins, ch.visits, parent.visits, c))


def expand_chance_no_untried(game, node, outcome, rng):
    if outcome is None:
        return l_expand(game, node, rng)
    kid = TreeNode(game.apply(node.state, outcome), node.player, outcome, node)
    node.children.append(kid)
    return kid


def simulate_uniform_chance(game, node, rng):
    state = node.state
    while not game.is_terminal(state):
        state = game.apply(state, rng.choice(game.legal_moves(state)))
    return game.returns(state)


def simulate_first_move(game, node, rng):
    state = node.state
    while not game.is_terminal(state):
        if game.to_move(state) == CHANCE:
            state = game.apply(state, l_draw(game, state, rng))
        else:
            state = game.apply(state, game.legal_moves(state)[0])
    return game.returns(state)


def backpropagate_skips_chance(node, returns):
    while node is not None:
        if node.children and all(ch.player == node.player for ch in node.children) and node.parent is not None:
            node = node.parent  # "a chance node has no mover of its own": skipped
            continue
        node.visits += 1
        node.wins += returns[node.player]
        node = node.parent


def backpropagate_no_root(node, returns):
    while node.parent:
        node.visits += 1
        node.wins += returns[node.player]
        node = node.parent


# == notebook 12: the classes student ==========================================================
class Knot:
    def __init__(self, state, parent, move, player, untried):
        self.state, self.parent, self.move, self.player, self.untried = state, parent, move, player, untried
        self.children, self.visits, self.wins = [], 0, 0.0


class Roller:
    """Notebook 12 as a class of phases over its own nodes."""

    def __init__(self, seed=None, iterations=300, c=SQRT2):
        self.iterations, self.c, self.rng = iterations, c, random.Random(seed)

    def roll(self, game, state):
        faces, weights = zip(*game.chance_outcomes(state), strict=True)
        return self.rng.choices(faces, weights)[0]

    def outcome_player(self, game, node):
        return node.player

    def move_player(self, game, node, after):
        return game.to_move(node.state)

    def walk(self, game, node):
        while True:
            if game.is_terminal(node.state):
                return node
            if game.to_move(node.state) == CHANCE:
                face = self.roll(game, node.state)
                hit = [k for k in node.children if k.move == face]
                if not hit:
                    after = game.apply(node.state, face)
                    kid = Knot(after, node, face, self.outcome_player(game, node), list(game.legal_moves(after)))
                    node.children.append(kid)
                    return kid
                node = hit[0]
            elif node.untried:
                move = node.untried.pop(self.rng.randrange(len(node.untried)))
                after = game.apply(node.state, move)
                kid = Knot(after, node, move, self.move_player(game, node, after), list(game.legal_moves(after)))
                node.children.append(kid)
                return kid
            else:
                node = max(node.children, key=lambda k: score(k, node.visits, self.c))

    def rollout(self, game, state):
        while not game.is_terminal(state):
            if game.to_move(state) == CHANCE:
                state = game.apply(state, self.roll(game, state))
            else:
                state = game.apply(state, self.rng.choice(game.legal_moves(state)))
        return game.returns(state)

    def update(self, node, result):
        while node is not None:
            node.visits += 1
            node.wins += result[node.player]
            node = node.parent

    def search(self, game, state):
        root = Knot(state, None, None, 1 - game.to_move(state), list(game.legal_moves(state)))
        for _ in range(self.iterations):
            leaf = self.walk(game, root)
            self.update(leaf, self.rollout(game, leaf.state))
        return root

    def select_move(self, game, state):
        return max(self.search(game, state).children, key=lambda k: k.visits).move


class RollerUniform(Roller):
    def roll(self, game, state):
        return self.rng.choice([f for f, _ in game.chance_outcomes(state)])


class RollerOutcomeToChance(Roller):
    def outcome_player(self, game, node):
        return game.to_move(node.state)  # CHANCE itself


class RollerRolloutUniform(Roller):
    def rollout(self, game, state):
        while not game.is_terminal(state):
            state = game.apply(state, self.rng.choice(game.legal_moves(state)))
        return game.returns(state)


class RollerGlobalRandom(Roller):
    def roll(self, game, state):
        faces, weights = zip(*game.chance_outcomes(state), strict=True)
        return random.choices(faces, weights)[0]


class RollerRootUncounted(Roller):
    def update(self, node, result):
        while node.parent is not None:
            node.visits += 1
            node.wins += result[node.player]
            node = node.parent


# == notebook 12: the recursion student (test_exercise_chance.DiceMCTS) ========================
class DiceUniform(DiceMCTS):
    def roll(self, game, state):
        return self.rand.choice([f for f, _ in game.chance_outcomes(state)])


class DiceRollsTheLastFace(DiceMCTS):
    def roll(self, game, state):  # the cumulative draw, off by one: the first face never comes
        u = self.rand.random()
        pairs = list(game.chance_outcomes(state))
        for k, (_, chance) in enumerate(pairs):
            u -= chance
            if u < 0:
                return pairs[min(k + 1, len(pairs) - 1)][0]
        return pairs[-1][0]


class DiceAlternates(DiceMCTS):
    def step(self, game, n):
        if not game.is_terminal(n.state) and game.to_move(n.state) != CHANCE and n.todo is None:
            n.todo = list(game.legal_moves(n.state))
            self.rand.shuffle(n.todo)
        if not game.is_terminal(n.state) and game.to_move(n.state) != CHANCE and n.todo:
            m = n.todo.pop()
            kid = Leaf(game.apply(n.state, m), m, 1 - n.mover, n)
            n.children.append(kid)
            result = self.playout(game, kid.state)
            kid.visits, kid.wins = 1, result[kid.mover]
            n.visits += 1
            n.wins += result[n.mover]
            return result
        return super().step(game, n)


class DiceUniformPlayout(DiceMCTS):
    def playout(self, game, s):
        while not game.is_terminal(s):
            s = game.apply(s, self.rand.choice(game.legal_moves(s)))
        return game.returns(s)


# == notebook 12: the dicts student ============================================================
class PathChance:
    """Notebook 12 with dicts keyed by the path of moves and outcomes from the root."""

    def __init__(self, seed=None, iterations=300, c=SQRT2):
        self.rng, self.iterations, self.c = random.Random(seed), iterations, c

    def draw(self, game, state):
        faces, weights = zip(*game.chance_outcomes(state), strict=True)
        return self.rng.choices(faces, weights)[0]

    def mover_after_roll(self, game, who, path):
        return who[path]

    def policy(self, game, state):
        return self.rng.choice(game.legal_moves(state))

    def counted(self, path):
        return [path[:k] for k in range(len(path) + 1)]

    def search(self, game, state):
        root = ()
        st, todo, kids = {root: state}, {root: list(game.legal_moves(state))}, {root: []}
        N, W, who = {root: 0}, {root: 0.0}, {root: 1 - game.to_move(state)}

        def add(path, step, mover):
            child = path + (step,)
            st[child] = game.apply(st[path], step)
            todo[child], kids[child] = list(game.legal_moves(st[child])), []
            N[child], W[child], who[child] = 0, 0.0, mover
            kids[path].append(child)
            return child

        for _ in range(self.iterations):
            path = root
            while True:
                s = st[path]
                if game.is_terminal(s):
                    break
                if game.to_move(s) == CHANCE:
                    face = self.draw(game, s)
                    if path + (face,) not in N:
                        path = add(path, face, self.mover_after_roll(game, who, path))
                        break
                    path = path + (face,)
                elif todo[path]:
                    move = todo[path].pop(self.rng.randrange(len(todo[path])))
                    path = add(path, move, game.to_move(s))
                    break
                else:
                    logn = math.log(N[path])
                    path = max(kids[path], key=lambda p: W[p] / N[p] + self.c * math.sqrt(logn / N[p]))
            s = st[path]
            while not game.is_terminal(s):
                s = game.apply(s, self.draw(game, s) if game.to_move(s) == CHANCE else self.policy(game, s))
            result = game.returns(s)
            for p in self.counted(path):
                N[p] += 1
                W[p] += result[who[p]]
        return self.view(root, st, who, N, W, kids)

    view = PathUCT.view

    def select_move(self, game, state):
        return max(self.search(game, state).children, key=lambda v: v.visits).move


class PathChanceOtherPlayer(PathChance):
    def mover_after_roll(self, game, who, path):
        return 1 - who[path]  # "the other player moves after a roll"


class PathChanceNoRoot(PathChance):
    def counted(self, path):
        return [path[:k] for k in range(1, len(path) + 1)]


class PathChanceUniform(PathChance):
    def draw(self, game, state):
        return self.rng.choice([f for f, _ in game.chance_outcomes(state)])
