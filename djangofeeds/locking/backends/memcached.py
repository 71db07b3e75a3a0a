"""Memcached's meta protocol: a lock's add, renew and delete checked by CAS, pipelined."""

from collections.abc import Callable, Sequence
from typing import Any

from django.core.cache import caches

from djangofeeds.locking.backends.base import LockUnavailable, Operation, ReplyReader


class MemcachedMeta:
    """memcached >= 1.6 meta commands: add, renew and delete, each checked against the CAS.

    ``ms <key> <len> T<ttl> ME c`` adds and returns the item's CAS in one round
    trip; ``md <key> C<cas>`` deletes only that version. Owner-checked at the
    cost of the unsafe add + delete. ``together`` sends several commands (and
    ``mg`` reads of the cache's own values) in one round trip per server.
    """

    # pymemcache's, once needed (an optional dependency, without types).
    errors: Any = None
    rendezvous: Any = None
    read_line: Any = None
    read_value: Any = None

    def __init__(self, using: str) -> None:
        if MemcachedMeta.rendezvous is None:
            # Only a memcached lock imports pymemcache (an optional dependency),
            # once: a lock is made per import, and an import statement costs.
            from pymemcache.client.base import _readline, _readvalue
            from pymemcache.client.rendezvous import RendezvousHash
            from pymemcache.exceptions import MemcacheError

            MemcachedMeta.errors = (OSError, MemcacheError)
            MemcachedMeta.read_line, MemcachedMeta.read_value = _readline, _readvalue
            MemcachedMeta.rendezvous = RendezvousHash
        self.using = using

    def together(self, operations: Sequence[Operation]) -> list[Any]:
        """Run ``operations`` (``(name, key, *args)`` of add, renew, delete, get); their answers.

        The commands for one server go in one write and their replies are read
        back in order: one round trip per server instead of one per command.
        """
        # The cache object is per thread (Django's cache handler), and so is its
        # pymemcache client: the lease keeper gets its own connection.
        cache = caches[self.using]
        by_server: dict[Any, list[tuple[int, bytes, ReplyReader]]] = {}
        for index, (name, key, *args) in enumerate(operations):
            key = cache.make_and_validate_key(key)
            client = self._client(cache, key)
            command, answer = getattr(self, f"_{name}")(key.encode(), *args)
            by_server.setdefault(client, []).append((index, command, answer))
        answers: list[Any] = [None] * len(operations)
        try:
            for client, commands in by_server.items():
                replies = self.exchange(client, [command for _, command, _ in commands])
                for (index, _, answer), reply in zip(commands, replies, strict=True):
                    answers[index] = answer(reply, client)
        # socket.timeout is an OSError. Nothing broader: a Celery soft time
        # limit (an Exception) must reach the task, not pass for a dead server.
        except self.errors as exc:
            raise LockUnavailable(f"memcached: {type(exc).__name__}: {exc}") from exc
        return answers

    def add(self, key: str, token: str, expire: int) -> bytes | None:
        return self._one(self._add, key, token, expire)

    def renew(self, key: str, token: str, cas: bytes, expire: int) -> bytes | None:
        return self._one(self._renew, key, token, cas, expire)

    def delete(self, key: str, token: str, cas: bytes) -> bool:
        return self._one(self._delete, key, token, cas)

    def _one(self, build: Callable[..., tuple[bytes, ReplyReader]], key: str, *args: Any) -> Any:
        """One command on its own (a single lock): shorter than ``together``, which costs
        a single acquire and release about 22 µs more (bench/run.py lock)."""
        cache = caches[self.using]
        key = cache.make_and_validate_key(key)
        client = self._client(cache, key)
        command, answer = build(key.encode(), *args)
        try:
            reply = client.raw_command(command)
        except self.errors as exc:  # see together()
            raise LockUnavailable(f"memcached: {type(exc).__name__}: {exc}") from exc
        return answer(reply.split(), client)

    def _client(self, cache: Any, key: str) -> Any:
        """The pymemcache client of ``key``'s server, as HashClient picks it for cache.add()."""
        hashed = cache._cache
        if type(hashed.hasher) is self.rendezvous:
            one_server_first(hashed.hasher)
        client = hashed._get_client(key)
        if client is None:
            raise LockUnavailable("no memcached server is available")
        return client

    @staticmethod
    def _add(key: bytes, token: str, expire: int) -> tuple[bytes, ReplyReader]:
        value = token.encode()
        return b"ms %s %d T%d ME c\r\n%s" % (key, len(value), expire, value), stored

    @staticmethod
    def _renew(key: bytes, token: str, cas: bytes, expire: int) -> tuple[bytes, ReplyReader]:
        value = token.encode()
        command = b"ms %s %d T%d MS C%s c\r\n%s" % (key, len(value), expire, cas, value)
        return command, stored

    @staticmethod
    def _delete(key: bytes, token: str, cas: bytes) -> tuple[bytes, ReplyReader]:
        return b"md %s C%s" % (key, cas), lambda reply, client: reply[0] == b"HD"

    @staticmethod
    def _get(key: bytes) -> tuple[bytes, ReplyReader]:
        """A value the cache itself stored (``cache.set``), decoded as ``cache.get`` would."""

        def value(reply: list[bytes], client: Any) -> Any:
            if reply[0] != b"VA":
                return None  # EN: no such key
            flags = next((int(flag[1:]) for flag in reply[2:-1] if flag.startswith(b"f")), 0)
            return client.serde.deserialize(key, reply[-1], flags)

        return b"mg %s f v" % key, value

    @classmethod
    def exchange(cls, client: Any, commands: list[bytes]) -> list[list[bytes]]:
        """Send ``commands`` to one pymemcache client in one write; one reply each, split in words.

        A value (``VA <size>``) is appended to its reply's words. The connection
        is closed on any error: unread replies must not answer the next command.
        """
        pool = getattr(client, "client_pool", None)  # a PooledClient (use_pooling)
        if pool is not None:
            with pool.get_and_release(destroy_on_fail=True) as pooled:
                return cls.exchange(pooled, commands)
        if client.sock is None:
            client._connect()
        try:
            client.sock.sendall(b"".join(command + b"\r\n" for command in commands))
            replies, buffer = [], b""
            for _ in commands:
                buffer, line = cls.read_line(client.sock, buffer)
                client._raise_errors(line, line[:2])
                words = line.split()
                if words[0] == b"VA":
                    buffer, value = cls.read_value(client.sock, buffer, int(words[1]))
                    words.append(value)
                replies.append(words)
            return replies
        except BaseException:
            client.close()
            raise


def stored(reply: list[bytes], client: object) -> bytes | None:
    """A meta ``ms`` reply: the new CAS if the item was stored, else None."""
    return cas_of(reply) if reply[0] == b"HD" else None


def one_server_first(hasher: Any) -> None:
    """Make ``hasher`` (pymemcache's RendezvousHash) pick its only server without hashing.

    Rendezvous hashing scores every server with murmur3, in pure Python (about
    40 µs a key); with one server it always picks that one. An import names
    five keys (its lock, its host's slot and Retry-After, each lease taken and
    given back), so the score is skipped: the same server for every key, and
    with several servers the same scores. The cache's own calls share the
    hasher.
    """
    if "get_node" in vars(hasher):
        return
    scored = hasher.get_node
    hasher.get_node = lambda key: hasher.nodes[0] if len(hasher.nodes) == 1 else scored(key)


def cas_of(reply: list[bytes]) -> bytes:
    """The CAS token from a meta reply such as ``HD c42``."""
    for flag in reply[1:]:
        if flag.startswith(b"c"):
            return flag[1:]
    raise LockUnavailable(f"memcached sent no CAS in {b' '.join(reply)!r}: is it older than 1.6?")
