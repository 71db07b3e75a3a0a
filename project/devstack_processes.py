"""``make run``'s children: started in their own sessions, relayed, restarted, stopped with care."""

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

# After Ctrl-C, what stops the worker's running tasks if they have not finished
# in the grace period (one fetch deadline): a cold shutdown, which ends each
# pool process with SIGTERM, so its tasks unwind and release their import locks
# (a SIGKILL would leave them held until they expire). Only then SIGKILL.
COLD_STOP_SECONDS = 15
OTHERS_STOP_SECONDS = 10
# A child that exits is started again, unless it was restarted RESTART_LIMIT
# times within the last RESTART_WINDOW_SECONDS: one that dies at once each time
# (a broken setting, a taken port) then stops the stack instead of looping.
RESTART_LIMIT = 3
RESTART_WINDOW_SECONDS = 60
# A line each child prints once it is up.
READY_LINES = {
    "web": re.compile(r"Quit the server with"),
    "worker": re.compile(r"\bready\.$"),
    "beat": re.compile(r"beat: Starting"),
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


class Restarts:
    """When each child was restarted, to tell whether it may be restarted once more."""

    def __init__(self, limit=RESTART_LIMIT, window=RESTART_WINDOW_SECONDS):
        self.limit, self.window, self.times = limit, window, {}

    def allow(self, name):
        """Record a restart of name and return True, or False if it has had its limit."""
        now = time.monotonic()
        recent = [at for at in self.times.get(name, []) if now - at < self.window]
        allowed = len(recent) < self.limit
        self.times[name] = [*recent, now] if allowed else recent
        return allowed


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
