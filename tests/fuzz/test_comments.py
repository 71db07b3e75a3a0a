"""Fuzzed comment forms: every field with hostile text, repeated, missing or huge.

The answer is a redirect (stored, pending) or the form again with its errors
(400), never a 500; a comment is stored exactly when the form is valid and
holds what the form cleaned. (tests/hostile/test_comments.py posts 1,000 forms
of another shape, headers and addresses included.)
"""

import pytest
from django.urls import reverse
from hypothesis import example, given
from hypothesis import strategies as st

from blog.forms import CommentForm
from blog.models import Comment
from blog.spam import HONEYPOT_FIELD
from tests.factories import EntryFactory
from tests.fuzz.strategies import any_url, hostile_text, scaled
from tests.support.comments import VALID

pytestmark = pytest.mark.django_db

FIELDS = ["name", "email_address", "homepage", "comment"]


def field_value(field):
    """A field's value: the valid one, hostile text, a URL of any shape, huge, or repeated."""
    valid = st.just(VALID[field])
    return st.one_of(
        valid,
        valid,
        hostile_text(10),
        any_url(),
        st.builds(lambda text, count: text * count, hostile_text(2), st.integers(50, 3000)),
        st.lists(hostile_text(3) | valid, min_size=2, max_size=3),
    )


FORMS = st.fixed_dictionaries(
    {},
    optional={field: field_value(field) for field in FIELDS}
    | {HONEYPOT_FIELD: st.sampled_from(["", " ", "x"])},
)


@pytest.fixture
def entry(settings):
    settings.BLOG_COMMENTS_PER_MINUTE = 0  # no rate limit: every example posts
    return EntryFactory()


def data_of(form):
    """The form as the view reads it (a repeated field: its last value)."""
    return {name: value[-1] if isinstance(value, list) else value for name, value in form.items()}


@given(form=FORMS)
@example(form=VALID | {"homepage": "http://xn--/"})  # a host IDNA refuses (issue 25)
@example(form=VALID | {"name": "²", "homepage": "http://example.com:0/"})
@example(form=VALID | {"comment": "\x00", "email_address": "a@xn--"})
@example(form=VALID | {"homepage": ["http://a.example/", "javascript:alert(1)"]})
@scaled(2)
def test_comment_forms_are_stored_exactly_when_valid_never_a_500(client, entry, form):
    """A valid form is stored as cleaned (303); an invalid one or a bot's is not (400)."""
    url = reverse("blog:add_comment", args=[entry.slug])
    known = set(Comment.objects.values_list("pk", flat=True))

    response = client.post(url, form)

    stored = list(Comment.objects.exclude(pk__in=known))
    expected = CommentForm(data_of(form))
    if str(data_of(form).get(HONEYPOT_FIELD, "")).strip() or not expected.is_valid():
        assert response.status_code == 400 and stored == []
        return
    assert response.status_code == 303
    [comment] = stored
    assert comment.status == Comment.Status.PENDING
    for field in FIELDS:
        assert getattr(comment, field) == expected.cleaned_data[field]
