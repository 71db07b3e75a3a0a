"""The record of every import attempt, and of every refresh round that queued them."""

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext, ngettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from djangofeeds.models.feeds import Feed, Outcome


class ImportRun(models.Model):
    feed = models.ForeignKey(
        Feed, on_delete=models.CASCADE, related_name="import_runs", verbose_name=_("feed")
    )
    # The refresh round that queued this import (none for one a person started).
    refresh_run = models.ForeignKey(
        "RefreshRun",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="import_runs",
        verbose_name=_("refresh round"),
    )
    task_id = models.CharField(_("task id"), max_length=255, blank=True)
    worker = models.CharField(_("worker"), max_length=255, blank=True)
    started_at = models.DateTimeField(_("started at"), default=timezone.now)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    outcome = models.CharField(_("outcome"), max_length=20, choices=Outcome.choices)
    http_status = models.PositiveSmallIntegerField(_("HTTP status"), null=True, blank=True)
    created = models.PositiveIntegerField(pgettext_lazy("number of posts", "created"), default=0)
    updated = models.PositiveIntegerField(pgettext_lazy("number of posts", "updated"), default=0)
    error = models.TextField(_("error"), blank=True)
    warning = models.TextField(
        _("warning"), blank=True, help_text=_("Parser warnings on a feed that still imported.")
    )
    bytes_received = models.PositiveIntegerField(_("bytes received"), default=0)
    fetch_ms = models.PositiveIntegerField(_("fetch (ms)"), default=0)
    parse_ms = models.PositiveIntegerField(_("parse (ms)"), default=0)
    store_ms = models.PositiveIntegerField(_("store (ms)"), default=0)
    # Stored from a document a WebSub hub pushed, not from a fetch.
    pushed = models.BooleanField(_("pushed"), default=False)
    # The retries of one outage of the lock cache update one run (refusals.refused):
    # its attempts and end time, not a run each that pushes the history off the page.
    attempts = models.PositiveIntegerField(
        _("attempts"),
        default=1,
        help_text=_("Tries this run stands for: each retry while the lock cache was down."),
    )

    class Meta:
        ordering = ["-started_at", "-id"]
        indexes = [
            models.Index(fields=["feed", "-started_at"], name="importrun_feed_started_idx"),
            models.Index(fields=["outcome", "-started_at"], name="importrun_outcome_idx"),
            # The admin's default ordering and date drill-down, and the retention cutoff.
            models.Index(fields=["-started_at", "-id"], name="importrun_started_idx"),
        ]
        verbose_name = _("import run")
        verbose_name_plural = _("import runs")

    def __str__(self):
        return gettext("%(feed)s at %(time)s: %(outcome)s") % {
            "feed": self.feed,
            "time": f"{self.started_at:%Y-%m-%d %H:%M:%S}",
            "outcome": self.get_outcome_display(),
        }

    def get_absolute_url(self):
        return self.feed.get_absolute_url()

    @property
    def duration_ms(self):
        if self.finished_at is None:
            return None
        return int((self.finished_at - self.started_at).total_seconds() * 1000)


class RefreshRun(models.Model):
    """One ``refresh_feeds`` round: the feeds it claimed, counted from their ``ImportRun`` rows.

    The outcome columns are filled when the round is over (a later tick closes
    it); until then ``progress()`` counts the runs so far.
    """

    started_at = models.DateTimeField(_("started at"), default=timezone.now)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    feeds = models.PositiveIntegerField(_("feeds"), default=0)
    imported = models.PositiveIntegerField(pgettext_lazy("number of feeds", "imported"), default=0)
    not_modified = models.PositiveIntegerField(
        pgettext_lazy("number of feeds", "not modified"), default=0
    )
    skipped = models.PositiveIntegerField(pgettext_lazy("number of feeds", "skipped"), default=0)
    failed = models.PositiveIntegerField(pgettext_lazy("number of feeds", "failed"), default=0)

    class Meta:
        ordering = ["-started_at", "-id"]
        indexes = [
            models.Index(
                fields=["started_at"],
                condition=models.Q(finished_at__isnull=True),
                name="refreshrun_open_idx",
            )
        ]
        verbose_name = _("refresh run")
        verbose_name_plural = _("refresh runs")

    def __str__(self):
        return ngettext(
            "refresh of %(count)d feed at %(time)s",
            "refresh of %(count)d feeds at %(time)s",
            self.feeds,
        ) % {"count": self.feeds, "time": f"{self.started_at:%Y-%m-%d %H:%M:%S}"}

    def progress(self):
        """``(done, counts)``: feeds with a run in this round, and runs per outcome."""
        runs = ImportRun.objects.filter(refresh_run=self)
        counts = dict.fromkeys(Outcome.values, 0)
        counts.update(runs.values_list("outcome").annotate(n=models.Count("pk")).order_by())
        return runs.values("feed_id").order_by().distinct().count(), counts

    @property
    def unfinished(self):
        """Claimed feeds with no run in a closed round (lost messages, killed workers)."""
        if self.finished_at is None:
            return None
        return max(0, self.feeds - self.imported - self.not_modified - self.skipped - self.failed)
