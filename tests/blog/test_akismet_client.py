"""blog/akismet_client.py: the client against the stand-in, its key check, the health flag."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from akismet import APIKeyError, CheckResponse, ProtocolError, RequestError

from blog import akismet_client
from localservers.akismet_server import AkismetStandIn
from tests.blog.helpers import KEY
from tests.factories import comment_payload as payload

pytestmark = pytest.mark.django_db


def comment_check(data):
    return akismet_client.call(lambda client: client.comment_check(**data))


def test_akismet_key_is_verified_once_per_process(akismet_settings, akismet):
    """Three checks make one verify-key request, sent to AKISMET_API_URL with our User-Agent."""
    for _ in range(3):
        comment_check(payload())
    assert len(akismet.calls("verify-key")) == 1
    assert len(akismet.calls("comment-check")) == 3
    agent = akismet.calls("verify-key")[0].headers["User-Agent"]
    assert agent.startswith("djangofeeds-blog | akismet.py/")


def test_akismet_api_url_with_a_path_prefix(akismet_settings, akismet):
    """AKISMET_API_URL may carry a path (a proxy): requests go below it."""
    akismet_settings.AKISMET_API_URL = akismet.url + "/proxy"
    with pytest.raises(RequestError, match="404"):  # the stand-in has no /proxy
        comment_check(payload())
    assert akismet.requests[0].path == "/proxy/1.1/verify-key"


@pytest.mark.parametrize("status", [500, 503])
def test_akismet_server_error_is_a_request_error(akismet_settings, akismet, status):
    """A 5xx answer raises RequestError (which the task retries)."""
    comment_check(payload())
    akismet.fail_next(1, status)
    with pytest.raises(RequestError, match=str(status)):
        comment_check(payload())


@pytest.mark.serial  # a timing bound: not beside other tests (xdist)
def test_akismet_timeout_is_a_request_error(akismet_settings, akismet):
    """An answer slower than BLOG_AKISMET_TIMEOUT raises RequestError after about that long."""
    comment_check(payload())
    akismet.hang, akismet.hang_seconds = True, 3
    started = time.monotonic()
    with pytest.raises(RequestError, match="timed out"):
        comment_check(payload())
    assert time.monotonic() - started < 2.5  # the stand-in would answer after 3 s


def test_akismet_off_protocol_answer_is_a_protocol_error(akismet_settings, akismet):
    """A 200 answer that is not Akismet's raises ProtocolError."""
    comment_check(payload())
    akismet.garbage = True
    with pytest.raises(ProtocolError):
        comment_check(payload())


@pytest.mark.project_wiring
def test_invalid_key_is_recorded_for_healthz_and_not_asked_again(akismet_settings, akismet, client):
    """A refused key raises APIKeyError, flags /healthz, and is not re-verified on every call."""
    akismet_settings.AKISMET_API_KEY = "wrong-key"
    for _ in range(3):
        with pytest.raises(APIKeyError):
            comment_check(payload())
    assert len(akismet.calls("verify-key")) == 1
    assert akismet.calls("comment-check") == []
    assert akismet_client.is_misconfigured()
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
    assert comment_check(payload()) == CheckResponse.HAM
    assert not akismet_client.is_misconfigured()


def test_key_revoked_after_verification_is_recorded(akismet_settings, akismet):
    """comment-check answering "invalid" (key revoked later) raises and flags it too."""
    comment_check(payload())
    akismet.keys.clear()
    with pytest.raises(APIKeyError):
        comment_check(payload())
    assert akismet_client.is_misconfigured()


@pytest.mark.project_wiring
def test_healthz_spam_check_only_with_akismet(client, akismet_settings):
    """With a key, /healthz lists a passing "spam" check; with the local rules, none."""
    assert client.get("/healthz").json()["checks"]["spam"]["ok"] is True
    akismet_settings.AKISMET_API_KEY = ""
    assert "spam" not in client.get("/healthz").json()["checks"]


def test_a_burst_of_checks_reuses_every_connection_of_the_burst_before(settings):
    """50 checks at once, twice, on an HTTP/1.1 stand-in (as Akismet): the second burst opens
    no connection (httpx keeps only 20 idle ones unless told otherwise)."""
    stand_in = AkismetStandIn(keys=[KEY], keep_alive=True).start()
    settings.AKISMET_API_KEY, settings.AKISMET_API_URL = KEY, stand_in.url
    akismet_client.reset_client()
    payloads = [payload() for _ in range(50)]  # made here: the test's database connection
    try:
        comment_check(payloads[0])  # the key checked here: its cache write on the same connection
        stand_in.gather = threading.Barrier(50)  # no check answered before all 50 are in
        with ThreadPoolExecutor(50) as pool:
            list(pool.map(comment_check, payloads))
            list(pool.map(comment_check, payloads))
        checks = stand_in.calls("comment-check")
    finally:
        akismet_client.reset_client()
        stand_in.stop()
    first = {check.peer for check in checks[1:51]}
    second = {check.peer for check in checks[51:]}
    assert len(first) == 50 and len(second) == 50
    assert second <= first
