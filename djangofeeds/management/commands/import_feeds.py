"""``manage.py import_feeds [URL...] [--all|--due] [--sync] [--wait]``: import feeds now.

With neither URLs nor ``--all``, the due feeds are imported (``--due``). ``--wait``
follows each import through Celery's result backend, or, in a host without one,
through the import runs the app records itself (``ImportRun.task_id``).
"""

import time

from celery import current_app
from celery.backends.base import DisabledBackend
from celery.result import EagerResult
from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from djangofeeds.importing.dispatch import IMPORT_FEED, enqueue_imports
from djangofeeds.importing.records import ImportOrigin, failed_reply, reply
from djangofeeds.importing.runner import run_import
from djangofeeds.locking.locks import LockUnavailable
from djangofeeds.models import Feed, ImportRun, Outcome

ORIGIN = ImportOrigin(worker="manage.py")  # on the runs of the imports --sync runs here


class Command(BaseCommand):
    # From code only (``addfeed --import``): ``{url: importer.EarlierFetch}``, the
    # fetches discovery made already, which the imports here use instead of fetching.
    stealth_options = ("earlier_fetches",)

    @property
    def help(self):
        # At call time: argparse cannot take a lazy string for the command's description.
        return _(
            "Import feeds: queue them for the workers (default), wait for the workers (--wait), "
            "or import in this process under the same locks (--sync)."
        )

    def add_arguments(self, parser):
        parser.add_argument("urls", nargs="*", metavar="URL")
        which = parser.add_mutually_exclusive_group()
        which.add_argument("--all", action="store_true", help=gettext_lazy("every active feed"))
        which.add_argument(
            "--due",
            action="store_true",
            help=gettext_lazy(
                "active feeds whose next check time has come (the default without URLs)"
            ),
        )
        how = parser.add_mutually_exclusive_group()
        how.add_argument(
            "--sync", action="store_true", help=gettext_lazy("import here, one feed after another")
        )
        how.add_argument(
            "--wait",
            action="store_true",
            help=gettext_lazy("queue, then wait for the workers to finish"),
        )
        parser.add_argument(
            "--timeout",
            type=float,
            default=600,
            help=gettext_lazy("seconds --wait waits (default 600)"),
        )

    def handle(self, **options):
        urls = self.select(options["urls"], options)
        self.verbosity = options["verbosity"]
        if options["sync"]:
            results = self.import_here(urls, options.get("earlier_fetches") or {})
        elif options["wait"]:
            results = self.import_and_wait(urls, options["timeout"])
        else:
            queued, waiting = self.enqueue(urls)
            self.stdout.write(self.style.SUCCESS(sent_message(queued, waiting)))
            return
        self.print_table(results)
        failed = sum(1 for result in results if result["status"] == Outcome.FAILED)
        if failed:
            raise CommandError(
                ngettext(
                    "%(failed)d of %(total)d import failed",
                    "%(failed)d of %(total)d imports failed",
                    len(results),
                )
                % {"failed": failed, "total": len(results)}
            )

    def select(self, urls, options):
        if urls and (options["all"] or options["due"]):
            raise CommandError(_("give feed URLs or --all/--due, not both"))
        if options["all"]:
            urls = Feed.objects.active().values_list("url", flat=True)
        elif options["due"] or not urls:
            urls = Feed.objects.due().values_list("url", flat=True)
        return list(dict.fromkeys(urls))  # once each, in order

    def import_here(self, urls, earlier_fetches):
        bar = ProgressBar(self.stdout, len(urls), enabled=self.verbosity > 0)
        results = []
        for url in urls:
            options = {"task_name": IMPORT_FEED, "origin": ORIGIN}
            try:
                result = reply(run_import(url, prefetch=earlier_fetches.get(url), **options))
            except LockUnavailable as exc:
                result = failed_reply(url, str(exc))
            results.append(result)
            bar.step(f"{url} {result['status']}")
        return results

    def enqueue(self, urls):
        try:
            return enqueue_imports(urls)
        except Exception as exc:  # the broker or the cache is down
            error = f"{type(exc).__name__}: {exc}"
            raise CommandError(_("could not queue the imports: %s") % error) from exc

    def import_and_wait(self, urls, timeout):
        queued, waiting = self.enqueue(urls)
        if waiting:
            self.stdout.write(
                ngettext(
                    "%d feed was already queued; not waiting for it.",
                    "%d feeds were already queued; not waiting for them.",
                    len(waiting),
                )
                % len(waiting)
            )
        watch = TaskResults() if results_are_kept(queued) else ImportRuns(queued)
        bar = ProgressBar(self.stdout, len(queued), enabled=self.verbosity > 0)
        pending, results = dict(queued), {}
        told = {}  # the retry each import is in, told once
        deadline = time.monotonic() + timeout
        while pending:
            watch.refresh(pending)
            for url, async_result in list(pending.items()):
                result, retry = watch.outcome(url, async_result)
                if result is not None:
                    del pending[url]
                    results[url] = result
                    bar.step(f"{url} {result['status']}")
                    continue
                if retry is not None and told.get(url) != retry:
                    bar.note(
                        _("%(url)s will be retried: %(reason)s") % {"url": url, "reason": retry}
                    )
                told[url] = retry
            if pending and time.monotonic() > deadline:
                still = "".join(f"\n  {url}" for url in pending)
                raise CommandError(
                    ngettext(
                        "%(count)d import still running after %(timeout)ss:",
                        "%(count)d imports still running after %(timeout)ss:",
                        len(pending),
                    )
                    % {"count": len(pending), "timeout": f"{timeout:g}"}
                    + still
                )
            time.sleep(0.2)
        return [results[url] for url, _result in queued]

    def print_table(self, results):
        if self.verbosity == 0 or not results:
            return
        width = min(max(len(result["url"]) for result in results), 70)
        url, status, new, changed = _("URL"), _("status"), _("new"), _("changed")
        error = _("error")
        self.stdout.write(f"{url:<{width}}  {status:<12} {new:>5} {changed:>7}  {error}")
        for result in results:
            style = self.style.ERROR if result["status"] == Outcome.FAILED else (lambda text: text)
            line = (
                f"{result['url'][:width]:<{width}}  {result['status']:<12} "
                f"{result.get('created', 0):>5} {result.get('updated', 0):>7}  "
                f"{result.get('error', '')}"
            )
            self.stdout.write(style(line.rstrip()))


