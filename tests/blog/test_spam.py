"""blog/spam.py: the payload Akismet gets, the configured backend, its verdict, feedback."""

from datetime import UTC

import pytest

from blog import spam
from blog.spam_backends import Verdict
from localservers.akismet_server import DISCARD_AUTHOR, SPAM_AUTHOR
from tests.blog.helpers import PAYLOAD_FIELDS
from tests.factories import CommentFactory, EntryFactory

pytestmark = pytest.mark.django_db


def verdict(**comment_fields):
    return spam.check(CommentFactory(**comment_fields)).kind


def test_build_payload_sends_everything_akismet_uses(settings):
    """The payload has every field Akismet reads, taken from the comment and its entry."""
    settings.AKISMET_BLOG_URL = "https://blog.example.com/"
    entry = EntryFactory(slug="queues")
    comment = CommentFactory(entry=entry, name="Ada", homepage="https://ada.example.com/")
    data = spam.build_payload(comment)
    assert set(data) == PAYLOAD_FIELDS
    assert data == data | {
        "permalink": "https://blog.example.com/blog/queues/",
        "comment_type": "comment",
        "comment_author": "Ada",
        "comment_author_url": comment.homepage,
        "comment_date_gmt": comment.pub_date.astimezone(UTC).isoformat(),
        "comment_post_modified_gmt": entry.pub_date.astimezone(UTC).isoformat(),
        "blog_lang": "en",
        "blog_charset": "utf-8",
        "user_role": "guest",
        "honeypot_field_name": "website",
        "website": "",
    }


def test_build_payload_of_a_reply_a_recheck_and_a_bilingual_site(settings):
    """A reply is comment_type "reply"; a re-check says why; LANGUAGES gives blog_lang."""
    settings.LANGUAGES = [("en", "English"), ("fr-ca", "French"), ("fr", "French")]
    settings.DEFAULT_CHARSET = "ISO-8859-1"
    parent = CommentFactory(status="published")
    reply = CommentFactory(entry=parent.entry, parent=parent)
    data = spam.build_payload(reply, recheck_reason="recheck_queue")
    assert data["comment_type"] == "reply"
    assert data["recheck_reason"] == "recheck_queue"
    assert (data["blog_lang"], data["blog_charset"]) == ("en, fr", "ISO-8859-1")
    assert "recheck_reason" not in spam.build_payload(parent)


def test_akismet_answers_ham_spam_and_discard(akismet_settings, akismet):
    """The documented forcing values come back as HAM, SPAM and DISCARD."""
    assert verdict() == Verdict.HAM
    assert verdict(name=SPAM_AUTHOR) == Verdict.SPAM
    assert verdict(name=DISCARD_AUTHOR) == Verdict.DISCARD
    sent = akismet.calls("comment-check")[1].form
    assert sent["comment_author"] == SPAM_AUTHOR
    assert sent["api_key"] == "test-key"
    assert sent["blog"] == "http://localhost:8000/"


def test_feedback_is_sent_and_acknowledged(akismet_settings, akismet):
    """submit-spam and submit-ham get Akismet's thanks; the local backend sends nothing."""
    comment = CommentFactory()
    assert spam.submit_spam(comment) is True
    assert spam.submit_ham(comment) is True
    assert akismet.calls("submit-spam")[0].form["comment_content"] == comment.comment
    akismet_settings.AKISMET_API_KEY = ""
    assert spam.submit_spam(comment) is False
    assert len(akismet.calls("submit-spam")) == 1
