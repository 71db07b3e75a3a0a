"""Fuzzed query strings on every public page: a page or a 404, never a 500.

The parameters the pages read (``category``, ``page``) and any others, with
values of any shape: Unicode digits, huge numbers, repeats, NUL, invalid
percent-encoding and invalid UTF-8.
"""

import pytest
from django.urls import reverse
from hypothesis import example, given
from hypothesis import strategies as st

from djangofeeds.models import Category
from tests.factories import EntryFactory, FeedFactory, PostFactory
from tests.fuzz.strategies import as_sent, hostile_text, numbers, scaled

pytestmark = pytest.mark.django_db

NAMES = ["category", "page", "q", "feed", "o", "p"]


def raw_query():
    """A query string as a client may send it, percent-encoded or not (invalid UTF-8 too)."""
    pair = st.tuples(st.sampled_from(NAMES) | hostile_text(3), numbers(), st.booleans())
    return st.lists(pair, max_size=4).map(
        lambda pairs: "&".join(
            f"{as_sent(name, encode)}={as_sent(value, encode)}" for name, value, encode in pairs
        )
    )


@pytest.fixture
def site():
    """Pages with something on them: a feed with posts in a category, a blog entry."""
    feed = FeedFactory()
    category = Category.objects.create(name="News")
    for post in PostFactory.create_batch(3, feed=feed):
        post.categories.add(category)
    entry = EntryFactory()
    return {
        "post_list": reverse("djangofeeds:post_list"),
        "feed_detail": reverse("djangofeeds:feed_detail", args=[feed.pk]),
        "post_detail": reverse("djangofeeds:post_detail", args=[feed.posts.first().pk]),
        "entry_list": reverse("blog:entry_list"),
        "entry_detail": entry.get_absolute_url(),
        "blog_feed": reverse("blog:feed"),
        "category": category.pk,
    }


PAGES = ["post_list", "feed_detail", "post_detail", "entry_list", "entry_detail", "blog_feed"]


@given(page=st.sampled_from(PAGES), query=raw_query())
@example(page="post_list", query="category=%C2%B2")  # issue 25: "²" was a 500
@example(page="post_list", query="category=%E2%91%A0")  # "①"
@example(page="post_list", query="category=" + "9" * 5000)
@example(page="post_list", query="page=%FF&category=%00")
@example(page="entry_list", query="page=" + "9" * 5000)
@example(page="feed_detail", query="page=0&page=%D9%A3")
@scaled(4)
def test_public_pages_answer_a_page_or_a_404_whatever_the_query(client, site, page, query):
    """Every public page answers 200 (or 404 for an unknown id) to any query string."""
    response = client.get(site[page], QUERY_STRING=query)

    assert response.status_code in (200, 404), (response.status_code, query)


# Stands for the category's id, known once the test runs.
CATEGORY = "CATEGORY"


@given(value=numbers() | st.integers(0, 30).map(lambda zeros: "0" * zeros + CATEGORY))
@example(value="0" * 30 + CATEGORY)  # leading zeros: still the category's number
@scaled(1)
def test_post_list_filters_by_a_category_only_when_given_as_a_plain_number(client, site, value):
    """``?category=`` narrows the list only for ASCII digits naming a category; other
    numbers are a 404, anything else shows every post."""
    value = value.replace(CATEGORY, str(site["category"]))
    response = client.get(site["post_list"], {"category": value})

    if value.isascii() and value.isdigit():
        expected = 200 if value.lstrip("0") == str(site["category"]) else 404
        assert response.status_code == expected
    else:
        assert response.status_code == 200 and response.context["category"] is None
