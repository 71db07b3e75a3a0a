"""Hostile comment posts, one test per row of the matrix (issue 7): generated forms, CSRF,
the honeypot, the rate limit under concurrency, and stored XSS."""

import ipaddress
import threading
import time
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlencode

import pytest
import redis
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.validators import validate_email
from django.db import connections
from django.forms import URLField
from django.test import Client, override_settings
from django.utils import timezone
from django.utils.html import escape
from hypothesis import HealthCheck, example, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from blog import spam
from blog.models import Comment, CommentEvent
from djangofeeds.models import ImportRun
from localservers.feed_server import rss
from tests.blog.helpers import fresh_ip
from tests.factories import EntryFactory
from tests.hostile.helpers import injected
from tests.support.comments import VALID, post_comment
from tests.support.importing import import_url
from tests.support.queues import redis_list_key

# --- 1,000 generated forms ---------------------------------------------------

MISSING = object()
# Any character a form can carry (lone surrogates cannot be encoded by any client).
ANY_CHARACTER = st.characters(exclude_categories=["Cs"])
HEADER_CHARACTER = st.characters(max_codepoint=255)  # WSGI headers are Latin-1


def huge(characters):
    """A long run of one character: huge fields without generating each character."""
    return st.builds(lambda char, count: char * count, characters, st.integers(60, 20_000))


def anything(valid):
    """A field's value: valid, arbitrary unicode, huge, with NUL, missing, or of a wrong type."""
    return st.one_of(
        valid,
        st.text(ANY_CHARACTER, max_size=70),
        huge(ANY_CHARACTER),
        valid.map(lambda value: value + "\x00"),
        st.just(MISSING),
        st.integers().map(str),
        st.lists(st.text(ANY_CHARACTER, max_size=10), max_size=3),
        st.just(SimpleUploadedFile("x.txt", b"a file, not text")),
    )


FORMS = st.fixed_dictionaries(
    {
        "name": anything(st.text(ANY_CHARACTER, min_size=1, max_size=64)),
        "email_address": anything(
            st.from_regex(r"[a-z0-9]{1,20}@[a-z]{1,20}\.example", fullmatch=True)
        ),
        "homepage": anything(st.sampled_from(["", "https://example.com/", "example.org/~me"])),
        "comment": anything(st.text(ANY_CHARACTER, min_size=1, max_size=300)),
        "website": st.one_of(st.just(MISSING), st.just(""), st.just("  "), st.text(max_size=5)),
    }
)
IP_ADDRESSES = ["203.0.113.5", "2001:db8::5"]
# The proxies of the ``trusted`` examples: both REMOTE_ADDRs above, and hops that may be drawn.
TRUSTED_PROXIES = ["203.0.113.0/24", "2001:db8::/32"]
# One hop of X-Forwarded-For: an address (IPv6 perhaps with a zone), what proxies write
# when they know none, or anything at all.
FORWARDED_HOP = st.one_of(
    st.ip_addresses().map(str),
    st.builds(
        "{}%{}".format, st.ip_addresses(v=6), st.text(HEADER_CHARACTER, min_size=1, max_size=50)
    ),
    st.sampled_from(["unknown", "_hidden", "203.0.113.5:8080", "[2001:db8::5]", ""]),
    st.text(HEADER_CHARACTER, max_size=20),
)
SPACES = st.sampled_from(["", " ", "\t", "  "])
HEADERS = st.fixed_dictionaries(
    {
        "HTTP_USER_AGENT": st.one_of(
            st.text(HEADER_CHARACTER, max_size=50), huge(HEADER_CHARACTER)
        ),
        "HTTP_REFERER": st.text(HEADER_CHARACTER, max_size=50),
        "HTTP_X_FORWARDED_FOR": st.one_of(
            st.text(HEADER_CHARACTER, max_size=20),
            st.lists(
                st.tuples(SPACES, FORWARDED_HOP, SPACES).map("".join), min_size=1, max_size=4
            ).map(",".join),
        ),
        # What servers put there: an address; "" or a socket path behind a Unix socket.
        "REMOTE_ADDR": st.sampled_from([*IP_ADDRESSES, "", "unix:/run/gunicorn.sock"]),
    }
)


