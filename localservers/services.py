"""Private memcached and Redis servers for a test run or a benchmark, on free loopback ports."""

import os
import shutil
import socket
import subprocess
import time


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(host, port, timeout=10.0):
    """Block until something accepts connections on host:port."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"nothing listens on {host}:{port} after {timeout}s") from None
            time.sleep(0.05)


def require_program(name, package):
    """The path of a server program, or a clear failure naming the package to install."""
    path = shutil.which(name)
    if path is None:
        raise RuntimeError(
            f"{name} is not installed: the tests run a real {name}. "
            f"Install it with 'apt-get install {package}' (bash .ci/run does this)."
        )
    return path


class ServerProcess:
    """One server process that a test can stop and start again on the same port."""

    program = ""
    package = ""

    def __init__(self):
        self.host = "127.0.0.1"
        self.port = free_port()
        self.process = None

    def argv(self):
        raise NotImplementedError

    def start(self):
        self.process = subprocess.Popen(
            self.argv(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        wait_for_port(self.host, self.port)
        return self

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    @property
    def running(self):
        return self.process is not None and self.process.poll() is None


class Memcached(ServerProcess):
    program, package = "memcached", "memcached"

    @property
    def location(self):
        return f"{self.host}:{self.port}"

    def argv(self):
        argv = [require_program(self.program, self.package)]
        argv += ["-l", self.host, "-p", str(self.port), "-U", "0", "-m", "64", "-M"]
        if os.geteuid() == 0:
            argv += ["-u", "root"]  # memcached refuses to run as root unless told
        return argv


class Redis(ServerProcess):
    program, package = "redis-server", "redis-server"

    @property
    def url(self):
        return f"redis://{self.host}:{self.port}/0"

    def argv(self):
        return [
            require_program(self.program, self.package),
            "--bind",
            self.host,
            "--port",
            str(self.port),
            "--save",
            "",
            "--appendonly",
            "no",
            "--daemonize",
            "no",
        ]
