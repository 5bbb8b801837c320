"""UCB1-Tuned (Auer, Cesa-Bianchi and Fischer 2002): UCB1 with the variance of each child's rewards."""

from math import inf, log, sqrt

from .node import Node
from .registry import register_agent
from .rules import SelectionRule
from .uct import UCT, VARIANT_PARAMS


class TunedNode(Node):
    """A node that also keeps the sum of its rewards squared (summed too when K searches' roots are: ``SUMMED``)."""

    __slots__ = ("squares",)
    SUMMED = ("squares",)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.squares = 0.0

    def add(self, reward: float) -> None:
        super().add(reward)
        self.squares += reward**2


class TunedRule(SelectionRule):
    """mean + sqrt(ln N / n * min(1/4, V)), V the variance bound of the child's rewards."""

    name = "UCB1-Tuned"

    def value(self, parent: Node, child: TunedNode) -> float:
        if child.visits == 0:
            return inf
        log_n = log(parent.visits) if parent.visits > 1 else 0.0
        variance = child.squares / child.visits - child.mean**2 + sqrt(2 * log_n / child.visits)
        return child.mean + sqrt(log_n / child.visits * min(0.25, variance))


@register_agent
class UCB1Tuned(UCT):
    """UCT with the UCB1-Tuned rule."""

    name = "tuned"
    params = VARIANT_PARAMS
    node_class = TunedNode
    rule_class = TunedRule