def last_value(value):
    """What the form sees of a submitted value (the last of several; nothing for a file)."""
    if value is MISSING or isinstance(value, SimpleUploadedFile):
        return None
    if isinstance(value, list):
        return value[-1] if value else None
    return value


def expected_comment(form):
    """The stored fields for a valid form, or None when it must be refused.

    Written from the form's rules (required, stripped, length, no NUL, no
    control or bidi-format character in a one-line field, the honeypot), not by
    asking the form; the syntax of an address or a URL is
    Django's validators'.
    """
    if any(str(value).strip() for value in as_list(form["website"])):
        return None
    seen = {name: (last_value(value) or "").strip() for name, value in form.items()}
    if any("\x00" in value for value in seen.values()):
        return None
    if any(map(invisible_control, seen["name"] + seen["email_address"] + seen["homepage"])):
        return None
    if not 0 < len(seen["name"]) <= 64 or not 0 < len(seen["comment"]) <= 5000:
        return None
    try:
        validate_email(seen["email_address"])
        homepage = URLField(required=False, max_length=200, assume_scheme="https").clean(
            seen["homepage"]
        )
    except ValidationError:
        return None
    fields = ("name", "comment", "email_address")
    return {name: seen[name] for name in fields} | {"homepage": homepage}


BIDI_FORMAT = {"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"}


def invisible_control(char):
    """A control character, a line or paragraph separator, or a bidi override, isolate or mark."""
    return (
        unicodedata.category(char) in ("Cc", "Zl", "Zp")
        or unicodedata.bidirectional(char) in BIDI_FORMAT
        or char in "\u200e\u200f\u061c"  # the marks: LRM, RLM, ALM
    )


def an_address(text):
    """``text`` as an IP address without an IPv6 zone (an inet column has none), or None."""
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    return type(address)(int(address))


def expected_ip(headers, trusted):
    """The visitor's address as stored. REMOTE_ADDR when it is an address and not a trusted
    proxy; from a trusted proxy, X-Forwarded-For read from the right up to the first hop that
    is not a trusted proxy, stopping before a hop that is no address; else None."""
    address = an_address(headers["REMOTE_ADDR"])
    hops = headers["HTTP_X_FORWARDED_FOR"].split(",")
    while trusted and address is not None and is_a_trusted_proxy(address) and hops:
        hop = an_address(hops.pop().strip())
        if hop is None:
            break
        address = hop
    return address


def is_a_trusted_proxy(address):
    return any(address in ipaddress.ip_network(network) for network in TRUSTED_PROXIES)


def as_list(value):
    if value is MISSING:
        return []
    return value if isinstance(value, list) else [value]


def encoded(form):
    """The form without the missing fields, as the test client posts it."""
    return {name: value for name, value in form.items() if value is not MISSING}


@pytest.fixture
def entry_without_rate_limit(settings):
    """An entry to comment on, with no rate limit: set once, not per generated example."""
    settings.BLOG_COMMENTS_PER_MINUTE = 0
    return EntryFactory()


