"""The UCB1 playground of the bandit notebook: choose the arms and ``c``, move through time.

The widgets only wire plain functions together, and those are tested on their own:
:func:`parse_means` reads the text box, :func:`playground_figure` draws one frame
(the intervals of :func:`~mctslab.bandits.plots.snapshot` and the pull counts).
:func:`playground` needs ``ipywidgets`` (a course dependency) and a running kernel.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..ucb import SQRT2
from .arms import check_means
from .experiment import Trace, trace
from .plots import plot_pulls, plot_snapshot, snapshot
from .policies import UCB1

__all__ = ["parse_means", "playground", "playground_figure", "playground_text", "ucb1_trace"]


def parse_means(text: str) -> list[float]:
    """Read arm means typed as ``"0.1, 0.5 0.9"`` (commas and/or spaces).

    Raises:
        ValueError: if a piece is not a number, there is none, or one lies outside
            [0, 1]; the message says which.
    """
    pieces = text.replace(",", " ").split()
    values = []
    for piece in pieces:
        try:
            values.append(float(piece))
        except ValueError:
            raise ValueError(f"{piece!r} is not a number; type means in [0, 1] such as '0.2, 0.5, 0.8'") from None
    return check_means(values).tolist()


@lru_cache(maxsize=32)
def ucb1_trace(means: tuple[float, ...], c: float, steps: int, seed: int) -> Trace:
    """A single UCB1 run on Bernoulli arms (cached, so moving the time slider is instant)."""
    return trace(UCB1(c), list(means), steps=steps, seed=seed)


def playground_figure(
    means: tuple[float, ...] | list[float], c: float = SQRT2, t: int = 100, steps: int = 500, seed: int = 0
) -> Any:
    """One frame of the playground: intervals at time ``t`` (left), pulls over time (right).

    Args:
        means: Bernoulli means of the arms, in [0, 1].
        c: UCB1's exploration constant, >= 0.
        t: the time shown, in [0, steps].
        steps: length of the run.
        seed: the run's seed.

    Returns:
        A matplotlib ``Figure``.

    Raises:
        ValueError: for bad means, ``c < 0`` or ``t`` outside [0, steps].
    """
    import matplotlib.pyplot as plt

    run = ucb1_trace(tuple(float(m) for m in means), float(c), int(steps), int(seed))
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [1.1, 1]})
    plot_snapshot(snapshot(run, t, c), ax=left)
    plot_pulls(run, t, ax=right)
    fig.tight_layout()
    return fig


def playground(means: str = "0.1, 0.3, 0.5, 0.7, 0.9", c: float = SQRT2, steps: int = 500, seed: int = 0) -> Any:
    """An interactive UCB1 playground: a text box for the means, sliders for ``c`` and time.

    Args:
        means: initial means, as typed in the text box.
        c: initial exploration constant.
        steps: length of the run shown.
        seed: the run's seed (also a widget).

    Returns:
        An ``ipywidgets.VBox``; display it in a notebook.
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt
    from IPython.display import display

    text = widgets.Text(value=means, description="means")
    c_slider = widgets.FloatSlider(value=c, min=0.0, max=3.0, step=0.05, description="c")
    t_slider = widgets.IntSlider(value=min(20, steps), min=0, max=steps, description="t")
    seed_box = widgets.IntText(value=seed, description="seed")
    message = widgets.HTML()
    out = widgets.Output()

    def redraw(_change: object = None) -> None:
        try:
            arms = parse_means(text.value)
        except ValueError as err:
            message.value = f"<b style='color:#b00'>{err}</b>"
            return
        message.value = ""
        with out:
            out.clear_output(wait=True)
            fig = playground_figure(arms, c_slider.value, t_slider.value, steps, seed_box.value)
            display(fig)
            plt.close(fig)

    for control in (text, c_slider, t_slider, seed_box):
        control.observe(redraw, names="value")
    redraw()

    class Playground(widgets.VBox):
        # Where the widgets cannot be drawn (an untrusted notebook, GitHub, nbval), the
        # stored text/plain says what the cell holds instead of "VBox(children=(HBox(...".
        def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
            bundle = super()._repr_mimebundle_(**kwargs)
            if bundle is not None:
                now = (text.value, c_slider.value, t_slider.value, steps, seed_box.value)
                bundle["text/plain"] = playground_text(*now)
            return bundle

    return Playground([widgets.HBox([text, seed_box]), widgets.HBox([c_slider, t_slider]), message, out])


def playground_text(means: str, c: float, t: int, steps: int, seed: int) -> str:
    """What the playground shows, in words: its text stand-in where widgets cannot be drawn."""
    return (
        f"UCB1 playground (interactive widgets: run this cell in JupyterLab to use them)\n"
        f"machines' means {means}; c = {c:.2f}; time t = {t} of {steps}; seed {seed}\n"
        "once it runs: each machine's interval at time t (left), the pulls of each machine over time (right)"
    )
