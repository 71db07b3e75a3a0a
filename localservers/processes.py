"""A subprocess whose output the caller reads as it comes, and can wait on."""

import contextlib
import os
import re
import signal
import subprocess
import threading
import time


class WatchedProcess:
    """Runs argv in its own session (so its children can be killed with it) and collects output."""

    def __init__(self, argv, *, cwd, env):
        self.process = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )
        self.lines = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in iter(self.process.stdout.readline, ""):
            self.lines.append(line)

    @property
    def output(self):
        return "".join(self.lines)

    def tail(self, count=40):
        return "".join(self.lines[-count:]) or "(no output)"

    def wait_for(self, pattern, timeout=60):
        """The first match of pattern in the output; fails if the process exits or time runs out."""
        deadline = time.monotonic() + timeout
        while not (match := re.search(pattern, self.output)):
            if self.process.poll() is not None:
                raise RuntimeError(f"exited with {self.process.returncode}:\n{self.tail()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"no {pattern!r} after {timeout}s:\n{self.tail()}")
            time.sleep(0.1)
        return match

    def kill(self):
        """SIGKILL the process and everything in its group, as a crash would."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
