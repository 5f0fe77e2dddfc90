"""The layout keeps its layers: no import cycle between porter's packages and top-level modules, and
the facts about targets live in one place (porter/targets)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PORTER = Path(__file__).resolve().parent.parent / "porter"


def unit_of(module: str) -> str:
    """porter.build.run → porter.build; porter.scan → porter.scan (a package or a top-level module)."""
    parts = module.split(".")
    return ".".join(parts[:2])


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in PORTER.rglob("*.py"):
        module = ".".join(path.relative_to(PORTER.parent).with_suffix("").parts).removesuffix(".__init__")
        source = unit_of(module)
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                if (
                    name.startswith("porter.")
                    and (PORTER.parent / name.replace(".", "/")).with_suffix(".py").exists()
                    or (name.startswith("porter.") and (PORTER.parent / name.replace(".", "/")).is_dir())
                ):
                    target = unit_of(name)
                    if target != source:
                        graph.setdefault(source, set()).add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    found, state, stack = [], {}, []

    def visit(node: str) -> None:
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                found.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found


def test_no_import_cycle_between_porters_packages():
    assert cycles(import_graph()) == []


def test_the_ground_floor_imports_nothing_above_it():
    leaves = {"porter.errors", "porter.home"}  # modules that import nothing of porter's
    assert all(not import_graph().get(leaf) for leaf in leaves)
    above = import_graph().get("porter.targets", set()) - leaves
    assert above == set()


def test_vendors_are_told_apart_by_the_table_not_by_prefixes():
    offenders = []
    for path in PORTER.rglob("*.py"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"""startswith\(\s*["'](sm_|gfx)""", line):
                offenders.append(f"{path.relative_to(PORTER)}:{number}")
    assert offenders == []
