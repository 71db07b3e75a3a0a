"""What ``make run`` prepares before it starts: the database, demo data, the superuser."""

import os
import secrets
from pathlib import Path

DEV_SUPERUSER = "admin"
PASSWORD_FILE = "admin-password"


def prepare_database(site):
    """Migrate, create the cache table, the beat entries and the demo data (all idempotent)."""
    from django.apps import apps
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=1)
    call_command("createcachetable", verbosity=0)
    # The apps' periodic tasks (the 5-second refresh tick among them) as beat
    # entries editable in the admin; entries that exist are kept as they are.
    # Without django-celery-beat (Django 6.1) beat reads CELERY_BEAT_SCHEDULE instead.
    if apps.is_installed("django_celery_beat"):
        call_command("setup_schedules", verbosity=1)
    load_demo_data(site)
    release_interrupted_imports()


def release_interrupted_imports():
    """Make the feeds whose imports the last stop interrupted due now.

    Nothing of this stack runs yet, so every claim left is a stale one; without
    this, a feed stopped mid-import would wait for its claim's timeout.
    """
    from djangofeeds.importing.claims import release_every_claim

    released = release_every_claim()
    if released:
        print(f"{released} feed imports interrupted by the last stop are due again.", flush=True)


def load_demo_data(site):
    """A published blog entry, and the blog's own RSS as the first feed (beat imports it)."""
    from django.urls import reverse

    from blog.models import Entry
    from djangofeeds.models import Feed

    Entry.objects.get_or_create(
        slug="hello-celery",
        defaults={
            "title": "Hello, Celery",
            "body": (
                "This blog runs on Django with Celery workers beside it.\n\n"
                "Post a comment: a worker checks it for spam in the background, "
                "so you never wait for the check."
            ),
            "is_published": True,
        },
    )
    # Our own feed, and the site is not serving yet: nothing to discover.
    own_feed = site.rstrip("/") + reverse("blog:feed")
    Feed.objects.subscribe(own_feed, title="This blog")


def ensure_dev_superuser():
    """Create the development superuser; return its password, or None if it existed."""
    from django.conf import settings
    from django.contrib.auth import get_user_model

    if not settings.DEBUG:
        raise SystemExit("Refusing to create a development superuser with DEBUG off.")
    User = get_user_model()
    if User.objects.filter(username=DEV_SUPERUSER).exists():
        return None
    password = secrets.token_urlsafe(12)
    User.objects.create_superuser(DEV_SUPERUSER, "admin@localhost", password)
    return password


def password_file():
    from django.conf import settings

    return Path(settings.VAR_DIR) / PASSWORD_FILE


def keep_password(password):
    """Write the new superuser's password to var/admin-password, readable by its owner only."""
    path = password_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(password + "\n")


def kept_password():
    """The password in var/admin-password if it still logs the superuser in, else None."""
    from django.contrib.auth import get_user_model

    try:
        password = password_file().read_text().strip()
    except OSError:
        return None
    user = get_user_model().objects.filter(username=DEV_SUPERUSER).first()
    return password if user and user.check_password(password) else None


def shown(path):
    """A path as the developer would type it: relative to the checkout when inside it."""
    from django.conf import settings

    path = Path(path).resolve()
    base = Path(settings.BASE_DIR).resolve()
    return str(path.relative_to(base)) if path.is_relative_to(base) else str(path)


def login_banner(site, note=""):
    """Where to go and how to log in: printed once the stack is up, after the banners."""
    password = kept_password()
    if password:
        login = (
            f'Log in as "{DEV_SUPERUSER}" with password: {password}  '
            f"(kept in {shown(password_file())})"
        )
    else:
        login = (
            f'Log in as "{DEV_SUPERUSER}" (its password was changed, or not kept in '
            f"{shown(password_file())}; set one with: "
            f".venv/bin/python manage.py changepassword {DEV_SUPERUSER})"
        )
    rule = "-" * 72
    return (
        f"\n{rule}\nSite:  {site}\nAdmin: {site}admin/\n{login}\n"
        "Commands in another terminal (manage.py, celery) use this configuration: .env.local.\n"
        f"{note}Press Ctrl-C to stop web, worker and beat.\n{rule}\n"
    )
