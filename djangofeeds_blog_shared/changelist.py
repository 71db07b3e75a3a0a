"""The admin's changelist with a date hierarchy that takes any year in its query string.

Django builds the hierarchy's bounds from ``?<field>__year=`` with ``datetime``:
year 9999 (no next year), a day past the last one, or a year of twenty digits
(OverflowError) escape its own check and answer 500. Here they are what any
other bad lookup is: a redirect to ``?e=1``. (Found by tests/fuzz, issue 25.)
So is a NUL character in any parameter (a filter's value, the search): PostgreSQL
refuses it in a text value, which Django's changelist would answer with a 500.
"""

from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.views.main import ChangeList


class SafeChangeList(ChangeList):
    def get_filters(self, request):
        if any("\x00" in value for _, values in request.GET.lists() for value in values):
            raise IncorrectLookupParameters("a NUL character in the query string")
        try:
            return super().get_filters(request)
        except (OverflowError, ValueError) as exc:
            raise IncorrectLookupParameters(exc) from exc


class SafeDateHierarchy:
    """ModelAdmin mixin: the changelist above."""

    def get_changelist(self, request, **kwargs):
        return SafeChangeList
