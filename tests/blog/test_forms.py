"""blog/forms.py: the comment form's fields, limits, messages and honeypot."""

import pytest
from django.http import QueryDict

from blog.forms import MAX_COMMENT_LENGTH, CommentForm
from tests.support.comments import VALID


def form(data):
    return CommentForm(data=data)


def test_valid_comment_has_only_the_visitors_fields():
    """Name, email, home page and text are the form's fields, plus the hidden honeypot,
    the comment replied to and the wish to hear of replies."""
    comment_form = form(VALID)
    assert comment_form.is_valid(), comment_form.errors
    assert set(comment_form.cleaned_data) == {*VALID, "website", "parent", "notify_replies"}
    assert not comment_form.is_bot


def test_home_page_without_a_scheme_is_https():
    """ "ada.example.com" is taken as https://ada.example.com."""
    comment_form = form(VALID | {"homepage": "ada.example.com"})
    assert comment_form.is_valid(), comment_form.errors
    assert comment_form.cleaned_data["homepage"] == "https://ada.example.com"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("name", "", "Please give your name."),
        ("email_address", "not-an-address", "Please give a valid email address."),
        ("homepage", "http://", "Please give a full URL, e.g. https://example.com/."),
        ("comment", "", "Please write a comment."),
    ],
)
def test_each_field_says_what_is_wrong_in_plain_words(field, value, message):
    """An invalid field gets the form's own message, not Django's default."""
    comment_form = form(VALID | {field: value})
    assert not comment_form.is_valid()
    assert comment_form.errors[field] == [message]


def test_too_long_comment_says_the_limit_and_its_length():
    """A comment over MAX_COMMENT_LENGTH names both the limit and how long it is."""
    comment_form = form(VALID | {"comment": "x" * (MAX_COMMENT_LENGTH + 1)})
    assert not comment_form.is_valid()
    assert comment_form.errors["comment"] == [
        f"Please keep your comment under {MAX_COMMENT_LENGTH} characters (it has 5001)."
    ]


def test_honeypot_filled_once_of_twice_is_a_bot():
    """A honeypot sent twice, the last value empty, still marks a bot; blank space does not."""
    twice = QueryDict(mutable=True)
    twice.update(VALID)
    twice.setlist("website", ["http://spam.example/", ""])
    assert form(twice).is_bot
    assert not form(VALID | {"website": "   "}).is_bot


def test_fields_carry_autocomplete_tokens():
    """Browsers can fill name, email and home page for the visitor."""
    widgets = {
        name: field.widget.attrs.get("autocomplete") for name, field in form({}).fields.items()
    }
    assert widgets["name"] == "name"
    assert widgets["email_address"] == "email"
    assert widgets["homepage"] == "url"


@pytest.mark.parametrize(
    ("field", "value", "char"),
    [
        ("name", "Eve\r\nBcc: victim@example.com", "U+000D"),
        ("name", "Eve\u202egnp.exe", "U+202E"),
        ("name", "Eve\u2028Mallory", "U+2028"),
        ("email_address", '"a\x07b"@example.com', "U+0007"),
        ("homepage", "https://example.com/a\x1bb", "U+001B"),
    ],
)
def test_one_line_fields_refuse_control_characters(field, value, char):
    """A line break in a name would become a mail header; Django's own validators let
    these through (a quoted local part, a URL path, any name)."""
    comment_form = form(VALID | {field: value})
    assert not comment_form.is_valid()
    assert comment_form.errors[field] == [
        f"Please remove the invisible character {char}: line breaks and control characters "
        "cannot be used here."
    ]


def test_names_keep_their_joiners_and_the_comment_its_line_breaks():
    """Zero-width joiners belong to names (Persian, emoji); the comment keeps its paragraphs."""
    name = "\u0645\u06cc\u200c\u0631\u0627 \U0001f469\u200d\U0001f4bb"
    comment_form = form(VALID | {"name": name, "comment": "One.\r\n\r\nTwo."})
    assert comment_form.is_valid(), comment_form.errors
    assert comment_form.cleaned_data["name"] == name
