"""Ctrl-C on ``make run`` with a feed import running: no lock outlives the stack."""

import re
import signal

import pytest

from localservers.feed_server import numbered_items, rss
from localservers.services import free_port
from localservers.waiting import wait_until
from tests.support.devstack import (
    copy_project,
    kill_everything_in,
    manage,
    start_stack,
    stop_stack,
    wait_until_up,
)

# The whole stack (web, workers, beat) per test: not beside other tests (xdist).
pytestmark = pytest.mark.serial


@pytest.fixture
def folder(tmp_path):
    copy_project(tmp_path)
    yield tmp_path
    kill_everything_in(tmp_path)


def task_result(url):
    """The worker's log line of an import_feed of url that finished, with its status."""
    return rf"import_feed\[\S+\] succeeded in \S+: \{{'status': '(\w+)', 'url': '{re.escape(url)}'"


def start_import(stack, feed_server, url):
    """Subscribe and queue url from another terminal; return once the worker is fetching it."""
    # Not fetched by addfeed: the first request the server sees is the worker's.
    assert manage(stack, "addfeed", "--no-discover", url).returncode == 0
    queued = manage(stack, "import_feeds", url)
    assert queued.returncode == 0, queued.stdout + queued.stderr
    wait_until(lambda: feed_server.hits("/slow.xml") >= 1, timeout=60)


def test_ctrl_c_lets_a_running_import_finish(folder, feed_server):
    """One Ctrl-C waits for the import in progress, which completes and records its posts."""
    url = feed_server.serve("/slow.xml", rss(numbered_items(2)), delay=4)
    stack = start_stack(folder, free_port())
    wait_until_up(stack)
    start_import(stack, feed_server, url)

    assert stop_stack(stack, timeout=60) == 0, stack.tail()
    finished = re.search(task_result(url), stack.output)
    assert finished and finished.group(1) == "imported", stack.tail()
    assert stack.output.index("Waiting up to 35s") < finished.start()
    assert stack.output.rstrip().endswith("Stopped.")


def test_second_ctrl_c_stops_running_imports_and_frees_their_locks(folder, feed_server):
    """Ctrl-C twice stops a hanging import at once; after a restart the feed imports, not skips."""
    # A fetch that would hang for 30 s, far longer than anyone waits at Ctrl-C.
    (folder / ".env.local").write_text("DJANGOFEEDS_FETCH_TIMEOUT=30\n")
    url = feed_server.serve("/slow.xml", rss(numbered_items(2)), delay=60)
    stack = start_stack(folder, free_port())
    wait_until_up(stack)
    start_import(stack, feed_server, url)

    stack.process.send_signal(signal.SIGINT)
    stack.wait_for(r"Waiting up to 95s", timeout=10)  # 3 x 30 s + 5
    stack.process.send_signal(signal.SIGINT)
    assert stack.process.wait(timeout=40) == 0, stack.tail()
    assert "Stopping the worker's running tasks now." in stack.output
    assert not re.search(task_result(url), stack.output)  # it was stopped, not finished

    feed_server.routes["/slow.xml"].delay = 0
    restarted = start_stack(folder, free_port())
    try:
        wait_until_up(restarted)
        # The stopped import runs again at once: its claim is released at the start (its
        # message, if the broker kept it, then finds the claim replaced and skips).
        imported = wait_until(
            lambda: re.search(task_result(url).replace(r"(\w+)", "(imported)"), restarted.output),
            timeout=30,
        )
        assert imported and "interrupted by the last stop are due again" in restarted.output
        again = manage(restarted, "import_feeds", url, "--sync")
        assert again.returncode == 0, again.stdout + again.stderr
        assert "skipped" not in again.stdout, again.stdout
    finally:
        stop_stack(restarted)
