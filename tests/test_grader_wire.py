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
from mctslab.course.grader.judge import Channel, Tampered, judge_part, rebuilt
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


class Rehearsing(Local):
    """A channel that has the kernel rehearse each part first, as the grader's :class:`~judge.Channel` does."""

    rehearse = Channel.rehearse
    logged = Channel.logged

    def __init__(self, namespace: dict, answer=None) -> None:  # noqa: ANN001
        super().__init__(namespace, answer)
        self.log: dict = {}
        self.kinds: list[str] = []

    def call(self, request: dict, objects: list, limit: float, wall: float) -> tuple[dict, bool]:
        self.kinds.append(request["kind"])
        return super().call(request, objects, limit, wall)


CHECKS = {"ucb1": check_ucb1, "select": check_select, "expand": check_expand, "backpropagate": check_backpropagate}


@pytest.mark.parametrize("part", sorted(CHECKS))
def test_a_rehearsed_part_is_one_call_to_the_kernel_and_gets_the_same_report(part: str) -> None:
    namespace = _slipped_namespace()
    namespace["expand"] = _reference_expand
    where = f"{CHECKS[part].__module__}:{CHECKS[part].__name__}"
    called = Local(_slipped_namespace() | {"expand": _reference_expand})
    each = judge_part(called, part, CHECKS[part], part, (part,), {})
    channel = Rehearsing(namespace)
    rehearsed = judge_part(channel, part, CHECKS[part], part, (part,), {}, where)
    assert channel.kinds == ["rehearse"] and called.calls > 1
    assert [(c["name"], c["status"], c["detail"]) for c in rehearsed["report"]["checks"]] == [
        (c["name"], c["status"], c["detail"]) for c in each["report"]["checks"]
    ]


def _reference_expand(game, node, rng):  # noqa: ANN001, ANN202
    if not node.untried:
        return node
    move = node.untried.pop(rng.randrange(len(node.untried)))
    child = TreeNode(game.apply(node.state, move), game.to_move(node.state), move, node, game.legal_moves(
        game.apply(node.state, move)))  # fmt: skip
    child.untried = list(child.untried)
    node.children.append(child)
    return child


def test_a_rehearsal_that_lies_about_its_calls_changes_nothing_but_the_calls_made() -> None:
    """Replies rehearsed for calls the check does not make are never used: each call then goes to the kernel."""
    namespace = _slipped_namespace()
    local = Rehearsing(namespace)
    honest = local.answer

    def answer(call: dict, text: str) -> list:
        if call["kind"] != "rehearse":
            return honest(call, text)
        real = wire.decode_reply(honest(call, text)[0], [])
        elsewhere = [(key[::-1], raw) for key, raw in real["log"]]  # keys of calls the check never makes
        return [_forged({"id": call["id"], "log": elsewhere, "states": []})]

    local.answer = answer
    judged = judge_part(local, "ucb1", check_ucb1, "ucb1", ("ucb1",), {}, "mctslab.course.exercises.parts:check_ucb1")
    direct = check_ucb1(namespace["ucb1"]).to_dict()
    assert [(c["name"], c["status"]) for c in judged["report"]["checks"]] == [
        (c["name"], c["status"]) for c in direct["checks"]
    ]
    assert local.kinds.count("call") > 1


@pytest.mark.parametrize(
    "log", [[("key", "not bytes")], "not a list", [(1, 2, 3)], [("k", pickle.dumps(os.system))]], ids=str
)
def test_a_rehearsal_log_that_is_not_data_is_tampering(log) -> None:  # noqa: ANN001
    namespace = _slipped_namespace()
    local = Rehearsing(namespace)
    if isinstance(log, list) and log and log[0][0] == "k":  # a reply with code in it, under the names call's key
        key = wire.request_key({"kind": "names", "names": ["ucb1"], "target": "ucb1"})
        log = [(key, log[0][1])]
    local.answer = lambda call, text: [_forged({"id": call["id"], "log": log, "states": []})]
    judged = judge_part(local, "ucb1", check_ucb1, "ucb1", ("ucb1",), {}, "mctslab.course.exercises.parts:check_ucb1")
    assert "report" not in judged and "tampered" in judged["error"]


def test_a_packaged_game_crosses_as_its_spec_and_one_changed_crosses_whole() -> None:
    game = make_game("tictactoe")
    sent = wire.encode((game,))
    assert len(sent) < len(base64.b64encode(pickle.dumps(game, protocol=4))) / 10
    (back,) = wire.decode_call(sent)
    assert back == game and back is not game and vars(back).keys() == vars(game).keys()
    game.returns = lambda state: (0.5, 0.5)  # a check's counter on it: sent whole, attribute and all
    with pytest.raises((AttributeError, pickle.PicklingError)):
        wire.encode((game,))
    keys = [wire.request_key({"args": (make_game("tictactoe"),)}) for _ in range(2)]
    assert keys[0] == keys[1]


def test_a_students_node_with_slots_or_properties_comes_back_with_the_fields_the_checks_read() -> None:
    class Slotted:
        __slots__ = ("children", "parent", "visits", "_wins")

        def __init__(self) -> None:
            self.children, self.parent, self.visits, self._wins = [], None, 4, 3.0

        @property
        def wins(self) -> float:
            return self._wins

    got = _kernel_side(lambda: Slotted())
    assert isinstance(got, wire.Record)
    assert (got.children, got.parent, got.visits, got.wins) == ([], None, 4, 3.0)


UNSEEDED = """
import random

def expand(game, node, rng):
    move = random.choice(node.untried)  # the random module's own generator, not the rng given
    node.untried.remove(move)
    child = TreeNode(game.apply(node.state, move), game.to_move(node.state), move, node, game.legal_moves(
        game.apply(node.state, move)))
    node.children.append(child)
    return child
"""


def test_a_draw_from_the_random_modules_generator_in_the_kernel_is_named_as_in_process() -> None:
    namespace: dict = {"TreeNode": TreeNode}
    exec(UNSEEDED, namespace)  # noqa: S102 - the test's own code, as a notebook defines it
    before = random.getstate()
    judged = judge_part(Local(namespace), "expand", check_expand, "expand", ("expand",), {})
    assert random.getstate() == before  # the grader's own generator is left as it was
    direct = check_expand(namespace["expand"]).to_dict()
    statuses = [(c["name"], c["status"], c["detail"]) for c in judged["report"]["checks"]]
    assert statuses == [(c["name"], c["status"], c["detail"]) for c in direct["checks"]], judged
    assert ("random", "failed") in [(name, status) for name, status, _ in statuses]


def test_a_rehearsal_stops_when_its_log_is_full_and_the_rest_is_called_one_by_one(monkeypatch) -> None:  # noqa: ANN001
    """A student's heavy tree must not make the rehearsal's one message too large to read (`tampered`)."""
    namespace = _slipped_namespace()
    full = serve.Rehearsal(serve._answerer(namespace))
    log = full.run({"part": "ucb1", "where": "mctslab.course.exercises:check_ucb1", "target": "ucb1",
                    "needs": ["ucb1"], "kwargs": {}})  # fmt: skip
    monkeypatch.setattr(serve, "LOG_BYTES", sum(len(raw) + len(key) for key, raw in log[:3]))
    cut = serve.Rehearsal(serve._answerer(namespace))
    short = cut.run({"part": "ucb1", "where": "mctslab.course.exercises:check_ucb1", "target": "ucb1",
                     "needs": ["ucb1"], "kwargs": {}})  # fmt: skip
    assert [key for key, _ in short] == [key for key, _ in log[:3]] and cut.calls == 3