def sent_message(queued, waiting):
    """What the command says once the imports are sent: true in eager mode too."""
    count = len(queued)
    if queued and ran_here(queued):
        text = ngettext(
            "Imported %d feed in this process (CELERY_TASK_ALWAYS_EAGER)",
            "Imported %d feeds in this process (CELERY_TASK_ALWAYS_EAGER)",
            count,
        )
    else:
        text = ngettext("Queued %d import", "Queued %d imports", count)
    text %= count
    if waiting:
        already = ngettext("%d was already queued", "%d were already queued", len(waiting))
        text = f"{text} ({already % len(waiting)})"
    return f"{text}."


def ran_here(queued):
    """Whether each import ran in this process as it was sent (CELERY_TASK_ALWAYS_EAGER)."""
    return all(isinstance(result, EagerResult) for _url, result in queued)


def results_are_kept(queued):
    """Whether Celery's result backend can tell how each import ended."""
    return ran_here(queued) or not isinstance(current_app.backend, DisabledBackend)


class TaskResults:
    """Each import's end as Celery's result backend has it: its return value."""

    def refresh(self, pending):
        pass  # each AsyncResult asks the backend itself

    def outcome(self, url, async_result):
        """``(reply or None, retry reason or None)``."""
        if async_result.ready():
            if async_result.successful():
                return async_result.result, None
            error = f"{type(async_result.result).__name__}: {async_result.result}"
            return failed_reply(url, error), None
        if async_result.state == "RETRY":
            return None, str(async_result.info)
        return None, None


class ImportRuns:
    """Each import's end as the app records it, for a host without a result backend.

    Every attempt of ``import_feed`` writes an ``ImportRun`` under its task id;
    its retries while the lock cache is down update one run (``refusals.refused``),
    which then carries the retrying task's id. A failed attempt whose feed is
    still claimed will be retried; any other run is the import's last.
    """

    def __init__(self, queued):
        urls = [url for url, _result in queued]
        self.feed_pks = dict(Feed.objects.filter(url__in=urls).values_list("url", "pk"))
        self.runs, self.claimed = {}, set()

    def refresh(self, pending):
        ids = [result.id for result in pending.values()]
        self.runs = {}
        for run in ImportRun.objects.filter(task_id__in=ids).order_by("started_at", "pk"):
            self.runs[run.task_id] = run  # the newest attempt of each task
        pks = [self.feed_pks[url] for url in pending if url in self.feed_pks]
        self.claimed = set(
            Feed.objects.filter(pk__in=pks, claimed_at__isnull=False).values_list("pk", flat=True)
        )

    def outcome(self, url, async_result):
        run = self.runs.get(async_result.id)
        if run is None:
            return None, None
        if run.outcome == Outcome.FAILED and self.feed_pks.get(url) in self.claimed:
            return None, run.error
        reply = {"status": run.outcome, "url": url, "created": run.created, "updated": run.updated}
        if run.error:
            reply["error"] = run.error
        return reply, None


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
