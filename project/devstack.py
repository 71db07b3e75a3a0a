"""``make run``: prepare the database, then run web, worker and beat until Ctrl-C.

A child that exits is restarted (``devstack_processes.RESTART_LIMIT`` times a minute at
most; past that the stack stops, as it does at Ctrl-C, and exits with 1).

Usage: ``python -m project.devstack [--host 127.0.0.1] [--port 8000]``.
Development only: it writes ``.env.local`` (a generated secret key, DEBUG on,
private feed hosts allowed) if missing, so that ``manage.py`` and ``celery`` in
another terminal share the stack's configuration, and creates a superuser with
a random password, kept in ``var/admin-password``.
"""

import argparse
import os
import signal
import sys
import threading
import time

from project.devstack_processes import (
    READY_LINES,
    RESTART_LIMIT,
    RESTART_WINDOW_SECONDS,
    Restarts,
    listening,
    signal_group,
    start,
    stop,
)
from project.devstack_setup import (
    ensure_dev_superuser,
    keep_password,
    login_banner,
    prepare_database,
)

READY_TIMEOUT_SECONDS = 120


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


def restart(name, processes, argv, cwd, ready):
    """Start name again, after killing what its last run left (runserver's server, celery's
    pool), which would hold the port or run tasks unseen."""
    process = processes[name]
    signal_group(process, signal.SIGKILL)
    ready.discard(name)
    print(f"{name} exited with code {process.returncode}; restarting it.", flush=True)
    processes[name] = start(name, argv, cwd, ready)


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
    ready, restarts = set(), Restarts()
    argvs = commands(args.host, args.port)
    processes = {name: start(name, argv, settings.BASE_DIR, ready) for name, argv in argvs.items()}
    print(f"Starting web, worker and beat on {site} ...", flush=True)

    exit_code, shown_banner, started = 0, False, time.monotonic()
    while not stopping.wait(0.5):
        dead = [name for name, process in processes.items() if process.poll() is not None]
        given_up = [name for name in dead if not restarts.allow(name)]
        if given_up:
            print(
                f"{', '.join(given_up)} exited again after {RESTART_LIMIT} restarts within "
                f"{RESTART_WINDOW_SECONDS}s; stopping the rest.",
                flush=True,
            )
            exit_code = 1
            break
        for name in dead:
            restart(name, processes, argvs[name], settings.BASE_DIR, ready)
        up = ready >= set(READY_LINES) and listening(args.host, args.port)
        if not shown_banner and (up or time.monotonic() - started > READY_TIMEOUT_SECONDS):
            print(login_banner(site, note), flush=True)
            shown_banner = True
    stop(processes, force)
    print("Stopped.", flush=True)
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
