"""GET /healthz: 200 when database, cache and broker answer; 503 naming what failed."""

import time

import pytest

pytestmark = pytest.mark.django_db


def test_healthz_ok_on_configured_services(client):
    """With the configured database, cache and broker up, every check passes."""
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["failed"] == []
    assert set(body["checks"]) == {"database", "cache", "broker"}
    assert all(check["ok"] for check in body["checks"].values())


def test_healthz_ok_on_memcached_and_redis(client, memcached_cache, redis_server, use_broker):
    """The production parts, real memcached and Redis, pass the checks."""
    use_broker(redis_server.url)
    response = client.get("/healthz")
    assert response.status_code == 200, response.json()


def test_healthz_names_cache_when_memcached_stops(client, memcached_cache):
    """Stopping memcached turns the answer into 503 naming the cache, and only it."""
    assert client.get("/healthz").status_code == 200
    memcached_cache.stop()
    for _ in range(2):  # first a refused connection, then pymemcache's "dead server" defaults
        response = client.get("/healthz")
        assert response.status_code == 503
        assert response.json()["failed"] == ["cache"]


@pytest.mark.serial  # a timing bound: not beside other tests (xdist)
def test_healthz_recovers_when_memcached_returns(client, settings, memcached_cache):
    """Once memcached is back, the cache check passes again within pymemcache's dead_timeout."""
    memcached_cache.stop()
    for _ in range(4):  # enough failures for pymemcache to mark the server dead
        assert client.get("/healthz").status_code == 503
        time.sleep(settings.MEMCACHED_OPTIONS["retry_timeout"])
    memcached_cache.start()
    deadline = time.monotonic() + settings.MEMCACHED_OPTIONS["dead_timeout"] + 3
    while client.get("/healthz").status_code != 200:
        assert time.monotonic() < deadline, "cache still reported down after memcached returned"
        time.sleep(0.2)


def test_healthz_names_broker_when_redis_stops(client, redis_server, use_broker):
    """Stopping the Redis broker turns the answer into 503 naming the broker."""
    use_broker(redis_server.url)
    assert client.get("/healthz").status_code == 200
    redis_server.stop()
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["failed"] == ["broker"]
    assert response.json()["checks"]["broker"]["ok"] is False


def test_healthz_reveals_no_connection_details(client, redis_server, use_broker):
    """A failure names the part and the kind of error, never hosts, ports or URLs."""
    use_broker(redis_server.url)
    redis_server.stop()
    text = client.get("/healthz").content.decode()
    assert str(redis_server.port) not in text
    assert "redis://" not in text
