"""``make run``: prepare the database, then run web, worker and beat until Ctrl-C.

Usage: ``python -m project.devstack [--host 127.0.0.1] [--port 8000]``.
Development only: it writes ``.env.local`` (a generated secret key, DEBUG on,
private feed hosts allowed) if missing, so that ``manage.py`` and ``celery`` in
another terminal share the stack's configuration, and creates a superuser with
a random password, kept in ``var/admin-password``.
"""

import argparse
import contextlib
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

# After Ctrl-C, what stops the worker's running tasks if they have not finished
# in the grace period (one fetch deadline): a cold shutdown, which ends each
# pool process with SIGTERM, so its tasks unwind and release their import locks
# (a SIGKILL would leave them held until they expire). Only then SIGKILL.
COLD_STOP_SECONDS = 15
OTHERS_STOP_SECONDS = 10
READY_TIMEOUT_SECONDS = 120
DEV_SUPERUSER = "admin"
PASSWORD_FILE = "admin-password"
# A line each child prints once it is up.
READY_LINES = {
    "web": re.compile(r"Quit the server with"),
    "worker": re.compile(r"\bready\.$"),
    "beat": re.compile(r"beat: Starting"),
}


def prepare_database(site):
    """Migrate, create the cache table, the beat entries and the demo data (all idempotent)."""
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=1)
    call_command("createcachetable", verbosity=0)
    # The apps' periodic tasks (the 5-second refresh tick among them) as beat
    # entries editable in the admin; entries that exist are kept as they are.
    call_command("setup_schedules", verbosity=1)
    load_demo_data(site)
    release_interrupted_imports()


def release_interrupted_imports():
    """Make the feeds whose imports the last stop interrupted due now.

    Nothing of this stack runs yet, so every claim left is a stale one; without
    this, a feed stopped mid-import would wait for its claim's timeout.
    """
    from djangofeeds.claims import release_every_claim

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
    Feed.objects.subscribe(own_feed, title="This blog", discover=False)


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


def relay_output(name, stream, ready):
    """Print a child's output line by line, prefixed with its name; note when it is up."""
    pattern = READY_LINES.get(name)
    for line in iter(stream.readline, ""):
        sys.stdout.write(f"{name:>6} | {line}")
        sys.stdout.flush()
        if pattern and pattern.search(line.rstrip()):
            ready.add(name)


def start(name, argv, cwd, ready):
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
        env={**os.environ, "PYTHONUNBUFFERED": "1"},  # lines as they come, not in blocks
    )
    threading.Thread(target=relay_output, args=(name, process.stdout, ready), daemon=True).start()
    return process


def listening(host, port):
    with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=1):
        return True
    return False


def stop_grace_seconds():
    """How long Ctrl-C waits for running tasks: one import's fetch deadline, and a margin."""
    from django.conf import settings

    return 3 * settings.DJANGOFEEDS_FETCH_TIMEOUT + 5


def wait(process, seconds, interrupt=None):
    """Wait for process to exit (at most seconds, or until interrupt is set); True if it did."""
    deadline = time.monotonic() + seconds
    while process.poll() is None:
        if time.monotonic() > deadline or (interrupt is not None and interrupt.is_set()):
            return False
        time.sleep(0.1)
    return True


def signal_group(process, signum):
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signum)


def stop(processes, force):
    """Stop web and beat at once; give the worker's running tasks time, then stop them cleanly.

    The worker gets a warm shutdown (SIGTERM: no new tasks, running ones
    finish) for up to ``stop_grace_seconds()``, less if Ctrl-C is pressed again
    (``force``); then a cold one (SIGQUIT), whose SIGTERM to each pool process
    unwinds its task through ``finally``, releasing the feed's import lock.
    A restart can import at once; nothing is left "skipped (lock held)".
    """
    worker = processes.get("worker")
    for name, process in processes.items():
        if process.poll() is None:
            if name == "worker":
                process.send_signal(signal.SIGTERM)
            else:
                signal_group(process, signal.SIGINT)
    if worker is not None and worker.poll() is None:
        grace = stop_grace_seconds()
        print(
            f"Waiting up to {grace}s for the worker's running tasks to finish "
            "(Ctrl-C again stops them now; their locks are released).",
            flush=True,
        )
        if not wait(worker, grace, interrupt=force):
            print("Stopping the worker's running tasks now.", flush=True)
            worker.send_signal(signal.SIGQUIT)
            if not wait(worker, COLD_STOP_SECONDS):
                print(f"worker did not stop in {COLD_STOP_SECONDS}s: killing it", flush=True)
                signal_group(worker, signal.SIGKILL)
    for name, process in processes.items():
        if not wait(process, OTHERS_STOP_SECONDS):
            print(f"{name} did not stop in {OTHERS_STOP_SECONDS}s: killing it", flush=True)
        signal_group(process, signal.SIGKILL)  # leftovers of the group, if any
        process.wait()


def configure_environment():
    """Create or complete .env.local; return a note naming what other terminals will lack."""
    from project import localenv

    env_file = localenv.ensure_dev_file()
    if env_file is None:  # DJANGO_ENV_FILE="": this environment is the whole configuration
        for name, value in localenv.DEV_DEFAULTS.items():
            os.environ.setdefault(name, value)
        return ""
    differing = localenv.exported_but_not_in_file(env_file)
    if not differing:
        return ""
    return (
        f"Exported in this shell but not in {env_file.name}: {', '.join(differing)}; "
        f"commands in another terminal\nwill not use them unless you add them to "
        f"{env_file.name}.\n"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    args = parser.parse_args(argv)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")
    note = configure_environment()
    import django

    django.setup()
    site = f"http://{args.host}:{args.port}/"
    prepare_database(site)
    password = ensure_dev_superuser()
    if password:
        keep_password(password)

    from django.conf import settings

    # From here on Ctrl-C means "stop the children", never an abrupt exit
    # that would leave them running in their own sessions; a second one means
    # "do not wait for running tasks".
    stopping, force = threading.Event(), threading.Event()

    def interrupted(*_):
        (force if stopping.is_set() else stopping).set()

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, interrupted)
    ready = set()
    processes = {
        name: start(name, argv, settings.BASE_DIR, ready)
        for name, argv in commands(args.host, args.port).items()
    }
    print(f"Starting web, worker and beat on {site} ...", flush=True)

    exit_code, shown_banner, started = 0, False, time.monotonic()
    while not stopping.wait(0.5):
        dead = [name for name, process in processes.items() if process.poll() is not None]
        if dead:
            print(f"{', '.join(dead)} exited; stopping the rest.", flush=True)
            exit_code = 1
            break
        up = ready >= set(READY_LINES) and listening(args.host, args.port)
        if not shown_banner and (up or time.monotonic() - started > READY_TIMEOUT_SECONDS):
            print(login_banner(site, note), flush=True)
            shown_banner = True
    stop(processes, force)
    print("Stopped.", flush=True)
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