@pytest.mark.django_db
@given(form=FORMS, headers=HEADERS, urlencoded=st.booleans(), trusted=st.booleans())
# Always tried: a zone that makes the address longer than the 39 characters of an inet column.
@example(
    form=VALID | {"website": ""},
    headers={
        "HTTP_USER_AGENT": "",
        "HTTP_REFERER": "",
        "HTTP_X_FORWARDED_FOR": "198.51.100.1, fe80::1%" + "a" * 40,
        "REMOTE_ADDR": "203.0.113.5",
    },
    urlencoded=True,
    trusted=True,
)
# Always tried: a header injection through the name (refused: no line break in a name).
@example(
    form=VALID | {"website": "", "name": "Eve\r\nBcc: victim@example.com"},
    headers={"HTTP_USER_AGENT": "", "HTTP_REFERER": "", "REMOTE_ADDR": "203.0.113.5"},
    urlencoded=True,
    trusted=False,
)
@hypothesis_settings(
    max_examples=1000,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_1000_generated_forms_never_500_store_only_valid_input(
    client, entry_without_rate_limit, form, headers, urlencoded, trusted
):
    """Never a 500; a valid form is always stored (exactly as given), an invalid one never.

    ``trusted``: REMOTE_ADDR is a trusted proxy (BLOG_TRUSTED_PROXIES), so the generated
    X-Forwarded-For is parsed for the visitor's address.
    """
    url = f"/blog/{entry_without_rate_limit.slug}/comment/"
    known = set(Comment.objects.values_list("pk", flat=True))
    with override_settings(BLOG_TRUSTED_PROXIES=TRUSTED_PROXIES if trusted else []):
        if urlencoded and not any(isinstance(v, SimpleUploadedFile) for v in form.values()):
            body = urlencode(encoded(form), doseq=True)
            response = client.post(
                url, body, content_type="application/x-www-form-urlencoded", **headers
            )
        else:
            response = client.post(url, encoded(form), **headers)

    stored = list(Comment.objects.exclude(pk__in=known))
    expected = expected_comment(form)
    if expected is None:
        assert response.status_code == 400 and stored == []
        return
    assert response.status_code == 303, response.content.decode()[:2000]
    [comment] = stored
    assert {name: getattr(comment, name) for name in expected} == expected
    assert comment.user_agent == headers["HTTP_USER_AGENT"].replace("\x00", "")[:1000]
    assert comment.referrer == headers["HTTP_REFERER"].replace("\x00", "")[:1000]
    stored = ipaddress.ip_address(comment.user_ip) if comment.user_ip else None
    assert stored == expected_ip(headers, trusted), comment.user_ip


# --- CSRF, honeypot ----------------------------------------------------------


@pytest.mark.django_db
def test_csrf_missing_is_403():
    """Without the page's token (or with another's) a POST is refused; with it, accepted."""
    browser = Client(enforce_csrf_checks=True)
    entry = EntryFactory()
    url = f"/blog/{entry.slug}/comment/"

    assert browser.post(url, VALID).status_code == 403
    assert browser.post(url, VALID | {"csrfmiddlewaretoken": "x" * 64}).status_code == 403
    page = browser.get(entry.get_absolute_url())
    token = page.context["csrf_token"]
    stranger = Client(enforce_csrf_checks=True)
    assert stranger.post(url, VALID | {"csrfmiddlewaretoken": str(token)}).status_code == 403
    assert not Comment.objects.exists()
    assert browser.post(url, VALID | {"csrfmiddlewaretoken": str(token)}).status_code == 303


def wait_for_a_fresh_minute(margin=8):
    """The limit counts per clock minute: start well inside one."""
    second = timezone.now().second
    if second > 60 - margin:
        time.sleep(60 - second + 0.5)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "honeypot",
    ["http://spam.example/", "  buy  ", ["http://spam.example/", ""], ["", "x"]],
    ids=["filled", "padded", "filled-then-empty", "empty-then-filled"],
)
def test_replayed_honeypot(client, settings, django_capture_on_commit_callbacks, honeypot):
    """A bot replaying its POST, however it sends the hidden field, stores and sends nothing;
    past the rate limit it gets 429 like anyone else."""
    settings.BLOG_COMMENTS_PER_MINUTE = 5
    entry = EntryFactory()
    ip = fresh_ip()
    data = VALID | {"website": honeypot}
    wait_for_a_fresh_minute()  # all eight in one window: a new minute would reset the count
    with django_capture_on_commit_callbacks() as callbacks:
        answers = [post_comment(client, entry, data, REMOTE_ADDR=ip).status_code for _ in range(8)]

    assert answers == [400] * 5 + [429] * 3
    assert not Comment.objects.exists() and callbacks == []


# --- the rate limit ------------------------------------------------------------

CONCURRENT_POSTS = 50


