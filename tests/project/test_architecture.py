"""The house plan (docs/dev/architecture.md), held to the code: stages, floors, no loops."""

import pytest

from tests.support.import_graph import ROOT, arrows, floors, loops, module_files, rooms

APPS = ["djangofeeds", "blog", "djangofeeds_blog_shared"]
MAX_TOP_MODULES = 20
MAX_FLOORS = 10
MAX_LINES = 300


def test_djangofeeds_keeps_its_face_at_the_top_and_its_machinery_in_stages():
    """At most 20 modules directly in djangofeeds/; the stages are packages."""
    top = sorted(path.name for path in (ROOT / "djangofeeds").glob("*.py"))
    stages = {"fetching", "parsing", "locking", "importing", "push", "search", "discovery"}

    assert len(top) <= MAX_TOP_MODULES, top
    assert all((ROOT / "djangofeeds" / stage / "__init__.py").is_file() for stage in stages)


@pytest.mark.parametrize("package", APPS)
def test_no_two_modules_or_stages_import_each_other(package):
    """No loop of imports, between modules nor between a package's rooms (its stages)."""
    assert loops(arrows(package)) == []
    assert loops(rooms(package)) == []


def test_djangofeeds_stands_at_most_ten_floors_high():
    """Each room stands above all it imports: at most 10 floors, so a reader's way down is short."""
    assert max(floors(rooms("djangofeeds")).values()) <= MAX_FLOORS


@pytest.mark.parametrize("package", APPS)
def test_no_module_is_over_300_lines(package):
    """Migrations are generated and left out."""
    long = {
        name: lines
        for name, path in module_files(package).items()
        if (lines := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}


def test_the_graph_finds_a_loop_and_counts_floors():
    """The measure itself: a loop is found, a chain's floors are counted from the ground."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    chain = {"top": {"middle"}, "middle": {"ground"}, "ground": set()}

    assert loops(graph) == [["a", "b", "c"]]
    assert floors(chain) == {"top": 3, "middle": 2, "ground": 1}
