"""The Redis broker: kombu's transport, with one client per channel for its commands.

kombu's Redis channel builds a new ``redis.Redis`` for every command it sends
outside its polling loop: each publish, each acknowledgement. That client is
only a wrapper around the channel's connection pool, but building one (its
table of response callbacks) was a fifth to a third of a publish's CPU. Here each
channel keeps one, and builds another only when the channel's pool is
replaced (a reconnect). Nothing else changes: the client holds no connection
between commands (it takes one from the pool for each), so one client serves
every caller, threads included. ``install()`` makes ``redis://`` and
``rediss://`` URLs use this transport.

It also patches one crash of kombu 5.7.0 (issue 43; the same failure as
celery/kombu#582): when the broker connection is lost, Celery collects the
connection (which detaches the transport from it) and then closes it; closing
the channel restores its unacknowledged messages, and a channel whose pool is
gone builds a new one from ``transport.client``, now ``None``:
``AttributeError: 'NoneType' object has no attribute 'hostname'``, which Celery
does not take for a connection error, so the worker exits (kombu's own transport
as well: the client kept per channel above is not the cause). A task that
finishes later acks on that channel and meets the same error. Here such a
channel raises redis' ``ConnectionError`` instead: Celery ignores it while
closing, logs the ack it could not send, reconnects, and consumes again; the
unacknowledged message stays in Redis' ``unacked`` index, redelivered after
the visibility timeout. Drop ``_connparams`` below once kombu fixes this.
"""

from contextlib import contextmanager

from kombu.transport import TRANSPORT_ALIASES, redis
from redis.exceptions import ConnectionError as RedisConnectionError


class Channel(redis.Channel):
    _command_client = None

    @contextmanager
    def conn_or_acquire(self, client=None):
        """The given ``client``, else the channel's own (kombu's: a new one each time)."""
        if client:
            yield client
            return
        own = self._command_client
        if own is None or own.connection_pool is not self.pool:
            own = self._command_client = self._create_client()
        yield own

    def _connparams(self, asynchronous=False):
        """kombu's, but a channel whose connection was closed fails as a lost connection would."""
        transport = self.connection
        if transport is None or transport.client is None:
            raise RedisConnectionError("the broker connection of this channel is closed")
        return super()._connparams(asynchronous=asynchronous)


class Transport(redis.Transport):
    Channel = Channel


def install():
    """``redis://`` and ``rediss://`` brokers use ``Transport`` (looked up per connection)."""
    for scheme in ("redis", "rediss"):
        TRANSPORT_ALIASES[scheme] = f"{__name__}:Transport"
