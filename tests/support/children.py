"""Tests run in a child process: the import blocker the child installs, and its JSON report.

The child (``tests.support.minimal_host.run_apps``, ``tests.support.blog_alone.run``)
installs ``BlockImports`` before anything else and prints its report as the last line;
the test reads it with ``json_report``. Standard library only: the child imports this
module before Django.
"""

import json
import subprocess
import sys


class BlockImports:
    """A ``sys.meta_path`` finder that refuses the packages ``names`` and their modules, as
    if they were not installed (an ImportError), and notes each attempt, caught or not."""

    def __init__(self, *names):
        self.names = set(names)
        self.attempts = []

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.names:
            self.attempts.append(name)
            raise ImportError(f"No module named {name!r} (blocked by the test)", name=name)
        return None

    def install(self):
        sys.meta_path.insert(0, self)
        return self


def json_report(module, *args, env, cwd):
    """Run ``python -m module *args`` in ``cwd`` with only ``env``; its report (last line)."""
    child = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert child.returncode == 0, child.stdout + child.stderr
    return json.loads(child.stdout.splitlines()[-1])
