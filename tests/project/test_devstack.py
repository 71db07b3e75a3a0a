"""``make run``'s entry point, started on embedded defaults in a fresh folder."""

import re
import signal
import subprocess
from importlib.util import find_spec

import httpx
import pytest

from localservers.services import free_port
from tests.support.devstack import (
    copy_project,
    kill_everything_in,
    processes_running_in,
    start_stack,
    wait_for_http,
)

# The whole stack (web, workers, beat) per test: not beside other tests (xdist).
pytestmark = pytest.mark.serial


@pytest.fixture
def stack(tmp_path):
    copy_project(tmp_path)
    running = start_stack(tmp_path, free_port())
    yield running
    running.kill()
    kill_everything_in(tmp_path)


def test_devstack_serves_site_and_admin_and_runs_tasks(stack):
    """A fresh folder gets a database, beat entries, demo entry, superuser, web, worker
    and beat; beat sends the refresh tick."""
    password = stack.wait_for(r'Log in as "admin" with password: (\S+)', timeout=180).group(1)
    assert f"Admin: {stack.url}admin/" in stack.output
    # Printed after the children's banners, not scrolled away by them.
    banner_at = stack.output.index('Log in as "admin"')
    for line in (r"worker \| .* ready\.", r"beat \| .*beat: Starting", r"web \| Quit the server"):
        assert re.search(line, stack.output[:banner_at]), line
    # And kept, readable by its owner only.
    kept = stack.cwd / "var" / "admin-password"
    assert kept.read_text().strip() == password
    assert kept.stat().st_mode & 0o777 == 0o600
    assert "(kept in var/admin-password)" in stack.output
    # The apps' beat entries were created (setup_schedules; without django-celery-beat,
    # on Django 6.1, beat reads them from CELERY_BEAT_SCHEDULE), and beat sends the tick.
    created = "Beat entries: 6 created, 0 kept as they were." in stack.output[:banner_at]
    assert created == (find_spec("django_celery_beat") is not None)
    stack.wait_for(
        r"beat \| .*Sending due task djangofeeds: import due feeds "
        r"\(djangofeeds\.tasks\.refresh_feeds\)",
        timeout=30,
    )

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
        [".venv/bin/python", "manage.py", "shell", "-c", code],
        cwd=stack.cwd,
        env=stack.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shell.stdout.strip().endswith("4"), shell.stdout + shell.stderr

    # The demo feed (the blog's own RSS) imports through the stack's worker: beat's
    # first ticks (every 5 s) may have imported it already, then this one finds it unchanged.
    imported = subprocess.run(
        [".venv/bin/python", "manage.py", "import_feeds", "--all", "--wait", "--timeout", "60"],
        cwd=stack.cwd,
        env=stack.env,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert imported.returncode == 0, imported.stdout + imported.stderr
    assert re.search(
        rf"{re.escape(stack.url)}blog/feed/\s+(imported\s+1|not_modified\s+0)\b", imported.stdout
    ), imported.stdout
    assert "Hello, Celery" in wait_for_http(stack.url + "feeds/").text
    assert re.search(r"worker \| .*Task project\.tasks\.add\[\S+\] succeeded", stack.output)
    stack.wait_for(r"beat \| .*beat: Starting", timeout=30)

    # Ctrl-C stops all three.
    stack.process.send_signal(signal.SIGINT)
    assert stack.process.wait(timeout=30) == 0, stack.output
    assert "Stopped." in stack.output
    assert processes_running_in(stack.cwd) == []
