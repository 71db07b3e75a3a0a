"""project.redis_broker: one Redis client per channel for its commands, on a real Redis."""

import redis
from kombu import Connection, Queue

from project.redis_broker import Transport

QUEUE = Queue("redis-broker-test")


def test_redis_urls_use_the_one_client_transport(redis_server):
    with Connection(redis_server.url) as conn:
        assert isinstance(conn.transport, Transport)
    with Connection(redis_server.url.replace("redis://", "rediss://", 1)) as conn:
        assert isinstance(conn.transport, Transport)


def test_publishes_and_acks_share_one_client_and_every_message_arrives(redis_server, monkeypatch):
    """100 publishes and their acks build one client (kombu built one per command); a
    reconnect (a new pool) builds the next one; no message is lost."""
    built = []
    real_init = redis.Redis.__init__

    def counting_init(self, *args, **kwargs):
        built.append(kwargs.get("connection_pool"))
        real_init(self, *args, **kwargs)

    with Connection(redis_server.url) as conn:
        channel = conn.default_channel
        producer = conn.Producer(channel)
        producer.publish({"n": -1}, routing_key=QUEUE.name, declare=[QUEUE])  # warm
        monkeypatch.setattr(redis.Redis, "__init__", counting_init)
        for n in range(100):
            producer.publish({"n": n}, routing_key=QUEUE.name, declare=[QUEUE])
        assert built == []  # the client of the warm-up publish served them all

        channel._disconnect_pools()  # what kombu does when the connection is lost
        producer.publish({"n": 100}, routing_key=QUEUE.name, declare=[QUEUE])
        assert built == [channel.pool]

        received = []
        with conn.SimpleQueue(QUEUE.name) as queue:
            while len(received) < 102:
                message = queue.get(timeout=5)
                received.append(message.payload["n"])
                message.ack()
        assert sorted(received) == list(range(-1, 101))
