"""Packaging the course with the package (everything else is in pyproject.toml).

The course's notebooks and the data they read stay in ``notebooks/`` at the repository's
root, where Binder, the Open in Colab links, nbval and ``./run course`` find them; the wheel
installs that folder as ``mctslab/course/notebooks/`` (a package-dir mapping: no copy, no
symlink in git), where ``mctslab.course.editions.NOTEBOOKS`` finds it, so that
``python -m mctslab course student OUT/`` works from ``pip install mctslab``.
"""

from setuptools import find_namespace_packages, setup

COURSE = "mctslab.course.notebooks"

setup(
    packages=[*find_namespace_packages(include=["mctslab*"]), COURSE, f"{COURSE}.data"],
    package_dir={COURSE: "notebooks"},
    package_data={
        # the C reference UCT that `python -m mctslab bench --c` builds (mctslab.bench.creference)
        "mctslab.bench": ["c/*.c"],
        "mctslab.nets": ["weights/*.npz", "weights/*.jsonl", "weights/*.json"],
        # notebook 08's precomputed results (mctslab.course.reproduction.exact_rows, .ablation)
        "mctslab.course.reproduction": ["data/*.json"],
        # the notebooks, and the data they read (09's stored games: mctslab.course.experiments.improvements)
        COURSE: ["*.ipynb", "data/*/*"],
    },
)
