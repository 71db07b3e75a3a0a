"""A fresh `django-admin startproject host`, edited and driven as a developer would.

Commands run with the venv's Python in the host's folder, in an environment
cleaned of this repository's own settings (its DJANGO_*, CELERY_*, ... variables),
so the host runs on its own settings and the apps' defaults.
"""

import contextlib
import os
import re
from html import unescape
from pathlib import Path

import httpx

from localservers.processes import WatchedProcess
from localservers.services import free_port
from tests.support.host_env import log, run

# The repository's own configuration, exported by its test settings: not the host's.
FOREIGN_ENV = ("DJANGO", "CELERY_", "AKISMET_", "BLOG_", "DATABASE_URL", "MEMCACHED_", "PYTHON")
SUPERUSER = ("admin", "admin@example.com", "host-admin-password")
# Deprecation warnings as errors; Django's RemovedInDjango* warnings are subclasses.
WARNINGS_AS_ERRORS = ("-W", "error::DeprecationWarning", "-W", "error::PendingDeprecationWarning")


class HostProject:
    """``startproject host`` in ``root`` with ``venv``'s django-admin; then edits and commands."""

    def __init__(self, venv, root, *, label):
        self.venv = Path(venv)
        self.root = Path(root)
        self.label = label
        self.root.mkdir(parents=True, exist_ok=True)
        run(
            [self.venv / "bin/django-admin", "startproject", "host", self.root],
            what=self.step("startproject host"),
            env=self.env(),
        )

    def step(self, name):
        return f"{self.label}: {name}"

    def env(self, **extra):
        env = {key: value for key, value in os.environ.items() if not key.startswith(FOREIGN_ENV)}
        env.pop("VIRTUAL_ENV", None)
        env["PATH"] = f"{self.venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        return {**env, **extra}

    def edit(self, relative, old, new):
        """Replace ``old`` by ``new`` in a file startproject made; it must be there."""
        path = self.root / relative
        text = path.read_text()
        assert old in text, f"{relative} of startproject has no {old!r}:\n{text}"
        path.write_text(text.replace(old, new, 1))

    def add_settings(self, text):
        """Lines appended to host/settings.py, as a developer adds them at the end."""
        with open(self.root / "host" / "settings.py", "a") as settings:
            settings.write("\n" + text.strip() + "\n")

    def include_urls(self, prefix, module):
        """``path(prefix, include(module))`` in host/urls.py, beside the admin's."""
        self.edit(
            "host/urls.py", "from django.urls import path", "from django.urls import include, path"
        )
        self.edit(
            "host/urls.py",
            "path('admin/', admin.site.urls),",
            f"path('admin/', admin.site.urls),\n    path('{prefix}', include('{module}')),",
        )

    def write(self, relative, text):
        (self.root / relative).write_text(text.lstrip())

    def manage(self, *args, strict=False, env=None, what=None):
        """``python manage.py *args``; ``strict``: deprecation warnings are errors."""
        flags = WARNINGS_AS_ERRORS if strict else ()
        argv = [self.venv / "bin/python", *flags, "manage.py", *args]
        name = what or "manage.py " + " ".join(map(str, args)) + (" (-W error)" if strict else "")
        return run(argv, what=self.step(name), cwd=self.root, env=self.env(**(env or {})))

    def shell(self, code, what):
        """What ``manage.py shell -c code`` prints."""
        # -v 0: Django 5.2+ also prints how many models it imported for the shell.
        return self.manage("shell", "-v", "0", "-c", code, what=what).stdout.strip()

    def create_superuser(self):
        username, email, password = SUPERUSER
        self.manage(
            "createsuperuser", "--noinput", "--username", username, "--email", email,
            env={"DJANGO_SUPERUSER_PASSWORD": password},
        )  # fmt: skip

    @contextlib.contextmanager
    def server(self):
        """``manage.py runserver --noreload`` on a free port: a Visitor of its base URL."""
        port = free_port()
        argv = [
            self.venv / "bin/python",
            "manage.py",
            "runserver",
            "--noreload",
            f"127.0.0.1:{port}",
        ]
        # Unbuffered: its banner reaches the pipe while it serves.
        process = WatchedProcess(argv, cwd=self.root, env=self.env(PYTHONUNBUFFERED="1"))
        try:
            process.wait_for(r"Quit the server with", timeout=60)
            log(f"{self.label}: runserver on port {port}")
            with Visitor(f"http://127.0.0.1:{port}", process) as visitor:
                yield visitor
        finally:
            process.kill()


class Visitor:
    """A browser-like HTTP client: cookies, CSRF tokens from forms, no automatic redirects."""

    def __init__(self, base_url, server):
        self.server = server
        self.client = httpx.Client(base_url=base_url, follow_redirects=False, timeout=30)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.client.close()

    def get(self, path, status=200):
        response = self.client.get(path)
        self.expect(response, status, f"GET {path}")
        return response

    def post(self, path, data, status):
        """POST ``data`` to ``path`` with the CSRF token of the page last read there."""
        data = {"csrfmiddlewaretoken": self.client.cookies.get("csrftoken", ""), **data}
        response = self.client.post(path, data=data)
        self.expect(response, status, f"POST {path}")
        return response

    def expect(self, response, status, what):
        assert response.status_code == status, (
            f"{what}: {response.status_code}, not {status}\n{page_summary(response.text)}\n"
            f"--- runserver:\n{self.server.tail(25)}"
        )

    def log_in_to_admin(self):
        """The admin's login form, posted with the superuser's credentials."""
        username, _, password = SUPERUSER
        self.get("/admin/login/?next=/admin/")
        data = {"username": username, "password": password, "next": "/admin/"}
        response = self.post("/admin/login/?next=/admin/", data, status=302)
        assert response.headers["location"] == "/admin/", response.headers["location"]


def page_summary(html):
    """The exception of Django's debug page (its title and message), else the page's start."""
    title = re.search(r"<title>(.*?)</title>", html, flags=re.DOTALL)
    value = re.search(r'<pre class="exception_value">(.*?)</pre>', html, flags=re.DOTALL)
    if title and value:
        return unescape(" ".join(f"{title[1].split()[0]}: {value[1]}".split()))
    return html[:3000]


def post_form_action(html, page):
    """The path the page's POST form posts to (its own when the form says none), no #fragment."""
    for tag in re.findall(r"<form\b[^>]*>", html, flags=re.IGNORECASE):
        if re.search(r'method\s*=\s*"post"', tag, flags=re.IGNORECASE):
            action = re.search(r'action\s*=\s*"([^"]*)"', tag)
            return (action[1] if action and action[1] else page).split("#")[0]
    raise AssertionError(f"no POST form on {page}:\n{html[:3000]}")
