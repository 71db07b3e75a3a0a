"""djangofeeds_blog_shared.query: query parameters read so that anything malformed is
"not given"."""

import pytest
from django.http import Http404
from django.test import RequestFactory

from djangofeeds_blog_shared.query import FAR_PAGE, MAX_ID, object_id, page_number


def get(**params):
    return RequestFactory().get("/", params)


@pytest.mark.parametrize(
    "value", ["", "abc", "²", "①", "٣", "1 ", " 1", "+1", "-1", "1.0", "0x1", "1e3", "\x00", "1\n"]
)
def test_object_id_is_none_for_anything_but_ascii_digits(value):
    """Only ASCII digits make an id: Unicode digits, signs, spaces and junk are "not given"."""
    assert object_id(get(category=value), "category") is None


def test_object_id_reads_a_plain_number_and_none_when_absent():
    """A plain number is the id; no parameter is None."""
    assert object_id(get(category="42"), "category") == 42
    assert object_id(get(category="007"), "category") == 7
    assert object_id(get(category="0" * 30 + "7"), "category") == 7
    assert object_id(get(), "category") is None


@pytest.mark.parametrize("value", ["0", str(MAX_ID + 1), "9" * 30, "9" * 5000])
def test_object_id_no_row_can_have_is_404(value):
    """0, or a number past a 64-bit column (5,000 digits included), is a 404, not a 500."""
    with pytest.raises(Http404):
        object_id(get(category=value), "category")


@pytest.mark.parametrize(
    ("value", "page"),
    [
        ("", None),
        ("junk", None),
        ("²", None),
        ("0", None),
        ("000", None),
        ("-1", None),
        ("2", 2),
        ("0010", 10),
        ("9" * 19, FAR_PAGE),
        ("9" * 5000, FAR_PAGE),
    ],
)
def test_page_number_is_what_the_paginator_takes(value, page):
    """Malformed or 0 is the first page (None); a long number is past the last page."""
    assert page_number(get(page=value)) == page
