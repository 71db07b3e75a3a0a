"""SPEC §8: the wheel in a fresh `django-admin startproject` host, on each supported Django.

Each test is what a developer does: install the wheel, add one app to
INSTALLED_APPS and its URLs, run the commands, open the pages. Real commands,
real HTTP (``runserver``), SQLite, every app setting at its default.
"""

import json

import pytest

from localservers.feed_server import numbered_items, rss
from tests.support.host_project import HostProject, post_form_action

pytestmark = [pytest.mark.host, pytest.mark.timeout(900)]

FEEDS_SETTINGS = """
INSTALLED_APPS += ["djangofeeds"]
# The README's lock cache for a host with nothing else to run ("A cache for the locks").
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "djangofeeds_cache",
    }
}
# The test's feed server listens on 127.0.0.1. djangofeeds refuses loopback and
# private addresses by default (a feed URL must not reach into the host's own
# network); this host trusts the test's server: the one setting it changes.
DJANGOFEEDS_ALLOW_PRIVATE_HOSTS = True
"""

BLOG_SETTINGS = """
INSTALLED_APPS += ["blog"]

# Celery, as "First steps with Django" wires it (host/celery.py reads CELERY_*).
# Tasks run in the web process, so the site needs no worker to check comments.
CELERY_TASK_ALWAYS_EAGER = True
# A message published anyway stays in this process (this machine runs a real
# RabbitMQ at Celery's default URL): a comment left pending then fails the test.
CELERY_BROKER_URL = "memory://"
"""

# Celery's "First steps with Django": proj/celery.py and proj/__init__.py.
CELERY_PY = """
import os

from celery import Celery

# Set the default Django settings module for the 'celery' program.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "host.settings")

app = Celery("host")

# All celery-related configuration keys should have a `CELERY_` prefix.
app.config_from_object("django.conf:settings", namespace="CELERY")

# Load task modules from all registered Django apps.
app.autodiscover_tasks()
"""

HOST_INIT = """
# This will make sure the app is always imported when Django starts so that
# shared_task will use this app.
from .celery import app as celery_app

__all__ = ("celery_app",)
"""

COMMENT_STATUSES = """
import json
from blog.models import Comment
checked = {c.name: [c.status, c.spam_checked_at is not None] for c in Comment.objects.all()}
print(json.dumps(checked))
"""


def set_up(project, release):
    """check (no issue: the settings follow the README), migrate (deprecation warnings as
    errors on 6.1) and a superuser."""
    checked = project.manage("check", strict=release.strict)
    assert "System check identified no issues" in checked.stdout, checked.stdout + checked.stderr
    project.manage("migrate", "--noinput", strict=release.strict)
    project.create_superuser()


def test_djangofeeds_host_imports_and_shows_feeds(host, feed_server, tmp_path):
    """A host with only djangofeeds installed and mounted at /feeds/ checks, migrates, adds
    and imports a feed from the command line, and shows it on its pages and in the admin."""
    project = HostProject(
        host.path, tmp_path / "feeds-host", label=f"djangofeeds {host.release.django}"
    )
    project.add_settings(FEEDS_SETTINGS)
    project.include_urls("feeds/", "djangofeeds.urls")
    project.manage("createcachetable")
    set_up(project, host.release)
    url = feed_server.serve("/host.xml", rss(numbered_items(3, prefix="hosted"), title="Host feed"))

    project.manage("addfeed", url)
    project.manage("import_feeds", "--sync")
    counts = project.shell(
        "from djangofeeds.models import Feed; f = Feed.objects.get(); print(f.pk, f.posts.count())",
        what="feed and post count",
    )
    feed_id, posts = map(int, counts.split())
    assert posts == 3, f"import_feeds --sync stored {posts} posts of 3"
    assert feed_server.hits("/host.xml") >= 1
    # The feed changes: its second import finds the posts it knows (Django 6.1 crashed here).
    feed_server.serve("/host.xml", rss(numbered_items(4, prefix="hosted"), title="Host feed"))
    again = project.manage("import_feeds", url, "--sync", strict=host.release.strict)
    assert "imported" in again.stdout and "failed" not in again.stdout, again.stdout
    posts = project.shell(
        "from djangofeeds.models import Post; print(Post.objects.count())", what="post count"
    )
    assert posts == "4", f"the second import left {posts} posts of 4"

    with project.server() as visitor:
        assert "Hosted 0" in visitor.get("/feeds/").text
        detail = visitor.get(f"/feeds/{feed_id}/").text
        assert "Host feed" in detail and "Hosted 2" in detail
        visitor.log_in_to_admin()
        assert "Host feed" in visitor.get("/admin/djangofeeds/feed/").text
        assert "Hosted 1" in visitor.get("/admin/djangofeeds/post/").text


def test_blog_host_checks_comments_after_commit(host, tmp_path):
    """A host with only blog installed, mounted at /journal/ and Celery wired as Celery's
    docs say (eager tasks) shows an entry, redirects a comment POST, and has judged the
    comment by the local rules once the request committed; the admin lists comments."""
    project = HostProject(host.path, tmp_path / "blog-host", label=f"blog {host.release.django}")
    project.write("host/celery.py", CELERY_PY)
    project.write("host/__init__.py", HOST_INIT)
    project.add_settings(BLOG_SETTINGS)
    project.include_urls("journal/", "blog.urls")
    set_up(project, host.release)
    entry_url = project.shell(
        "from blog.models import Entry; print(Entry.objects.create(title='Hello host', "
        "slug='hello-host', body='An entry of the host.', is_published=True).get_absolute_url())",
        what="an entry",
    )
    assert entry_url.startswith("/journal/"), entry_url

    with project.server() as visitor:
        assert "Hello host" in visitor.get("/journal/").text
        page = visitor.get(entry_url).text
        action = post_form_action(page, entry_url)
        comments = {
            "Ann": "A kind word about this entry.",
            "Bot": "Win big at the casino tonight!",  # a blocked word of the local rules
        }
        for name, text in comments.items():
            data = {"name": name, "email_address": f"{name}@example.com", "comment": text}
            redirect = visitor.post(action, data, status=303)
            assert redirect.headers["location"].startswith(entry_url)
        statuses = json.loads(project.shell(COMMENT_STATUSES, what="comment statuses"))
        assert statuses == {"Ann": ["published", True], "Bot": ["spam", True]}
        page = visitor.get(entry_url).text
        assert comments["Ann"] in page and "casino" not in page
        visitor.log_in_to_admin()
        comment_list = visitor.get("/admin/blog/comment/").text
        assert "Ann" in comment_list and "Bot" in comment_list
