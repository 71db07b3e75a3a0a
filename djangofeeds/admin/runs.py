"""Admin of import runs and refresh rounds: read-only, counted live while a round runs."""

from django.contrib import admin
from django.template.defaultfilters import truncatechars
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext, ngettext_lazy

from djangofeeds.admin.common import ReadOnlyAdmin
from djangofeeds.models import ImportRun, Outcome, RefreshRun

# A round's count of each outcome, in the outcomes column.
OUTCOME_COUNTS = {
    Outcome.IMPORTED: ngettext_lazy("%(count)d imported", "%(count)d imported", "count"),
    Outcome.NOT_MODIFIED: ngettext_lazy(
        "%(count)d not modified", "%(count)d not modified", "count"
    ),
    Outcome.SKIPPED: ngettext_lazy(
        "%(count)d skipped (lock held)", "%(count)d skipped (lock held)", "count"
    ),
    Outcome.FAILED: ngettext_lazy("%(count)d failed", "%(count)d failed", "count"),
}


@admin.register(ImportRun)
class ImportRunAdmin(ReadOnlyAdmin):
    list_display = [
        "feed",
        "started_at",
        "outcome",
        "http_status",
        "created",
        "updated",
        "fetch_ms",
        "parse_ms",
        "store_ms",
        "worker",
        "attempts",
        "error_summary",
    ]
    list_filter = ["outcome", "started_at", "feed"]
    list_select_related = ["feed"]
    search_fields = ["feed__url", "feed__title", "task_id", "error"]
    date_hierarchy = "started_at"
    # Millions of runs: no COUNT(*) of the whole table on every page.
    show_full_result_count = False

    @admin.display(description=_("error"))
    def error_summary(self, run):
        return truncatechars(run.error, 80)


@admin.register(RefreshRun)
class RefreshRunAdmin(ReadOnlyAdmin):
    """Refresh rounds: the current ones counted live from their import runs."""

    list_display = ["started_at", "finished_at", "feeds", "progress", "outcomes"]
    date_hierarchy = "started_at"

    @admin.display(description=_("done"))
    def progress(self, summary):
        if summary.finished_at is not None:
            done = summary.feeds - summary.unfinished
        else:
            done, _ = summary.progress()
        return f"{done}/{summary.feeds}"

    @admin.display(description=_("outcomes"))
    def outcomes(self, summary):
        if summary.finished_at is None:
            _, counts = summary.progress()
        else:
            counts = {name: getattr(summary, name) for name in Outcome.values}
        parts = [OUTCOME_COUNTS[name] % {"count": count} for name, count in counts.items() if count]
        if summary.unfinished:
            parts.append(
                ngettext(
                    "%(count)d never run (claim timed out)",
                    "%(count)d never run (claim timed out)",
                    summary.unfinished,
                )
                % {"count": summary.unfinished}
            )
        return ", ".join(parts) or "-"
