"""``manage.py import_feeds [URL...] [--all|--due] [--sync] [--wait]``: import feeds now.

With neither URLs nor ``--all``, the due feeds are imported (``--due``).
"""

import time

from django.core.management.base import BaseCommand, CommandError

from djangofeeds.dispatch import IMPORT_FEED, enqueue_imports
from djangofeeds.locks import LockUnavailable
from djangofeeds.models import Feed, Outcome
from djangofeeds.runner import run_import
from djangofeeds.runs import failed_reply, reply


class Command(BaseCommand):
    help = (
        "Import feeds: queue them for the workers (default), wait for the workers (--wait), "
        "or import in this process under the same locks (--sync)."
    )

    def add_arguments(self, parser):
        parser.add_argument("urls", nargs="*", metavar="URL")
        which = parser.add_mutually_exclusive_group()
        which.add_argument("--all", action="store_true", help="every active feed")
        which.add_argument(
            "--due",
            action="store_true",
            help="active feeds whose next check time has come (the default without URLs)",
        )
        how = parser.add_mutually_exclusive_group()
        how.add_argument("--sync", action="store_true", help="import here, one feed after another")
        how.add_argument(
            "--wait", action="store_true", help="queue, then wait for the workers to finish"
        )
        parser.add_argument(
            "--timeout", type=float, default=600, help="seconds --wait waits (default 600)"
        )

    def handle(self, **options):
        urls = self.select(options["urls"], options)
        self.verbosity = options["verbosity"]
        if options["sync"]:
            results = self.import_here(urls)
        elif options["wait"]:
            results = self.import_and_wait(urls, options["timeout"])
        else:
            queued, waiting = self.enqueue(urls)
            self.stdout.write(
                self.style.SUCCESS(f"Queued {len(queued)} imports ({len(waiting)} already queued).")
            )
            return
        self.print_table(results)
        failed = sum(1 for result in results if result["status"] == Outcome.FAILED)
        if failed:
            raise CommandError(f"{failed} of {len(results)} imports failed")

    def select(self, urls, options):
        if urls and (options["all"] or options["due"]):
            raise CommandError("give feed URLs or --all/--due, not both")
        if options["all"]:
            urls = Feed.objects.active().values_list("url", flat=True)
        elif options["due"] or not urls:
            urls = Feed.objects.due().values_list("url", flat=True)
        return list(dict.fromkeys(urls))  # once each, in order

    def import_here(self, urls):
        bar = ProgressBar(self.stdout, len(urls), enabled=self.verbosity > 0)
        results = []
        for url in urls:
            try:
                result = reply(run_import(url, task_name=IMPORT_FEED, worker="manage.py"))
            except LockUnavailable as exc:
                result = failed_reply(url, str(exc))
            results.append(result)
            bar.step(f"{url} {result['status']}")
        return results

    def enqueue(self, urls):
        try:
            return enqueue_imports(urls)
        except Exception as exc:  # the broker or the cache is down
            raise CommandError(f"could not queue the imports: {type(exc).__name__}: {exc}") from exc

    def import_and_wait(self, urls, timeout):
        queued, waiting = self.enqueue(urls)
        if waiting:
            self.stdout.write(f"{len(waiting)} feeds were already queued; not waiting for them.")
        bar = ProgressBar(self.stdout, len(queued), enabled=self.verbosity > 0)
        pending, results = dict(queued), {}
        states = {}  # the last state seen of each import: a retry is told once
        deadline = time.monotonic() + timeout
        while pending:
            for url, async_result in list(pending.items()):
                if async_result.ready():
                    del pending[url]
                    results[url] = self.outcome(url, async_result)
                    bar.step(f"{url} {results[url]['status']}")
                    continue
                state = async_result.state
                if state == "RETRY" and states.get(url) != "RETRY":
                    bar.note(f"{url} will be retried: {async_result.info}")
                states[url] = state
            if pending and time.monotonic() > deadline:
                still = "".join(f"\n  {url}" for url in pending)
                raise CommandError(
                    f"{len(pending)} imports still running after {timeout:g}s:{still}"
                )
            time.sleep(0.2)
        return [results[url] for url, _ in queued]

    def outcome(self, url, async_result):
        if async_result.successful():
            return async_result.result
        error = f"{type(async_result.result).__name__}: {async_result.result}"
        return failed_reply(url, error)

    def print_table(self, results):
        if self.verbosity == 0 or not results:
            return
        width = min(max(len(result["url"]) for result in results), 70)
        self.stdout.write(f"{'URL':<{width}}  {'status':<12} {'new':>5} {'changed':>7}  error")
        for result in results:
            style = self.style.ERROR if result["status"] == Outcome.FAILED else (lambda text: text)
            line = (
                f"{result['url'][:width]:<{width}}  {result['status']:<12} "
                f"{result.get('created', 0):>5} {result.get('updated', 0):>7}  "
                f"{result.get('error', '')}"
            )
            self.stdout.write(style(line.rstrip()))


class ProgressBar:
    """``[#####-----] 5/10 label``: redrawn in place on a terminal, one line each in a log."""

    def __init__(self, stdout, total, *, enabled=True, width=20):
        self.stdout, self.total, self.enabled, self.width = stdout, total, enabled, width
        self.done, self.label = 0, ""
        self.in_place = enabled and stdout.isatty()

    def step(self, label=""):
        self.done += 1
        self.label = label
        self.draw()

    def note(self, text):
        """A line of its own (a retry, say), above the bar on a terminal."""
        if not self.enabled:
            return
        if self.in_place:
            self.stdout.write(f"\r\x1b[K{text}")
            if self.done < self.total:
                self.draw()
        else:
            self.stdout.write(text)

    def draw(self):
        if not self.enabled:
            return
        filled = self.width * self.done // max(self.total, 1)
        text = (
            f"[{'#' * filled}{'-' * (self.width - filled)}] {self.done}/{self.total} {self.label}"
        )
        if self.in_place:
            end = "\n" if self.done == self.total else ""
            self.stdout.write(f"\r\x1b[K{text[:120]}", ending=end)
        else:
            self.stdout.write(text)
