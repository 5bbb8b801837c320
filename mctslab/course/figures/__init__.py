"""The course's figures as build outputs: ``python -m mctslab.course.figures [--fast]`` regenerates ``figures/``.

* :mod:`.plots`: drawing results, one function per kind of picture;
* :mod:`.catalogue`: one function per figure file (:data:`FIGURES`), and :func:`save`.

This package only draws: the experiments it draws (seeded, returning numbers, shared
with the notebooks) are in :mod:`mctslab.course.experiments`, the agents in :mod:`mctslab.agents`.

Figures are written to the ``figures/`` folder at the repository root
(:data:`FIGURES_DIR`), whatever the working directory.
"""

from .catalogue import FIGURES, FIGURES_DIR, SEED, save

__all__ = ["FIGURES", "FIGURES_DIR", "SEED", "save"]
