"""The judge's channel without a kernel: what the kernel sends is data; mutation comes back onto the grader's objects.

The kernel's side (:func:`mctslab.course.grader.serve.server`) runs here, in this process,
behind a channel that hands it each call's text and reads its answer as the grader does
(:class:`Local`); the attacks on the channel itself are replies a kernel could forge.
"""

from __future__ import annotations

import base64
import io
import os
import pickle
import random
import traceback

import pytest

from mctslab.course.exercises import check_backpropagate, check_expand, check_select, check_ucb1
from mctslab.course.exercises.student import _where
from mctslab.course.exercises.tree import TreeNode
from mctslab.course.grader import serve, wire
from mctslab.course.grader.judge import Tampered, judge_part, rebuilt
from mctslab.games import make_game


class Local:
    """A channel to a server in this process: what ``answer`` returns for each call is the kernel's reply."""

    def __init__(self, namespace: dict, answer=None) -> None:  # noqa: ANN001
        self.serve = serve.server(namespace)
        self.answer = answer or (lambda call, text: [self.serve(text)])
        self.calls, self.cells, self.cpu, self.closed, self.memo = 0, [], 0.0, False, {}

    def call(self, request: dict, objects: list, limit: float, wall: float) -> tuple[dict, bool]:
        self.calls += 1
        request["id"] = self.calls
        replies = self.answer(request, wire.encode(request))
        if len(replies) != 1:
            raise Tampered(f"{len(replies)} replies to one call")
        try:
            reply = wire.decode_reply(replies[0], objects)
        except wire.Unreadable as error:
            raise Tampered(str(error)) from None
        if type(reply) is not dict or reply.get("id") != request["id"]:
            raise Tampered("a reply to another call")
        return reply, False


def _kernel_side(function, *args):  # noqa: ANN001, ANN002, ANN202
    """Send ``args`` as the grader does, call ``function`` on the kernel's copies, read the reply back."""
    objects = wire.handles(args)
    theirs = wire.decode_call(wire.encode(args))
    numbered = wire.handles(theirs)  # numbered before the call, as the server does
    reply = {"result": function(*theirs), "states": [wire.state_of(o) for o in numbered]}
    back = wire.decode_reply(wire.encode_reply(reply, numbered), objects)
    wire.restore(objects, back["states"])
    return back["result"]


def test_a_node_returned_is_the_graders_own_node_and_mutation_comes_back() -> None:
    game = make_game("tictactoe")
    root = TreeNode.root(game, game.initial_state())
    rng = random.Random(3)

    def expand(game, node, rng):  # noqa: ANN001, ANN202
        move = node.untried.pop(rng.randrange(len(node.untried)))
        child = TreeNode.root(game, game.apply(node.state, move))
        child.parent, child.move, child.player = node, move, 0
        node.children.append(child)
        return child

    child = _kernel_side(expand, game, root, rng)
    assert child.parent is root and root.children == [child] and child.move not in root.untried
    assert _kernel_side(lambda node: node, root) is root


def test_the_rng_given_comes_back_advanced() -> None:
    rng = random.Random(5)
    _kernel_side(lambda r: r.random(), rng)
    expected = random.Random(5)
    expected.random()
    assert rng.getstate() == expected.getstate()


def test_a_students_own_object_comes_back_as_its_fields_and_code_as_its_repr() -> None:
    class Mine:
        def __init__(self) -> None:
            self.parent, self.visits = None, 3

    got = _kernel_side(lambda: (Mine(), lambda: 1, (i for i in ())))
    assert isinstance(got[0], wire.Record) and got[0].visits == 3 and got[0].parent is None
    assert isinstance(got[1], wire.Opaque) and "lambda" in repr(got[1]) and not callable(got[1])


def _forged(value) -> str:  # noqa: ANN001
    return base64.b64encode(pickle.dumps(value, protocol=4)).decode("ascii")


class _Calls:
    def __reduce__(self):  # noqa: ANN204
        return (make_game("tictactoe").__class__, ())


