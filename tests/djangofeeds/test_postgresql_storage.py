"""PostgreSQL's storage of posts: bodies compressed with LZ4 (migration 0016)."""

import pytest
from django.db import connection

from djangofeeds.models import Post
from tests.factories import PostFactory

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's own TOAST"),
]


def test_post_bodies_are_compressed_with_lz4():
    """A large body is stored compressed by LZ4, several times faster than pglz to write."""
    post = PostFactory(content="<p>" + "A long, compressible paragraph. " * 20_000 + "</p>")
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT pg_column_compression(content) FROM {Post._meta.db_table} WHERE id = %s",
            [post.pk],
        )
        assert cursor.fetchone() == ("lz4",)
