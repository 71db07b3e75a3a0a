"""An import refused because the lock cache is unreachable: its log line and its run.

No lock, no import: nothing was fetched, and the task retries. One outage is
one failed ``ImportRun`` per feed, not one per retry: while the feed's newest
run is such a refusal, the outage goes on, and each retry updates that run (its
attempts, its end, the task now trying) instead of adding one that pushes the
feed's real history off the admin's page.
"""

from django.db.models import F
from django.utils import timezone

from djangofeeds.importing.records import BY_HAND, ImportResult, record_attempt
from djangofeeds.models import ImportRun, Outcome


def refusal(url, exc, *, giving_up):
    """The log line of an import refused because the lock cache is unreachable."""
    how = "giving up" if giving_up else "will retry"
    return f"Feed {url}: not imported, the lock cache is unreachable ({exc}); {how}"


REFUSAL = "not imported: the lock cache is unreachable"


def refused(url, exc, *, origin=BY_HAND):
    """Record an import refused: a run, or one more attempt on its outage's run.

    The run then carries the retrying task's id: ``import_feeds --wait`` finds it.
    """
    error = f"{REFUSAL} ({exc})"
    outage = ongoing_refusal(url)
    if outage is None:
        return record_attempt(url, Outcome.FAILED, error=error, origin=origin)
    ImportRun.objects.filter(pk=outage.pk).update(
        attempts=F("attempts") + 1,
        finished_at=timezone.now(),
        error=error,
        task_id=origin.task_id or "",
        worker=origin.worker or "",
        refresh_run_id=origin.refresh_run,
    )
    outage.refresh_from_db()
    return ImportResult(feed=outage.feed, run=outage)


def ongoing_refusal(url):
    """The feed's newest run if it is a refusal (the lock cache's outage goes on), else None."""
    newest = (
        ImportRun.objects.filter(feed__url=url)
        .select_related("feed")
        .order_by("-started_at", "-pk")
        .first()
    )
    if newest and newest.outcome == Outcome.FAILED and newest.error.startswith(REFUSAL):
        return newest
    return None
