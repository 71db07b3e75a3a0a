"""Every command the README and docs/ show runs as written, after ``make run``, in a fresh shell.

README.md and docs/*.md are parsed, so a command added to them is run here too:
each ``.venv/bin/...`` line of their shell blocks and each such inline command,
typed into ``bash`` in a copy of the checkout where the stack runs, with nothing
exported (PATH and HOME only). Two things differ from a developer's machine,
both substitutions of an address: the stack listens on a free port instead of
8000, and the docs' example feed on the internet is served by a local feed
server.
"""

import re
import signal
import time
from pathlib import Path

import pytest
from django.conf import settings

from localservers.feed_server import numbered_items, rss
from localservers.processes import WatchedProcess
from localservers.services import free_port
from tests.support.devstack import (
    copy_project,
    kill_everything_in,
    manage,
    start_stack,
    type_in_shell,
    wait_until_up,
)

# A whole stack per test that runs the commands: not beside other tests (xdist).
pytestmark = pytest.mark.serial

BASE = Path(settings.BASE_DIR)
# The README first, then the topic pages, in a stable order (commands run in it).
DOCUMENTS = [BASE / "README.md", *sorted((BASE / "docs").glob("*.md"))]
SITE = "http://127.0.0.1:8000/"
EXAMPLE_FEED = "https://www.djangoproject.com/rss/weblog/"
FENCE = re.compile(
    r"^ *```(\w*)\n(.*?)^ *```", re.MULTILINE | re.DOTALL
)  # list items indent theirs
# What a developer types in the checkout: the virtualenv's programs, maybe after VAR=value.
COMMAND = re.compile(r"^(?:[A-Z_]+=\S+ )*(?:\.venv/bin/\S+|cat var/)")
# Shown in the docs but not run by this test, and why.
NOT_RUN_HERE = {
    "-m localservers.akismet_server": "a test tool on a fixed port; the tests run it on free ones",
    "-m bench.": "benchmarks need PostgreSQL and minutes (make bench)",
}
# Long-running programs: the line each prints once up, and the signal that stops
# it cleanly (a worker's warm shutdown is SIGTERM; Ctrl-C makes it exit 1).
LONG_RUNNING = {
    "celery -A project worker": (r"\bready\.", signal.SIGTERM),
    "celery -A project beat": (r"beat: Starting", signal.SIGINT),
}
PASSWORD = "a-new-Password-for-the-readme-test"
# What a developer types at the prompts of an interactive command.
TYPED = {"changepassword": f"{PASSWORD}\n{PASSWORD}\n"}


def documented_commands():
    """The commands of README.md and docs/*.md, file by file in reading order."""
    return [command for path in DOCUMENTS for command in readme_commands(path.read_text())]


def readme_commands(text):
    """One document's commands in reading order: shell block lines, then inline ones."""
    commands = []
    for language, body in FENCE.findall(text):
        if language in ("", "sh"):
            commands += [line.strip() for line in body.splitlines() if COMMAND.match(line.strip())]
    outside_blocks = FENCE.sub("", text)
    for span in re.findall(r"`([^`]+)`", outside_blocks):
        span = " ".join(span.split())
        if COMMAND.match(span):
            commands.append(span)
    return commands


def shell_session():
    """The docs' ``>>>`` session: the one python block that is typed into a shell."""
    sessions = [
        body
        for path in DOCUMENTS
        for language, body in FENCE.findall(path.read_text())
        if language == "python" and body.lstrip().startswith(">>>")
    ]
    assert len(sessions) == 1, f"expected one >>> session in the docs, found {len(sessions)}"
    return sessions[0]


def doctest_of(session):
    """Code for ``manage.py shell``'s standard input: run the session, exit 1 on a mismatch."""
    return (
        "import doctest, sys\n"
        f"session = {session!r}\n"
        "test = doctest.DocTestParser().get_doctest(session, {}, 'docs', 'docs', 0)\n"
        "flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE\n"
        "runner = doctest.DocTestRunner(optionflags=flags)\n"
        "runner.run(test)\n"
        "sys.exit(1 if runner.failures or not runner.tries else 0)\n"
    )


@pytest.fixture
def running_stack(tmp_path):
    copy_project(tmp_path)
    stack = start_stack(tmp_path, free_port())
    wait_until_up(stack)
    yield stack
    stack.kill()
    kill_everything_in(tmp_path)


def test_readme_lists_each_command_of_the_project():
    """The parse finds the docs' commands, one at least for every management command."""
    assert BASE / "docs" / "feeds.md" in DOCUMENTS  # the topic pages are read, not only the README
    commands = " ".join(documented_commands())
    for name in (
        "addfeed",
        "import_feeds",
        "opml_import",
        "opml_export",
        "recheck_comments",
        "changepassword",
        "shell",
        "check --deploy",
    ):
        assert f"manage.py {name}" in commands, name
    assert "celery -A project worker" in commands
    for part in NOT_RUN_HERE:  # no stale exception
        assert part in commands, part


def test_readme_commands_work_as_written_after_make_run(running_stack, feed_server):
    """After make run, each command of the docs exits 0 from another shell with nothing exported."""
    text = "".join(path.read_text() for path in DOCUMENTS)
    assert SITE in text and EXAMPLE_FEED in text  # the substitutions below are not vacuous
    example_feed = feed_server.serve("/rss/weblog/", rss(numbered_items(3), title="Weblog"))
    commands = documented_commands()
    ran = []
    for written in commands:
        if any(part in written for part in NOT_RUN_HERE):
            continue
        command = written.replace(SITE, running_stack.url).replace(EXAMPLE_FEED, example_feed)
        long_running = next(
            (ready for part, ready in LONG_RUNNING.items() if part in command), None
        )
        if long_running:
            check_long_running(command, *long_running, stack=running_stack)
        elif re.search(r"manage\.py shell$", command):
            typed = doctest_of(shell_session())
            result = type_in_shell(running_stack, command, stdin=typed)
            assert result.returncode == 0, f"{written}\n{result.stdout}{result.stderr}"
        else:
            stdin = next((typed for name, typed in TYPED.items() if name in command), "")
            result = type_in_shell(running_stack, command, stdin=stdin)
            assert result.returncode == 0, f"{written}\n{result.stdout}{result.stderr}"
            if "opml_import" in command:
                # The dev feeds (loopback addresses) come back as known, not "invalid".
                assert not re.search(r"\b[1-9]\d* invalid", result.stdout), result.stdout
                assert "invalid:" not in result.stderr, result.stderr
        ran.append(written)
    assert len(ran) >= 12, ran
    assert feed_server.hits("/rss/weblog/") >= 1  # addfeed --import fetched it
    # The password set by changepassword is what the stack's admin now takes.
    check = (
        "from django.contrib.auth.models import User; "
        f"print(User.objects.get(username='admin').check_password({PASSWORD!r}))"
    )
    result = manage(running_stack, "shell", "-c", check)
    assert result.stdout.strip().endswith("True"), result.stdout + result.stderr


def check_long_running(command, ready, stop_signal, *, stack):
    """A worker or beat started as written comes up, and stops cleanly (exit 0)."""
    process = WatchedProcess(["bash", "-c", f"exec {command}"], cwd=stack.cwd, env=stack.env)
    try:
        process.wait_for(ready, timeout=120)
        time.sleep(3)  # beat sets its scheduler up after its "Starting" line: let it settle
        process.process.send_signal(stop_signal)
        assert process.process.wait(timeout=60) == 0, process.tail()
    finally:
        process.kill()
