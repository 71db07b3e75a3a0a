"""``make run`` restarts a child that dies (issue 43), and gives up on one that keeps dying."""

import os
import signal
import subprocess

import pytest

from localservers.services import free_port
from localservers.waiting import wait_until
from project.devstack_processes import READY_LINES, RESTART_LIMIT
from tests.support.devstack import (
    child_pid,
    copy_project,
    kill_everything_in,
    processes_running_in,
    start_stack,
    stop_stack,
    wait_for_http,
    wait_until_up,
)

# The whole stack (web, workers, beat) per test: not beside other tests (xdist).
pytestmark = pytest.mark.serial


@pytest.fixture
def stack(tmp_path):
    copy_project(tmp_path)
    running = start_stack(tmp_path, free_port())
    wait_until_up(running)
    yield running
    running.kill()
    kill_everything_in(tmp_path)


def kill_child(stack, name, previous=None):
    """SIGKILL the stack's child ``name`` (another than PID previous) once it runs; its PID."""

    def running():
        pid = child_pid(stack, name)
        return pid if pid != previous else None

    pid = wait_until(running, timeout=60, message=f"a running {name}")
    os.kill(pid, signal.SIGKILL)
    return pid


def times_ready(stack, name):
    """How many times the child ``name`` has said it is up."""
    prefix = f"{name:>6} | "
    lines = stack.output.splitlines()
    return sum(1 for line in lines if line.startswith(prefix) and READY_LINES[name].search(line))


def wait_for_restart(stack, name):
    """The stack's one line about the killed child, then the child's own "up" line again."""
    stack.wait_for(rf"{name} exited with code -9; restarting it\.", timeout=10)
    wait_until(lambda: times_ready(stack, name) == 2, timeout=60, message=f"{name} up again")


def test_a_killed_web_worker_or_beat_comes_back(stack):
    """kill -9 of each child: one line says so, the child starts again, and the stack works."""
    for name in ("web", "worker", "beat"):
        killed = kill_child(stack, name)
        wait_for_restart(stack, name)
        assert child_pid(stack, name) not in (None, killed)

    assert wait_for_http(stack.url).status_code == 200
    code = "from project.tasks import add; print(add.delay(2, 2).get(timeout=30))"
    shell = subprocess.run(
        [".venv/bin/python", "manage.py", "shell", "-c", code],
        cwd=stack.cwd,
        env=stack.env,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert shell.stdout.splitlines()[-1:] == ["4"], shell.stdout + shell.stderr  # the new worker
    assert stop_stack(stack) == 0, stack.tail()
    assert processes_running_in(stack.cwd) == []


def test_a_child_that_keeps_dying_stops_the_stack(stack):
    """Past RESTART_LIMIT restarts within a minute the stack stops, with exit code 1."""
    killed = None
    for _ in range(RESTART_LIMIT + 1):
        killed = kill_child(stack, "beat", previous=killed)

    assert stack.process.wait(timeout=90) == 1, stack.tail()
    assert stack.output.count("beat exited with code -9; restarting it.") == RESTART_LIMIT
    assert f"beat exited again after {RESTART_LIMIT} restarts within 60s; stopping the rest." in (
        stack.output
    )
    assert stack.output.rstrip().endswith("Stopped.")
    assert processes_running_in(stack.cwd) == []
