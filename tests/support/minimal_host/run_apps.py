"""Run in a child process: import every module of both apps (and of the package they
share), check, migrate, clean up, judge a comment and queue an import, on the minimal
host; print what happened as JSON.

``--block`` first makes the optional libraries unimportable (an ImportError, as when
they are not installed); a module that is itself an optional feature (the Akismet
backend) must then fail with an ImportError naming its library. Without ``--block``
such a module is left alone, and the JSON says which optional libraries the rest
imported.
"""

import importlib
import io
import json
import os
import pkgutil
import sys

from tests.support.children import BlockImports

OPTIONAL = ("pymemcache", "akismet", "django_celery_results", "django_celery_beat")
# A module that is an optional feature itself, and the library it needs: loaded only
# when the feature is chosen (BLOG_SPAM_BACKEND, AKISMET_API_KEY).
FEATURE_MODULES = {"blog.akismet_client": "akismet"}


def main():
    blocking = "--block" in sys.argv
    if blocking:
        BlockImports(*OPTIONAL).install()
    os.environ["DJANGO_SETTINGS_MODULE"] = "tests.support.minimal_host.settings"
    import django
    from django.core.management import CommandError, call_command

    django.setup()
    imported, refused = [], {}
    for package in ("djangofeeds", "blog", "djangofeeds_blog_shared"):
        module = importlib.import_module(package)
        for info in pkgutil.walk_packages(module.__path__, f"{package}."):
            if info.name in FEATURE_MODULES and not blocking:
                continue  # importing it is using the feature
            try:
                importlib.import_module(info.name)
            except ImportError as exc:
                if exc.name != FEATURE_MODULES.get(info.name):
                    raise
                refused[info.name] = str(exc)
            else:
                imported.append(info.name)
    call_command("check", fail_level="WARNING")
    call_command("migrate", verbosity=0)
    report = {"imported": imported, "refused": refused, "queues": routes(), **run_tasks()}
    try:
        call_command("setup_schedules", stdout=io.StringIO())
    except CommandError as exc:
        report["setup_schedules"] = str(exc)
    report["optional_imported"] = sorted(name for name in OPTIONAL if name in sys.modules)
    print(json.dumps(report))


def routes():
    """The queue each task of both apps goes to, on a Celery app without routes."""
    from celery import Celery

    app = Celery("host", set_as_current=True)
    app.config_from_object("django.conf:settings", namespace="CELERY")
    app.conf.broker_url = "memory://"
    app.autodiscover_tasks()
    app.loader.import_default_modules()
    names = [name for name in app.tasks if name.startswith(("djangofeeds.", "blog."))]
    return {name: app.amqp.router.route({}, name)["queue"].name for name in names}


def run_tasks():
    """The cleanup, a comment's spam check (local rules) and an import queued by URL."""
    from celery import current_app

    from blog.models import Comment, Entry
    from blog.tasks import spam_filter
    from djangofeeds.importing.dispatch import enqueue_imports
    from djangofeeds.importing.retention import cleanup

    entry = Entry.objects.create(title="Hello", slug="hello", body="Hi", is_published=True)
    comment = Comment.objects.create(entry=entry, name="Ann", comment="Nice post", user_ip="::1")
    is_spam = spam_filter.apply(kwargs={"comment_id": comment.pk}).get()
    queued, _ = enqueue_imports(["https://feeds.example/rss"])
    with current_app.connection_for_write() as connection:
        queue = queued[0][1].app.amqp.router.route({}, "djangofeeds.tasks.import_feed")["queue"]
        waiting = connection.default_channel.queue_declare(queue=queue.name, passive=True)
    return {
        "cleanup": cleanup(),
        "is_spam": is_spam,
        "comment_status": Comment.objects.get(pk=comment.pk).status,
        "import_queue": queue.name,
        "import_messages": waiting.message_count,
    }


if __name__ == "__main__":
    main()
