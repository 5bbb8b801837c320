"""The package's shape, read from its source: layers, no import circle, core apart from course.

Every ``import`` in every module counts: at module level, inside functions and under
``if TYPE_CHECKING:`` (the AST is walked whole), relative or absolute. A failure names the
module, the line and the import, and says which rule it breaks.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "mctslab"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("validation", "specs", "lifetime", "discovery"),
    ("seeding", "ucb", "display"),
    ("games",),
    ("exact",),
    ("engine",),
    ("nets",),
    ("agents",),
    ("play",),
    ("tournament",),
    ("viz", "bandits", "alphazero", "bench"),
    ("course",),
    ("cli", "__main__", ""),  # "": the package's own __init__, which re-exports the core
)
"""The layers, lowest first, by the first name under ``mctslab`` (``mctslab.games.base`` is in
``games``). A module may import its own layer and the layers below it, never one above. A new
top-level module or folder must be placed here: the test below says so."""

CORE_EXCLUDES = ("course", "cli", "__main__")
"""What is not the core: the course, and the command line that runs both."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports(name: str) -> list[tuple[int, str]]:
    """``(line, imported module)`` for every import of a ``mctslab`` module in module ``name``."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names if alias.name.split(".")[0] == "mctslab"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "mctslab":
                continue
            for alias in node.names:  # `from . import x` imports the module x when there is one
                sub = f"{target}.{alias.name}"
                found.append((node.lineno, sub if sub in MODULES else target))
    return found


def resolve(target: str) -> str:
    """The module an import runs: the longest known module name that ``target`` starts with."""
    while target not in MODULES and "." in target:
        target = target.rpartition(".")[0]
    return target


def top(name: str) -> str:
    return name.split(".")[1] if "." in name else ""


def layer(name: str) -> int:
    for i, names in enumerate(LAYERS):
        if top(name) in names:
            return i
    raise AssertionError(
        f"{name} ({MODULES[name].relative_to(PACKAGE.parent)}) is in no layer: add {top(name)!r} to LAYERS in "
        "tests/test_architecture.py, above everything it imports and below everything that imports it"
    )


def graph() -> dict[str, set[str]]:
    return {name: {resolve(t) for _, t in imports(name)} - {name} for name in MODULES}


def test_every_module_has_a_layer():
    for name in MODULES:
        layer(name)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_import_reaches_up_a_layer(name):
    for line, target in imports(name):
        target = resolve(target)
        assert layer(target) <= layer(name), (
            f"{MODULES[name].relative_to(PACKAGE.parent)}:{line} imports {target}, which is in a higher layer "
            f"({LAYERS[layer(target)]} above {LAYERS[layer(name)]}); move the shared code down, or this code up"
        )


@pytest.mark.parametrize("name", sorted(n for n in MODULES if top(n) not in CORE_EXCLUDES))
def test_the_core_never_imports_the_course(name):
    for line, target in imports(name):
        assert top(resolve(target)) != "course", (
            f"{MODULES[name].relative_to(PACKAGE.parent)}:{line} imports {target}: the core never imports "
            "mctslab.course (the course is built on the core, not the other way)"
        )


def strongly_connected(g: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one module (iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out = []
    for start in g:
        if start in index:
            continue
        work = [(start, iter(sorted(g[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            v, children = work[-1]
            w = next(children, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(g.get(w, ())))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def test_no_import_circle():
    circles = strongly_connected(graph())
    assert not circles, "import circles (each line: modules that import each other, directly or not):\n" + "\n".join(
        " <-> ".join(c) for c in circles
    )


def test_the_circle_finder_finds_circles():
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert strongly_connected({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("name", sorted(n for n, p in MODULES.items() if p.name == "__init__.py"))
def test_init_files_only_re_export(name):
    """An ``__init__.py`` holds a docstring, imports and ``__all__``: the code lives in named modules."""
    tree = ast.parse(MODULES[name].read_text())
    for i, node in enumerate(tree.body):
        if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the docstring
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if all(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                continue
        raise AssertionError(
            f"{MODULES[name].relative_to(PACKAGE.parent)}:{node.lineno} defines code ({type(node).__name__}); "
            "an __init__.py only re-exports: move it to a module named for what it is"
        )


def test_no_engine_reads_an_agents_private_fields():
    # before: agents/compiled.py read and wrote agent._compiled_previous (the tree kept for reuse)
    engines = [PACKAGE / "agents" / name for name in ("compiled.py", "processes.py", "engines.py")]
    for path in [*engines, *sorted((PACKAGE / "engine").glob("*.py"))]:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            assert not re.search(r"\bagent\._", line), f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}"
