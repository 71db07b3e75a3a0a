"""djangofeeds_blog_shared.changelist: a date hierarchy that takes any year in the query
string, in both apps' admins."""

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("changelist", "query"),
    [
        ("admin:djangofeeds_post_changelist", "published_at__year=9999"),
        ("admin:djangofeeds_importrun_changelist", "started_at__year=" + "9" * 20),
        ("admin:blog_entry_changelist", "pub_date__year=9999&pub_date__month=12&pub_date__day=31"),
        ("admin:blog_comment_changelist", "pub_date__year=0"),
    ],
)
def test_a_year_datetime_cannot_hold_is_a_bad_lookup_not_a_500(admin_client, changelist, query):
    """Year 9999 (no next year), 0, or twenty digits: Django's redirect to ``?e=1``, the
    answer to any lookup it cannot apply, where its date hierarchy answered 500."""
    response = admin_client.get(reverse(changelist), QUERY_STRING=query)

    assert response.status_code == 302 and response["Location"].endswith("?e=1")


def test_a_year_in_range_still_narrows_the_list(admin_client):
    """A real year is still the hierarchy's filter."""
    response = admin_client.get(
        reverse("admin:djangofeeds_post_changelist"), {"published_at__year": "2026"}
    )

    assert response.status_code == 200 and response.context["cl"].date_hierarchy
