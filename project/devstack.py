"""``make run``: prepare the database, then run web, worker and beat until Ctrl-C.

Usage: ``python -m project.devstack [--host 127.0.0.1] [--port 8000]``.
Development only: it turns DEBUG on and creates a superuser with a random
password, printed once.
"""

import argparse
import contextlib
import os
import secrets
import signal
import subprocess
import sys
import threading
import time

STOP_GRACE_SECONDS = 10
DEV_SUPERUSER = "admin"


def prepare_database(site):
    """Migrate, create the cache table and load the demo data (all idempotent)."""
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=1)
    call_command("createcachetable", verbosity=0)
    load_demo_data(site)


def load_demo_data(site):
    """A published blog entry, and the blog's own RSS as the first feed (beat imports it)."""
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
    Feed.objects.subscribe(f"{site}blog/feed/", title="This blog")


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


def commands(host, port):
    """The three long-running processes, by name."""
    from django.conf import settings

    queues = ",".join(queue.name for queue in settings.CELERY_TASK_QUEUES)
    celery = [sys.executable, "-m", "celery", "-A", "project"]
    return {
        "web": [sys.executable, "manage.py", "runserver", f"{host}:{port}"],
        "worker": [*celery, "worker", "-Q", queues, "-l", "INFO", "-n", "worker@%h"],
        "beat": [*celery, "beat", "-l", "INFO"],
    }


def relay_output(name, stream):
    """Print a child's output line by line, prefixed with its name."""
    for line in iter(stream.readline, ""):
        sys.stdout.write(f"{name:>6} | {line}")
        sys.stdout.flush()


def start(name, argv, cwd):
    # Own session: Ctrl-C reaches only this script, which then stops each
    # child's whole process group (runserver's reloader, celery's pool) in turn.
    process = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
        cwd=cwd,
    )
    threading.Thread(target=relay_output, args=(name, process.stdout), daemon=True).start()
    return process


def stop(processes):
    """SIGINT every group (warm shutdown, as Ctrl-C would), then SIGKILL stragglers."""
    for process in processes.values():
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)
    deadline = time.monotonic() + STOP_GRACE_SECONDS
    for name, process in processes.items():
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            print(f"{name} did not stop in {STOP_GRACE_SECONDS}s: killing it", flush=True)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # leftovers of the group, if any
        process.wait()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    args = parser.parse_args(argv)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")
    os.environ.setdefault("DJANGO_DEBUG", "1")
    os.environ.setdefault("DJANGOFEEDS_ALLOW_PRIVATE_HOSTS", "1")
    import django

    django.setup()
    site = f"http://{args.host}:{args.port}/"
    prepare_database(site)
    password = ensure_dev_superuser()

    from django.conf import settings

    # From here on Ctrl-C means "stop the children", never an abrupt exit
    # that would leave them running in their own sessions.
    stopping = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stopping.set())
    processes = {
        name: start(name, argv, cwd=settings.BASE_DIR)
        for name, argv in commands(args.host, args.port).items()
    }
    print(f"\nSite:  {site}\nAdmin: {site}admin/", flush=True)
    if password:
        print(f'Log in as "{DEV_SUPERUSER}" with password: {password}  (shown only once)')
    else:
        print(
            f'Log in as "{DEV_SUPERUSER}" (password shown on the first run; '
            f"reset it with: .venv/bin/python manage.py changepassword {DEV_SUPERUSER})"
        )
    print("Press Ctrl-C to stop web, worker and beat.\n", flush=True)

    exit_code = 0
    while not stopping.wait(0.5):
        dead = [name for name, process in processes.items() if process.poll() is not None]
        if dead:
            print(f"{', '.join(dead)} exited; stopping the rest.", flush=True)
            exit_code = 1
            break
    stop(processes)
    print("Stopped.", flush=True)
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
