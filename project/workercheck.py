"""``python -m project.workercheck celery@HOST``: a worker container's healthcheck.

Healthy when the database and the lock cache answer (the check a worker waits
on before it says "ready", ``project.readiness``) and the worker answers a ping
(it is ready: started and on its broker). Exits 0, or 1 with one line that
says what is wrong.
"""

import argparse
import os
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m project.workercheck")
    parser.add_argument("destination", help="the worker's node name, e.g. celery@$HOSTNAME")
    parser.add_argument("--timeout", type=float, default=5, help="seconds to wait for the ping")
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")
    import django

    django.setup()
    problem = find_problem(args.destination, args.timeout)
    if problem:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    print(f"healthy: {args.destination} answers, and so do its database and lock cache")
    return 0


def find_problem(destination, timeout):
    """What keeps the worker from working, in one line; None when nothing does."""
    from project.celery import app
    from project.readiness import describe, reason, unreachable

    failing = unreachable()
    if failing:
        return describe(failing)
    try:
        replies = app.control.ping([destination], timeout=timeout)
    except Exception as exc:  # the broker's client raises its own errors
        return f"broker unreachable ({reason(exc)})"
    if not replies:
        return f"{destination} did not answer a ping within {timeout:g}s (not ready)"
    return None


if __name__ == "__main__":
    sys.exit(main())
