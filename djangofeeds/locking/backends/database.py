"""Django's ``DatabaseCache`` table as a lock's store, written with conditional SQL."""

import base64
import pickle
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.db import DatabaseCache
from django.db import DatabaseError, IntegrityError, connections, router, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.utils import CursorWrapper

from djangofeeds.locking.backends.base import LockUnavailable, OneAtATime, T


class DatabaseRows(OneAtATime):
    """Django's ``DatabaseCache`` table, written with conditional SQL.

    The cache key is the table's primary key, so an INSERT is an atomic add; an
    expired row is taken over only by an UPDATE that still sees it expired.
    Values are stored as ``DatabaseCache`` stores them, so ``cache.get(key)``
    shows the owner's token.
    """

    def __init__(self, using: str) -> None:
        self.using = using

    def _run(
        self, key: str, work: Callable[[CursorWrapper, BaseDatabaseWrapper, str, str], T]
    ) -> T:
        cache = cast(DatabaseCache, caches[self.using])  # backend_for() saw a DatabaseCache
        key = cache.make_and_validate_key(key)
        db = router.db_for_write(cache.cache_model_class)
        connection = connections[db]
        table = connection.ops.quote_name(cache._table)  # type: ignore[attr-defined]
        try:
            with transaction.atomic(using=db), connection.cursor() as cursor:
                return work(cursor, connection, table, key)
        except DatabaseError as exc:
            raise LockUnavailable(f"cache table: {type(exc).__name__}: {exc}") from exc

    @staticmethod
    def _encode(token: str) -> str:
        return base64.b64encode(pickle.dumps(token, pickle.HIGHEST_PROTOCOL)).decode("latin1")

    @staticmethod
    def _when(connection: BaseDatabaseWrapper, seconds: float = 0) -> Any:
        moment = datetime.now(UTC if settings.USE_TZ else None) + timedelta(seconds=seconds)
        if not settings.USE_TZ:
            moment = moment.replace(tzinfo=None)
        return connection.ops.adapt_datetimefield_value(moment)

    def add(self, key: str, token: str, expire: int) -> str | None:
        value = self._encode(token)

        def add(
            cursor: CursorWrapper, connection: BaseDatabaseWrapper, table: str, key: str
        ) -> str | None:
            now, expires = self._when(connection), self._when(connection, expire)
            try:
                with transaction.atomic(using=connection.alias):
                    cursor.execute(
                        f"INSERT INTO {table} (cache_key, value, expires) VALUES (%s, %s, %s)",
                        [key, value, expires],
                    )
                return token
            except IntegrityError:
                cursor.execute(
                    f"UPDATE {table} SET value = %s, expires = %s"
                    " WHERE cache_key = %s AND expires < %s",
                    [value, expires, key, now],
                )
                return token if cursor.rowcount == 1 else None

        return self._run(key, add)

    def renew(self, key: str, token: str, version: str, expire: int) -> str | None:
        value = self._encode(token)

        def renew(
            cursor: CursorWrapper, connection: BaseDatabaseWrapper, table: str, key: str
        ) -> str | None:
            cursor.execute(
                f"UPDATE {table} SET expires = %s"
                " WHERE cache_key = %s AND value = %s AND expires >= %s",
                [self._when(connection, expire), key, value, self._when(connection)],
            )
            return token if cursor.rowcount == 1 else None

        return self._run(key, renew)

    def delete(self, key: str, token: str, version: str) -> bool:
        value = self._encode(token)

        def delete(
            cursor: CursorWrapper, connection: BaseDatabaseWrapper, table: str, key: str
        ) -> bool:
            cursor.execute(
                f"DELETE FROM {table} WHERE cache_key = %s AND value = %s AND expires >= %s",
                [key, value, self._when(connection)],
            )
            return cursor.rowcount == 1

        return self._run(key, delete)
