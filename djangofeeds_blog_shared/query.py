"""Query parameters as the pages read them: anything malformed is "not given", never a 500.

Every parameter a page reads goes through one of these. ``str.isdigit`` is not
the test for a number: it takes "²" and "①", which ``int()`` and the database
refuse. Here only ASCII digits count.
"""

import re

from django.http import Http404

# The largest id a row can have: a signed 64-bit column (BigAutoField, and SQLite's).
MAX_ID = 2**63 - 1
# Past any page count: where a page number too long to read sends the paginator (its last page).
FAR_PAGE = 10**18
ASCII_NUMBER = re.compile(r"[0-9]+")


def digits(request, name):
    """The parameter ``name`` when it is ASCII digits and nothing else, or None."""
    value = request.GET.get(name, "")
    return value if ASCII_NUMBER.fullmatch(value) else None


def object_id(request, name):
    """The parameter ``name`` as a row's id; None when absent or malformed.

    A number no row can have (0, or past a 64-bit column) is a 404, as an
    unknown id is: the database is never asked for it.
    """
    value = digits(request, name)
    if value is None:
        return None
    significant = value.lstrip("0")
    # Length first: int() refuses more than 4,300 digits.
    if not significant or len(significant) > len(str(MAX_ID)) or int(significant) > MAX_ID:
        raise Http404(f"no such {name}")
    return int(significant)


def page_number(request, name="page"):
    """The page asked for, as ``Paginator.get_page`` takes it; None (the first page) if malformed.

    0 is the first page too (the paginator would show the last); a number past
    the last page shows the last, however many digits it has.
    """
    value = digits(request, name)
    if value is None or not value.strip("0"):
        return None
    return int(value) if len(value) <= 18 else FAR_PAGE
