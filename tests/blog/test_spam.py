"""blog/spam.py: the Akismet client against the stand-in, the local rules, the health flag."""

import time

import pytest
from akismet import APIKeyError, CheckResponse, ProtocolError, RequestError

from blog import spam
from tests.factories import CommentFactory, EntryFactory
from tests.support.akismet_server import DISCARD_AUTHOR, SPAM_AUTHOR

pytestmark = pytest.mark.django_db

PAYLOAD_FIELDS = {
    "user_ip", "user_agent", "referrer", "permalink", "comment_type", "comment_author",
    "comment_author_email", "comment_author_url", "comment_content", "comment_date_gmt",
    "comment_post_modified_gmt", "blog_lang", "blog_charset", "honeypot_field_name",
}  # fmt: skip


def payload(**comment_fields):
    return spam.build_payload(CommentFactory(**comment_fields))


def test_build_payload_sends_everything_akismet_uses(settings):
    """The payload has every field Akismet documents, taken from the comment and its entry."""
    settings.AKISMET_BLOG_URL = "https://blog.example.com/"
    entry = EntryFactory(slug="queues")
    comment = CommentFactory(entry=entry, name="Ada", homepage="https://ada.example.com/")
    data = spam.build_payload(comment)
    assert set(data) == PAYLOAD_FIELDS
    assert data["permalink"] == "https://blog.example.com/blog/queues/"
    assert data["comment_type"] == "comment"
    assert (data["comment_author"], data["comment_author_url"]) == ("Ada", comment.homepage)
    assert data["comment_date_gmt"] == comment.pub_date.isoformat()
    assert data["comment_post_modified_gmt"] == entry.pub_date.isoformat()
    assert (data["blog_lang"], data["blog_charset"]) == ("en", "UTF-8")
    assert data["honeypot_field_name"] == "website"


def test_akismet_answers_ham_spam_and_discard(akismet_settings, akismet):
    """The documented forcing values come back as HAM, SPAM and DISCARD."""
    assert spam.check(payload()) == CheckResponse.HAM
    assert spam.check(payload(name=SPAM_AUTHOR)) == CheckResponse.SPAM
    assert spam.check(payload(name=DISCARD_AUTHOR)) == CheckResponse.DISCARD
    sent = akismet.calls("comment-check")[1].form
    assert sent["comment_author"] == SPAM_AUTHOR
    assert sent["api_key"] == "test-key"
    assert sent["blog"] == "http://localhost:8000/"


def test_akismet_key_is_verified_once_per_process(akismet_settings, akismet):
    """Three checks make one verify-key request, sent to AKISMET_API_URL with our User-Agent."""
    for _ in range(3):
        spam.check(payload())
    assert len(akismet.calls("verify-key")) == 1
    assert len(akismet.calls("comment-check")) == 3
    agent = akismet.calls("verify-key")[0].headers["User-Agent"]
    assert agent.startswith("djangofeeds-blog | akismet.py/")


def test_akismet_api_url_with_a_path_prefix(akismet_settings, akismet):
    """AKISMET_API_URL may carry a path (a proxy): requests go below it."""
    akismet_settings.AKISMET_API_URL = akismet.url + "/proxy"
    with pytest.raises(RequestError, match="404"):  # the stand-in has no /proxy
        spam.check(payload())
    assert akismet.requests[0].path == "/proxy/1.1/verify-key"


def test_feedback_is_sent_and_acknowledged(akismet_settings, akismet):
    """submit-spam and submit-ham get Akismet's thanks; the local backend sends nothing."""
    data = payload()
    assert spam.submit_spam(data) is True
    assert spam.submit_ham(data) is True
    assert akismet.calls("submit-spam")[0].form["comment_content"] == data["comment_content"]
    akismet_settings.AKISMET_API_KEY = ""
    assert spam.submit_spam(data) is False
    assert len(akismet.calls("submit-spam")) == 1


@pytest.mark.parametrize("status", [500, 503])
def test_akismet_server_error_is_a_request_error(akismet_settings, akismet, status):
    """A 5xx answer raises RequestError (which the task retries)."""
    spam.check(payload())
    akismet.fail_next(1, status)
    with pytest.raises(RequestError, match=str(status)):
        spam.check(payload())


def test_akismet_timeout_is_a_request_error(akismet_settings, akismet):
    """An answer slower than BLOG_AKISMET_TIMEOUT raises RequestError after about that long."""
    spam.check(payload())
    akismet.hang, akismet.hang_seconds = True, 3
    started = time.monotonic()
    with pytest.raises(RequestError, match="timed out"):
        spam.check(payload())
    assert time.monotonic() - started < 2.5  # the stand-in would answer after 3 s


def test_akismet_off_protocol_answer_is_a_protocol_error(akismet_settings, akismet):
    """A 200 answer that is not Akismet's raises ProtocolError."""
    spam.check(payload())
    akismet.garbage = True
    with pytest.raises(ProtocolError):
        spam.check(payload())


