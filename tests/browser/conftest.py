"""Browser fixtures: Debian's chromium driven by Playwright against the live server and a worker.

The browser is the system's ``/usr/bin/chromium`` (``apt-get install chromium``);
Playwright never downloads one of its own. The pages are served by pytest-django's
``live_server`` (a thread of this process, on the test database), comments are
checked and feeds imported by a real worker subprocess on the same database and
broker, Akismet is the local stand-in, and feeds come from the local feed server.
"""

import os
import re
from pathlib import Path

import pytest

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

from localservers.workers import WorkerProcess
from tests.blog.helpers import worker_env
from tests.browser.helpers import PASSWORD

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",  # CI runs as root in a container, where chromium's sandbox cannot start
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-dev-shm-usage",  # containers have a small /dev/shm
]
ARTIFACTS = Path(__file__).parent / "artifacts"
# Long enough for a slow CI machine, short enough that a broken page fails fast.
TIMEOUT_MS = 10_000
REPORTS = pytest.StashKey[dict]()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    """Keep each phase's report on the test, so the page fixture knows whether the test failed."""
    report = yield
    item.stash.setdefault(REPORTS, {})[report.when] = report
    return report


@pytest.fixture(scope="package")
def browser():
    """One headless chromium for the package; fails (never skips) when it is not installed."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} not found: the browser tests need it (apt-get install chromium)")
    # Playwright's sync API keeps an asyncio loop running in this thread, and
    # Django refuses ORM calls from a thread with a running loop. The tests
    # call the ORM only between browser steps, never concurrently with them.
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
            yield chromium
            chromium.close()


@pytest.fixture
def page(request, browser, live_server):
    """A fresh browser context on the live server; its last page is saved when the test fails."""
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1100, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    yield page
    reports = request.node.stash.get(REPORTS, {})
    if any(report.failed for report in reports.values()):
        ARTIFACTS.mkdir(exist_ok=True)
        name = re.sub(r"[^\w.-]+", "_", request.node.name)
        try:
            page.screenshot(path=ARTIFACTS / f"{name}.png", full_page=True)
        except PlaywrightError as exc:  # a crashed page must not hide the test's own failure
            print(f"no screenshot of {request.node.name}: {exc}")
    context.close()


@pytest.fixture(scope="package")
def worker(akismet_server, django_db_setup, django_db_blocker):
    """A worker on every queue (spam checks, feed imports) that asks the Akismet stand-in."""
    with django_db_blocker.unblock():
        process = WorkerProcess(env=worker_env(akismet_server)).start()
    yield process
    assert process.stop() == 0, process.log_tail()


@pytest.fixture(autouse=True)
def every_page_from_one_ip(no_rate_limit):
    """Every page comes from 127.0.0.1: the per-IP comment limit is for other tests."""


@pytest.fixture
def operator(django_user_model):
    """A superuser who logs in through the admin's form (tests.browser.helpers.log_in)."""
    return django_user_model.objects.create_superuser("operator", "ops@example.com", PASSWORD)
