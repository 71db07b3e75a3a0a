"""Run in a child process: a host with blog alone, djangofeeds unimportable; print what
happened as JSON (tests/blog/test_stands_alone.py).

Before anything is imported, a ``sys.meta_path`` finder makes ``djangofeeds`` (and any
module of it) raise ImportError, and notes each attempt, caught or not. Then Django is
set up with blog and without djangofeeds, every module of blog is imported, and
``check``, ``migrate``, ``blog.__version__``, ``setup_schedules`` and the entry list
(page 2: the query parsing) are run.
"""

import importlib
import io
import json
import os
import pkgutil
import sys

from tests.support.children import BlockImports

BLOCKED = "djangofeeds"


def main():
    blocker = BlockImports(BLOCKED).install()
    os.environ["DJANGO_SETTINGS_MODULE"] = "tests.support.blog_alone.settings"
    import django
    from django.apps import apps
    from django.core.management import CommandError, call_command

    django.setup()
    import blog

    imported = []
    for info in pkgutil.walk_packages(blog.__path__, "blog."):
        importlib.import_module(info.name)
        imported.append(info.name)
    call_command("check", fail_level="WARNING", stdout=io.StringIO())
    call_command("migrate", verbosity=0)
    out = io.StringIO()
    try:
        call_command("setup_schedules", stdout=out)
    except CommandError as exc:
        schedules = f"CommandError: {exc}"
    else:
        schedules = out.getvalue()
    attempts = sorted(set(blocker.attempts))
    report = {
        "imported": imported,
        "apps": [config.name for config in apps.get_app_configs()],
        "version": blog.__version__,
        "setup_schedules": schedules,
        "entry_list": entry_list_status(),
        "attempts": attempts,
        "loaded": sorted(name for name in sys.modules if name.split(".")[0] == BLOCKED),
        "block_works": block_works(),
    }
    print(json.dumps(report))


def entry_list_status():
    """The entry list's answer to page 2 (read by the shared query parsing)."""
    from django.test import Client

    from blog.models import Entry

    for number in range(12):
        Entry.objects.create(
            title=f"Entry {number}", slug=f"entry-{number}", body="Hi", is_published=True
        )
    return Client().get("/blog/", {"page": "2"}).status_code


def block_works():
    """The block itself: ``import djangofeeds`` fails here (else the run proves nothing)."""
    try:
        importlib.import_module(BLOCKED)
    except ImportError:
        return True
    return False


if __name__ == "__main__":
    main()
