"""What every lock backend answers, and the error it raises when its store cannot be reached."""

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from django.core.cache import caches

T = TypeVar("T")

# One operation of ``together``: ``(name, key, *args)``, name one of add, renew, delete, get.
Operation = tuple[Any, ...]
# How a memcached reply (its words) becomes an answer, given the client that read it.
ReplyReader = Callable[[list[bytes], Any], Any]


class LockUnavailable(Exception):
    """The lock's backend cannot be reached: nobody can know whether the lock is held."""


class LockBackend(Protocol):
    """What a ``CacheLock`` asks of its backend; each class below answers it.

    ``add`` and ``renew`` return the proof of ownership (None: not taken, not
    held), whose type is the backend's own; ``renew`` and ``delete`` take it back.
    """

    using: str

    def add(self, key: str, token: str, expire: int) -> Any: ...

    def renew(self, key: str, token: str, version: Any, expire: int) -> Any: ...

    def delete(self, key: str, token: str, version: Any) -> bool: ...

    def together(self, operations: Sequence[Operation]) -> list[Any]: ...


class OneAtATime:
    """``together`` without pipelining: each operation in turn, one round trip each."""

    using: str

    def together(self, operations: Sequence[Operation]) -> list[Any]:
        return [getattr(self, name)(*args) for name, *args in operations]

    def get(self, key: str) -> Any:
        return caches[self.using].get(key)


class GenericCache(OneAtATime):
    """Any other cache: atomic add where the backend's is; release and renew are get-then-act."""

    def __init__(self, using: str) -> None:
        self.using = using

    def add(self, key: str, token: str, expire: int) -> str | None:
        return token if caches[self.using].add(key, token, expire) else None

    def renew(self, key: str, token: str, version: str, expire: int) -> str | None:
        cache = caches[self.using]
        return token if cache.get(key) == token and cache.touch(key, expire) else None

    def delete(self, key: str, token: str, version: str) -> bool:
        cache = caches[self.using]
        # Not atomic: the key may change hands between get and delete.
        return cache.get(key) == token and cache.delete(key)
