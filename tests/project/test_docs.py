"""README.md and docs/ hold together: every link lands, every app setting is documented.

The docs are plain markdown read on GitHub or in a checkout, so a link is a path
relative to the file it is in, and an anchor is GitHub's slug of a heading. The
README's links are absolute (it is the package index's page too): tests/host/test_release.py.
"""

import ast
import re
from pathlib import Path

from django.conf import settings

from blog import conf as blog_conf
from djangofeeds import conf as djangofeeds_conf
from tests.support.markdown import heading_anchors, is_relative, link_targets, repository_path

BASE = Path(settings.BASE_DIR)
DOCUMENTS = [BASE / "README.md", *sorted((BASE / "docs").glob("*.md"))]


def anchors(path):
    """The anchors of a markdown file's headings (those outside code blocks)."""
    return heading_anchors(path.read_text())


def links(path):
    """The relative links and image sources of a markdown file, outside code."""
    return [target for target in link_targets(path.read_text()) if is_relative(target)]


def app_settings_table(app):
    """{setting: default} of one app's table under "Settings of the apps"."""
    page = (BASE / "docs" / "configuration.md").read_text()
    section = page.split("\n## Settings of the apps\n", 1)[1].split("\n## ", 1)[0]
    table = section.split(f"\n### {app}\n", 1)[1].split("\n### ", 1)[0]
    rows = re.findall(r"^\| `([A-Z0-9_]+)` \| `([^`]*)` \|", table, re.MULTILINE)
    return {name: ast.literal_eval(default) for name, default in rows}


def test_docs_topic_pages_exist():
    """The README's front page and the topic pages it links are all there."""
    names = {path.name for path in DOCUMENTS}
    assert {
        "README.md",
        "configuration.md",
        "feeds.md",
        "comments.md",
        "celery-and-scaling.md",
        "operations.md",
        "guarantees.md",
        "development.md",
        "benchmarks.md",
    } <= names


def test_docs_links_resolve_to_files_and_headings():
    """Each relative link and image of README.md and docs/*.md names a file that exists,
    and each #anchor a heading of that file."""
    broken = []
    checked = 0
    for document in DOCUMENTS:
        for link in links(document):
            target, _, anchor = link.partition("#")
            path = (document.parent / target).resolve() if target else document
            checked += 1
            if not path.exists():
                broken.append(f"{document.name}: {link} (no such file)")
            elif anchor and anchor not in anchors(path):
                broken.append(f"{document.name}: {link} (no such heading)")
    assert checked >= 30  # the parse finds the links (not vacuous)
    assert not broken, "\n".join(broken)


def test_docs_screenshots_are_shown():
    """Every picture in docs/screenshots/ is shown by the README (by absolute URLs: it is
    the package index's page too)."""
    targets = link_targets((BASE / "README.md").read_text())
    shown = {(BASE / path).resolve() for target in targets if (path := repository_path(target))}
    pictures = set((BASE / "docs" / "screenshots").glob("*.png"))
    assert pictures and pictures <= shown, pictures - shown


def test_docs_list_every_app_setting_with_its_default():
    """docs/configuration.md lists each app's settings, and only those, with the
    default its conf.py gives."""
    assert app_settings_table("djangofeeds") == djangofeeds_conf.DEFAULTS
    assert app_settings_table("blog") == blog_conf.DEFAULTS
