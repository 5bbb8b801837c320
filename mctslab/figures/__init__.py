"""The course's figures as build outputs: ``python -m mctslab.figures [--fast]`` regenerates ``figures/``.

* :mod:`.experiments` and :mod:`.strength`: the experiments (seeded, returning numbers), shared
  with the notebooks: decisions graded exactly, and games against a fixed opponent;
* :mod:`.plots`: drawing their results, one function per kind of picture;
* :mod:`.catalogue`: one function per figure file (:data:`FIGURES`), and :func:`save`;
* :mod:`.budget`: Monte Carlo agents held to a fixed number of playouts per decision.

Figures are written to the ``figures/`` folder at the repository root
(:data:`FIGURES_DIR`), whatever the working directory.
"""

from __future__ import annotations

from pathlib import Path

from .budget import SCHEDULES, FixedBudget
from .catalogue import FIGURES, SEED, save

FIGURES_DIR = Path(__file__).resolve().parents[2] / "figures"
"""``figures/`` at the repository root (anchored at this file, not the working directory)."""

__all__ = ["FIGURES", "FIGURES_DIR", "SCHEDULES", "SEED", "FixedBudget", "save"]
