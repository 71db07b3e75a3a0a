"""The import graph of a package, read from its source: modules, arrows, loops, floors.

``python -m tests.support.import_graph djangofeeds`` prints it; the architecture test
(tests/project/test_architecture.py) holds the house plan to it. Every import counts,
those inside functions and under ``TYPE_CHECKING`` too: a reader follows them all.
A "room" is a top-level module, or a subpackage taken whole.
"""

import ast
import sys
from collections import defaultdict
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def module_files(package, *, skip=("migrations",)):
    """``{dotted name: path}`` of the package's modules, ``skip``'s folders left out."""
    found = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        relative = path.relative_to(ROOT)
        if any(part in skip for part in relative.parts):
            continue
        parts = list(relative.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imported_names(module, path):
    """The dotted names a module imports (``from a import b`` gives ``a`` and ``a.b``)."""
    is_package = path.name == "__init__.py"
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")[: len(module.split(".")) - node.level + is_package]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            names.add(target)
            names.update(f"{target}.{alias.name}" for alias in node.names)
    return names


def arrows(package):
    """``{module: {modules of the package it imports}}``, the package's own face left out
    where a name is one of its submodules (``from pkg import sub`` imports ``pkg.sub``)."""
    files = module_files(package)
    graph = defaultdict(set)
    for module, path in files.items():
        graph[module]
        for name in imported_names(module, path):
            if name in files and name != module:
                graph[module].add(name)
        # "from pkg import sub": an arrow to pkg.sub, not to pkg, when sub is a module
        for name in list(graph[module]):
            names_a_submodule = any(
                other.startswith(name + ".") and other in graph[module] for other in files
            )
            if names_a_submodule and name != package and not _defines_anything(files[name]):
                graph[module].discard(name)
    return dict(graph)


@cache
def _defines_anything(path):
    """Whether a package's ``__init__`` defines names of its own (beyond a docstring)."""
    body = ast.parse(path.read_text()).body
    return any(not isinstance(node, ast.Expr) for node in body)


def rooms(package):
    """The graph of rooms: ``package.x`` for each top-level module or subpackage."""
    depth = package.count(".") + 2
    graph = defaultdict(set)
    for module, targets in arrows(package).items():
        room = ".".join(module.split(".")[:depth])
        graph[room]
        for target in targets:
            other = ".".join(target.split(".")[:depth])
            if other != room and other != package:
                graph[room].add(other)
    return dict(graph)


def loops(graph):
    """The strongly connected groups of more than one node (Tarjan), sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def floors(graph):
    """``{node: floor}``: 1 for a node that imports nothing here, else 1 + its highest
    import's floor. Only for a graph without loops."""
    floor = {}

    def of(node):
        if node not in floor:
            floor[node] = 1 + max((of(target) for target in graph.get(node, ())), default=0)
        return floor[node]

    for node in graph:
        of(node)
    return floor


def main(package):
    graph = rooms(package)
    modules = arrows(package)
    print(f"{package}: {len(graph)} rooms, {sum(map(len, graph.values()))} arrows between them;")
    print(f"  {len(modules)} modules, {sum(map(len, modules.values()))} arrows between them")
    for kind, each in (("rooms", graph), ("modules", modules)):
        for group in loops(each):
            print(f"  loop of {kind}: {' -> '.join(group)}")
    if not loops(graph):
        floor = floors(graph)
        print(f"  {max(floor.values())} floors")
        for room in sorted(graph, key=lambda room: (-floor[room], room)):
            print(f"  floor {floor[room]:2}  {room}  ->  {', '.join(sorted(graph[room])) or '-'}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "djangofeeds")
