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
"""

from contextlib import contextmanager

from kombu.transport import TRANSPORT_ALIASES, redis


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


class Transport(redis.Transport):
    Channel = Channel


def install():
    """``redis://`` and ``rediss://`` brokers use ``Transport`` (looked up per connection)."""
    for scheme in ("redis", "rediss"):
        TRANSPORT_ALIASES[scheme] = f"{__name__}:Transport"
