"""``make run``'s entry point, started on embedded defaults in a fresh folder."""

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from django.conf import settings

from tests.support.processes import WatchedProcess
from tests.support.services import free_port

# Anything that would pull the stack off its embedded defaults.
NOT_INHERITED = (
    "DJANGO_SETTINGS_MODULE", "DJANGO_VAR_DIR", "DJANGO_DEBUG", "DATABASE_URL",
    "CELERY_BROKER_URL", "MEMCACHED_LOCATION", "AKISMET_API_KEY",
)  # fmt: skip


def copy_project(target):
    """The project's code, without its database, broker folder or virtualenv."""
    base = Path(settings.BASE_DIR)
    shutil.copy(base / "manage.py", target)
    for path in base.iterdir():
        if path.is_dir() and (path.name == "project" or (path / "apps.py").exists()):
            shutil.copytree(path, target / path.name, ignore=shutil.ignore_patterns("__pycache__"))


def start_stack(cwd, port):
    """The devstack process on embedded defaults, its output collected as it comes."""
    env = {k: v for k, v in os.environ.items() if k not in NOT_INHERITED}
    stack = WatchedProcess(
        [sys.executable, "-m", "project.devstack", "--port", str(port)], cwd=cwd, env=env
    )
    stack.cwd, stack.env, stack.url = cwd, env, f"http://127.0.0.1:{port}/"
    return stack


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


@pytest.fixture
def stack(tmp_path):
    copy_project(tmp_path)
    running = start_stack(tmp_path, free_port())
    yield running
    running.kill()
    for pid in processes_running_in(tmp_path):
        os.kill(pid, signal.SIGKILL)


def wait_for_http(url, timeout=60):
    deadline = time.monotonic() + timeout
    while True:
        try:
            return httpx.get(url, timeout=5)
        except httpx.TransportError:
            assert time.monotonic() < deadline, f"{url} never answered"
            time.sleep(0.2)


def test_devstack_serves_site_and_admin_and_runs_tasks(stack):
    """A fresh folder gets a database, demo entry, superuser, web, worker and beat."""
    password = stack.wait_for(r'Log in as "admin" with password: (\S+)', timeout=120).group(1)
    assert f"Admin: {stack.url}admin/" in stack.output

    home = wait_for_http(stack.url)
    assert home.status_code == 200
    assert "Hello, Celery" in home.text  # the demo entry
    assert wait_for_http(stack.url + "admin/login/").status_code == 200

    # The printed password logs in to the admin.
    with httpx.Client(base_url=stack.url, timeout=10) as browser:
        browser.get("admin/login/")
        login = browser.post(
            "admin/login/?next=/admin/",
            data={
                "username": "admin",
                "password": password,
                "csrfmiddlewaretoken": browser.cookies["csrftoken"],
                "next": "/admin/",
            },
        )
        assert login.status_code == 302 and login.headers["location"] == "/admin/"
        assert "Site administration" in browser.get("admin/").text

    # add.delay(2, 2) from a shell in that folder is run by the stack's own worker.
    code = "from project.tasks import add; print(add.delay(2, 2).get(timeout=30))"
    shell = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=stack.cwd,
        env=stack.env | {"DJANGO_SETTINGS_MODULE": "project.settings", "DJANGO_DEBUG": "1"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shell.stdout.strip().endswith("4"), shell.stdout + shell.stderr

    # The demo feed (the blog's own RSS) imports through the stack's worker.
    imported = subprocess.run(
        [sys.executable, "manage.py", "import_feeds", "--all", "--wait", "--timeout", "60"],
        cwd=stack.cwd,
        env=stack.env | {"DJANGO_SETTINGS_MODULE": "project.settings", "DJANGO_DEBUG": "1"},
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert imported.returncode == 0, imported.stdout + imported.stderr
    assert re.search(rf"{re.escape(stack.url)}blog/feed/\s+imported\s+1\b", imported.stdout), (
        imported.stdout
    )
    assert "Hello, Celery" in wait_for_http(stack.url + "feeds/").text
    assert re.search(r"worker \| .*Task project\.tasks\.add\[\S+\] succeeded", stack.output)
    stack.wait_for(r"beat \| .*beat: Starting", timeout=30)

    # Ctrl-C stops all three.
    stack.process.send_signal(signal.SIGINT)
    assert stack.process.wait(timeout=30) == 0, stack.output
    assert "Stopped." in stack.output
    assert processes_running_in(stack.cwd) == []
