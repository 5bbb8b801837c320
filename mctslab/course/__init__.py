"""The course built on mctslab: its experiments, reproductions, exercise checks, figures and editions.

The core package (games, agents, tournaments, pictures) never imports this one; this one
imports the core only. Importing it registers the course's own agents (Racioppo 2020's
Monte Carlo, :class:`~mctslab.course.reproduction.agent.RacioppoMonteCarlo`), which the
command line and notebook 08 use by spec (``racioppo:playouts=100,window=3``).

* :mod:`mctslab.course.experiments`: seeded experiments the notebooks import;
* :mod:`mctslab.course.reproduction`: Racioppo 2020 reproduced;
* :mod:`mctslab.course.exercises`: checks of the students' exercises;
* :mod:`mctslab.course.figures`: one function per figure (``python -m mctslab.course.figures``);
* :mod:`mctslab.course.editions`: the student edition (``python -m mctslab course student OUT``).
"""

from .reproduction.agent import RacioppoMonteCarlo

__all__ = ["RacioppoMonteCarlo"]