@pytest.mark.django_db(transaction=True)
def test_rate_limit_holds_under_50_concurrent_posts_from_one_ip(settings, private_broker):
    """50 POSTs at once from one IP: exactly the limit is stored, the rest get 429.

    Committed for real, so each stored comment sends its spam check: to a broker of this
    test's own, not to the shared one whose workers later tests start.
    """
    settings.BLOG_COMMENTS_PER_MINUTE = 5
    entry = EntryFactory()
    ip = fresh_ip()
    start = threading.Barrier(CONCURRENT_POSTS)

    def post(number):
        try:
            start.wait(timeout=30)
            data = VALID | {"comment": f"Comment number {number}"}
            return post_comment(Client(), entry, data, REMOTE_ADDR=ip).status_code
        finally:
            connections.close_all()

    wait_for_a_fresh_minute()
    with ThreadPoolExecutor(CONCURRENT_POSTS) as pool:
        answers = list(pool.map(post, range(CONCURRENT_POSTS)))

    assert sorted(answers) == [303] * 5 + [429] * (CONCURRENT_POSTS - 5)
    assert Comment.objects.count() == 5
    queue = redis_list_key("spam")
    assert redis.Redis.from_url(private_broker.url).llen(queue) == 5  # one check per comment


# --- stored XSS ------------------------------------------------------------------

XSS = '<script>alert("xss-1")</script>"><img src=x onerror=alert("xss-2")>'


def stored_payloads(client, feed_server):
    """Markup everywhere a visitor, a feed or a failing server can put text, each stored the
    way the product stores it: a comment POST, a feed import, an import error."""
    entry = EntryFactory(title=f"Entry {XSS}", body=f"Body {XSS}")
    fields = {
        "name": f"N{XSS}"[:64],
        "email_address": "x@example.com",
        "homepage": 'https://example.com/"><svg/onload=alert("xss-3")>',
        "comment": XSS,
    }
    response = post_comment(
        client, entry, fields, HTTP_USER_AGENT=XSS, HTTP_REFERER=f"javascript:{XSS}"
    )
    assert response.status_code == 303
    comment = Comment.objects.get()
    Comment.objects.update(status="published", akismet_payload=spam.build_payload(comment))
    CommentEvent.objects.create(comment=comment, kind=CommentEvent.Kind.CHECK_FAILED, detail=XSS)
    item = {"guid": "x", "title": escape(XSS), "author": escape(XSS), "description": escape(XSS)}
    item["link"] = "javascript:alert('xss-4')"
    feed = import_url(feed_server.serve("/xss.xml", rss([item], title=escape(XSS)))).feed
    broken = feed_server.redirect("/broken.xml", f"javascript:{XSS}", status=302)
    import_url(broken)
    return entry, comment, feed


def pages(entry, comment, feed):
    post, run = feed.posts.get(), ImportRun.objects.get(feed__url__endswith="/broken.xml")
    site = ["/", entry.get_absolute_url(), "/feeds/", feed.get_absolute_url()]
    search = "?q=%3Cscript%3Ealert(%22xss-q%22)%3C/script%3E"
    admin = [
        "/admin/",
        "/admin/blog/entry/",
        f"/admin/blog/entry/{entry.pk}/change/",
        "/admin/blog/comment/",
        "/admin/blog/comment/" + search,
        f"/admin/blog/comment/{comment.pk}/change/",
        "/admin/djangofeeds/feed/",
        "/admin/djangofeeds/feed/" + search,
        f"/admin/djangofeeds/feed/{feed.pk}/change/",
        f"/admin/djangofeeds/feed/{run.feed.pk}/change/",
        "/admin/djangofeeds/post/",
        f"/admin/djangofeeds/post/{post.pk}/change/",
        "/admin/djangofeeds/importrun/",
        f"/admin/djangofeeds/importrun/{run.pk}/change/",
    ]
    return site, admin


@pytest.mark.django_db
def test_stored_xss_impossible_on_every_page_and_in_the_admin(client, admin_client, feed_server):
    """Script stored in comments, their history, posts and import errors runs on no page."""
    entry, comment, feed = stored_payloads(client, feed_server)
    site, admin = pages(entry, comment, feed)

    for url, browser in [*((url, client) for url in site), *((url, admin_client) for url in admin)]:
        response = browser.get(url)
        assert response.status_code == 200, url
        assert injected(response.content.decode()) == [], url
    assert (
        "&lt;script&gt;alert(&quot;xss-1&quot;)"
        in client.get(entry.get_absolute_url()).content.decode()
    )
    rss_page = client.get("/blog/feed/").content.decode()
    assert "<script" not in rss_page and "&lt;script&gt;" in rss_page
