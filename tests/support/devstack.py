"""``make run``'s stack in a copy of the checkout, driven as a developer at a shell would."""

import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
from django.conf import settings

from localservers.processes import WatchedProcess


def copy_project(target):
    """The project's code (the site, the apps and the package they share), without its
    database, broker folder, .env.local or virtualenv.

    ``.venv`` links to the virtualenv running the tests, so the docs'
    ``.venv/bin/python`` and ``.venv/bin/celery`` work in the copy.
    """
    base = Path(settings.BASE_DIR)
    shutil.copy(base / "manage.py", target)
    for path in base.iterdir():
        shared = path.name in ("project", "djangofeeds_blog_shared")
        if path.is_dir() and (shared or (path / "apps.py").exists()):
            shutil.copytree(path, target / path.name, ignore=shutil.ignore_patterns("__pycache__"))
    (target / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)


def clean_env():
    """A fresh shell's environment: PATH (without any virtualenv) and HOME, nothing exported."""
    entries = os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep)
    if sys.prefix != sys.base_prefix:  # a virtualenv: not on a fresh shell's PATH
        venv = Path(sys.prefix).resolve()
        entries = [entry for entry in entries if not Path(entry).resolve().is_relative_to(venv)]
    path = os.pathsep.join(entries)
    return {"PATH": path, "HOME": os.environ.get("HOME", "/root")}


def start_stack(cwd, port):
    """``python -m project.devstack`` in cwd with a clean environment, output collected."""
    env = clean_env()
    stack = WatchedProcess(
        [".venv/bin/python", "-m", "project.devstack", "--port", str(port)], cwd=cwd, env=env
    )
    stack.cwd, stack.env, stack.url = cwd, env, f"http://127.0.0.1:{port}/"
    return stack


def wait_until_up(stack, timeout=180):
    """Wait for the login banner, which devstack prints once web, worker and beat are up."""
    return stack.wait_for(r"Press Ctrl-C to stop web, worker and beat\.", timeout=timeout)


def stop_stack(stack, timeout=90):
    """Ctrl-C, as at the terminal; returns the exit code."""
    stack.process.send_signal(signal.SIGINT)
    return stack.process.wait(timeout=timeout)


def processes_running_in(folder):
    """PIDs of processes whose working directory is folder (web, worker, beat, children)."""
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and Path(os.readlink(proc / "cwd")) == folder:
                pids.append(int(proc.name))
        except OSError:
            continue
    return pids


def kill_everything_in(folder):
    for pid in processes_running_in(folder):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            continue


def wait_for_http(url, timeout=60):
    deadline = time.monotonic() + timeout
    while True:
        try:
            return httpx.get(url, timeout=5)
        except httpx.TransportError:
            assert time.monotonic() < deadline, f"{url} never answered"
            time.sleep(0.2)


def type_in_shell(stack, command, stdin="", timeout=180):
    """``command`` as typed at a fresh shell (bash, nothing exported) in the stack's folder."""
    return subprocess.run(
        ["bash", "-c", command],
        cwd=stack.cwd,
        env=stack.env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def manage(stack, *args):
    """``.venv/bin/python manage.py args`` in the stack's folder, from a fresh shell."""
    return type_in_shell(stack, shlex.join([".venv/bin/python", "manage.py", *args]))


CHILD_COMMANDS = {"web": "runserver", "worker": "worker", "beat": "beat"}


def child_pid(stack, name):
    """The PID of the stack's child ``name`` (web, worker or beat), or None if none runs."""
    for proc in Path("/proc").iterdir():
        try:
            if not proc.name.isdigit():
                continue
            ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if ppid == stack.process.pid and CHILD_COMMANDS[name].encode() in argv:
            return int(proc.name)
    return None