def test_invalid_key_is_recorded_for_healthz_and_not_asked_again(akismet_settings, akismet, client):
    """A refused key raises APIKeyError, flags /healthz, and is not re-verified on every call."""
    akismet_settings.AKISMET_API_KEY = "wrong-key"
    for _ in range(3):
        with pytest.raises(APIKeyError):
            spam.check(payload())
    assert len(akismet.calls("verify-key")) == 1
    assert akismet.calls("comment-check") == []
    assert spam.is_misconfigured()
    response = client.get("/healthz")
    # Degraded, not down: the site works, comments wait.
    assert (response.status_code, response.json()["status"]) == (200, "degraded")
    assert response.json()["failed"] == ["spam"]
    assert response.json()["checks"]["spam"]["error"] == "SpamServiceMisconfigured"
    # Another key in the settings (the operator fixed it) is not reported as broken...
    akismet_settings.AKISMET_API_KEY = "test-key"
    assert client.get("/healthz").status_code == 200
    # ... and once a process verifies it, the flag is cleared.
    akismet_settings.AKISMET_API_KEY = "wrong-key"
    akismet_settings.BLOG_AKISMET_KEY_RETRY_AFTER = 0
    akismet.keys.add("wrong-key")  # the subscription was renewed
    assert spam.check(payload()) == CheckResponse.HAM
    assert not spam.is_misconfigured()


def test_key_revoked_after_verification_is_recorded(akismet_settings, akismet):
    """comment-check answering "invalid" (key revoked later) raises and flags it too."""
    spam.check(payload())
    akismet.keys.clear()
    with pytest.raises(APIKeyError):
        spam.check(payload())
    assert spam.is_misconfigured()


def test_healthz_spam_check_only_with_akismet(client, akismet_settings):
    """With a key, /healthz lists a passing "spam" check; with the local rules, none."""
    assert client.get("/healthz").json()["checks"]["spam"]["ok"] is True
    akismet_settings.AKISMET_API_KEY = ""
    assert "spam" not in client.get("/healthz").json()["checks"]


# --- local rules --------------------------------------------------------------


def local_check(**comment_fields):
    """(verdict, reasons) of the local rules for a new comment."""
    comment = CommentFactory(**comment_fields)
    data = spam.build_payload(comment)
    return spam.check(data, comment_id=comment.pk), spam.local_reasons(data, comment.pk)


@pytest.fixture
def local_rules(settings):
    settings.AKISMET_API_KEY = ""
    return settings


def test_local_rules_pass_an_ordinary_comment(local_rules):
    """A plain comment with a link or two is ham."""
    text = "Nice post, see https://example.com/ and www.example.org for more."
    assert local_check(comment=text) == (CheckResponse.HAM, [])


def test_local_rules_catch_too_many_links(local_rules):
    """More links than BLOG_SPAM_MAX_LINKS (the homepage counts) is spam."""
    local_rules.BLOG_SPAM_MAX_LINKS = 2
    text = "https://a.example/ https://b.example/"
    assert local_check(comment=text)[0] == CheckResponse.HAM
    assert local_check(comment=text + " ", homepage="https://c.example/") == (
        CheckResponse.SPAM,
        ["3 links"],
    )


def test_local_rules_catch_blocked_words_across_line_breaks(local_rules):
    """A blocked phrase is found whatever its case and spacing."""
    local_rules.BLOG_SPAM_BLOCKED_WORDS = ["payday loan"]
    assert local_check(comment="Get a PAYDAY\n  Loan today") == (
        CheckResponse.SPAM,
        ["blocked word 'payday loan'"],
    )


def test_local_rules_catch_duplicate_text(local_rules):
    """The same text as another comment is spam; the comment itself is not its own duplicate."""
    assert local_check(comment="Great article!!") == (CheckResponse.HAM, [])
    assert local_check(comment="Great article!!") == (
        CheckResponse.SPAM,
        ["same text as an earlier comment"],
    )


def test_local_rules_count_a_url_once(local_rules):
    """ "https://www.example.com" is one link, not two."""
    local_rules.BLOG_SPAM_MAX_LINKS = 2
    text = "see https://www.a.example/ and https://www.b.example/"
    assert local_check(comment=text) == (CheckResponse.HAM, [])


def test_local_rules_match_blocked_words_whole(local_rules):
    """A blocked word inside another word ("specialist") is not a match."""
    local_rules.BLOG_SPAM_BLOCKED_WORDS = ["cialis"]
    assert local_check(comment="Ask a specialist, or a socialist.") == (CheckResponse.HAM, [])
    assert local_check(comment="Cheap Cialis!")[0] == CheckResponse.SPAM


def test_local_rules_recheck_does_not_blame_the_original(local_rules):
    """Re-checking the first of two identical comments keeps it ham: only earlier ones count."""
    original = CommentFactory(comment="First!")
    CommentFactory(comment="First!")
    assert spam.local_reasons(spam.build_payload(original), original.pk) == []
