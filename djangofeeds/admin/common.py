"""What the admin classes share: URL fields, per-row counts, read-only rows."""

from django.contrib import admin
from django.db import models
from django.db.models import Count, OuterRef, Subquery
from django.db.models.functions import Coalesce

from djangofeeds_blog_shared.changelist import SafeDateHierarchy

# A URL typed without a scheme is taken as https (Django 6's default).
URL_FIELDS = {models.URLField: {"assume_scheme": "https"}}


def count_of(model, field):
    """How many ``model`` rows point at each listed row, counted for the shown page only.

    A correlated subquery on the foreign key's index: a JOIN and GROUP BY
    would count every post of every feed before the page is cut out.
    """
    rows = model.objects.filter(**{field: OuterRef("pk")}).order_by().values(field)
    return Coalesce(Subquery(rows.annotate(n=Count("*")).values("n")), 0)


class ReadOnlyAdmin(SafeDateHierarchy, admin.ModelAdmin):
    """Rows written by the importer: to look at, not to edit (by date, any year asked)."""

    formfield_overrides = URL_FIELDS

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