@pytest.mark.parametrize(
    "reply",
    [_forged(os.system), _forged(ValueError("x")), _forged(traceback.format_exc), _forged(_Calls())],
    ids=["a_function", "an_exception", "a_stdlib_function", "a_constructor_call"],
)
def test_a_reply_holding_anything_but_data_is_refused(reply: str) -> None:
    with pytest.raises(wire.Unreadable):
        wire.decode_reply(reply, [])


def test_a_reply_naming_an_object_the_call_did_not_send_is_refused() -> None:
    buffer = io.BytesIO()

    class Pointing(pickle.Pickler):
        def persistent_id(self, obj):  # noqa: ANN001, ANN202
            return 7 if obj == "x" else None

    Pointing(buffer, protocol=4).dump(["x"])
    with pytest.raises(wire.Unreadable):
        wire.decode_reply(base64.b64encode(buffer.getvalue()).decode(), [object()])
    with pytest.raises(wire.Unreadable):
        wire.decode_reply("A" * (wire.MAX_REPLY + 4), [])


def test_an_exception_is_rebuilt_with_the_students_frames_and_only_names() -> None:
    def select(node):  # noqa: ANN001, ANN202
        raise KeyError("move")

    try:
        select(None)
    except KeyError as error:
        described = serve._raised(error)
    rebuilt_error = rebuilt(described)
    assert type(rebuilt_error) is KeyError and str(rebuilt_error) == "'move'"
    assert _where(rebuilt_error) == " in `select`"
    mine = {**described, "type": ("__main__", "MyError")}
    assert type(rebuilt(mine)).__name__ == "MyError" and not issubclass(type(rebuilt(mine)), KeyError)
    with pytest.raises(Tampered):
        rebuilt({"type": "builtins.KeyError", "frames": "all of them"})


SLIPPED = """
import math

def ucb1(wins, visits, parent_visits, c=math.sqrt(2)):
    return math.inf if visits == 0 else wins / visits + 2 * math.sqrt(math.log(parent_visits) / visits)

def select(node, c):
    while not node.untried and node.children:
        node = max(node.children, key=lambda ch: ucb1(ch.wins, ch.visits, node.visits, c))
    return node

def backpropagate(node, returns):
    while node is not None:
        node.visits += 1
        node.wins += returns[1 - node.player]  # the sign slip
        node = node.parent
"""


def _slipped_namespace() -> dict:
    """A notebook's namespace: ``ucb1`` slipped (select is checked with UCB1 in its place), backpropagate too."""
    namespace: dict = {}
    exec(SLIPPED, namespace)  # noqa: S102 - the test's own code, as a notebook defines it
    return namespace


@pytest.mark.parametrize(
    ("part", "check"), [("ucb1", check_ucb1), ("select", check_select), ("backpropagate", check_backpropagate)]
)
def test_a_part_judged_through_the_channel_gets_the_report_it_gets_in_process(part: str, check) -> None:  # noqa: ANN001
    namespace = _slipped_namespace()
    judged = judge_part(Local(namespace), part, check, part, (part,), {})
    direct = check(namespace[part]).to_dict()
    statuses = [(c["name"], c["status"]) for c in judged["report"]["checks"]]
    assert statuses == [(c["name"], c["status"]) for c in direct["checks"]], judged
    if part == "select":  # checked with UCB1 in place of the slipped ucb1, in the kernel as in process
        assert {status for _, status in statuses} == {"passed"} and "reference `ucb1`" in judged["report"]["checks"][0][
            "detail"
        ]


def test_a_reply_claiming_a_verdict_is_not_one() -> None:
    namespace = _slipped_namespace()
    answers = Local(namespace, lambda call, text: [_forged({"id": call["id"], "report": {"ok": True}})])
    judged = judge_part(answers, "ucb1", check_ucb1, "ucb1", ("ucb1",), {})
    assert "report" not in judged and "tampered" in judged["error"]


def test_two_replies_to_one_call_are_tampering() -> None:
    local = Local({"expand": lambda game, node, rng: None})
    local.answer = lambda call, text: [local.serve(text), local.serve(text)]
    judged = judge_part(local, "expand", check_expand, "expand", ("expand",), {})
    assert "report" not in judged and "tampered" in judged["error"]
