"""Helpers of the browser tests: logging in to the admin, reloading until the worker is done."""

import time

import django

PASSWORD = "browser-test-password"
# The changelist's button that runs the chosen action: "Go" until Django 6.1 named it "Run".
ADMIN_ACTION_BUTTON = "Run" if django.VERSION >= (6, 1) else "Go"


def log_in(page, user, password=PASSWORD):
    """Log in through the admin's own login form."""
    page.goto("/admin/login/?next=/admin/")
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("heading", name="Site administration").wait_for()


def reload_until(page, condition, timeout=30, message="condition"):
    """Reload the page until condition(page) is true: the worker runs on its own time."""
    deadline = time.monotonic() + timeout
    while not condition(page):
        if time.monotonic() > deadline:
            raise AssertionError(f"{message}: not seen on {page.url} after {timeout}s")
        time.sleep(0.25)
        page.reload()
