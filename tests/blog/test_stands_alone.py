"""blog stands alone: it imports nothing of djangofeeds, so a host may install blog alone.

What both apps need (the query parsing, the admin's safe changelist, the version,
setup_schedules) is in djangofeeds_blog_shared, the package of the distribution that
both import. A child process proves it where djangofeeds cannot be imported; a reading
of blog's source says it for every import, even one a run never reaches.
"""

import ast
from pathlib import Path

import pytest
from django.conf import settings

import blog
import djangofeeds_blog_shared
from tests.support.children import json_report

# The blog's fixtures clear state in the cache, which may be the database's.
pytestmark = pytest.mark.django_db

BLOG = Path(blog.__file__).parent


@pytest.fixture(scope="module")
def alone(tmp_path_factory):
    """The report of tests/support/blog_alone/run.py: blog alone, djangofeeds unimportable."""
    env = {"PATH": "/usr/bin:/bin", "BLOG_ALONE_DB": str(tmp_path_factory.mktemp("alone") / "db")}
    return json_report("tests.support.blog_alone.run", env=env, cwd=settings.BASE_DIR)


def test_blog_runs_with_djangofeeds_unimportable(alone):
    """With ``import djangofeeds`` failing, every module of blog imports, ``check`` passes
    with no warning, the migrations run, the entry list answers (its page read by the
    shared query parsing), blog reports the version, and no module ever asked for
    djangofeeds (not even an ImportError caught)."""
    assert alone["block_works"], "the child could import djangofeeds: the run proves nothing"
    assert "djangofeeds" not in alone["apps"] and "blog" in alone["apps"]
    assert set(alone["imported"]) == set(_blog_modules()) - {"blog"}
    assert {"blog.admin", "blog.views", "blog.management.commands.setup_schedules"} <= set(
        alone["imported"]
    )
    assert alone["entry_list"] == 200
    assert alone["version"] == djangofeeds_blog_shared.__version__
    assert (alone["attempts"], alone["loaded"]) == ([], [])


def test_blog_alone_has_setup_schedules(alone):
    """blog's setup_schedules runs without djangofeeds: blog's two beat entries where
    django-celery-beat is installed, else the message saying what to do instead."""
    if "django_celery_beat" in alone["apps"]:
        assert "Beat entries: 2 created, 0 kept as they were." in alone["setup_schedules"]
    else:
        assert "django-celery-beat is not in INSTALLED_APPS" in alone["setup_schedules"]


def _blog_modules():
    """``{dotted name: path}`` of every module of blog (migrations included)."""
    found = {}
    for path in sorted(BLOG.rglob("*.py")):
        parts = path.relative_to(BLOG.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imported_names(path):
    """The absolute module names a module's imports name, those inside functions too."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module)
    return names


def test_no_module_of_blog_imports_djangofeeds():
    """No ``import djangofeeds...`` nor ``from djangofeeds... import`` anywhere in blog/
    (the shared package, djangofeeds_blog_shared, is another name)."""
    found = {
        name: sorted(n for n in imported_names(path) if n.split(".")[0] == "djangofeeds")
        for name, path in _blog_modules().items()
    }
    assert {name: names for name, names in found.items() if names} == {}
    assert "djangofeeds_blog_shared" in imported_names(BLOG / "views.py")  # the reader works
