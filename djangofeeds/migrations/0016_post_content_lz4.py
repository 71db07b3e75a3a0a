# PostgreSQL: post bodies compressed with LZ4 instead of pglz when the server has it
# (PostgreSQL 14 and later, built with LZ4, as Debian's and the official images are).
# A first import of a real 681 KiB feed spent about 10 ms of its store in pglz; LZ4
# compresses such HTML as well, several times faster. Values already stored keep
# their compression; other databases are unchanged.

from django.db import migrations, transaction
from django.db.utils import DatabaseError


def content_compression(method):
    def change(apps, schema_editor):
        connection = schema_editor.connection
        if connection.vendor != "postgresql" or connection.pg_version < 140000:
            return
        table = connection.ops.quote_name(apps.get_model("djangofeeds", "Post")._meta.db_table)
        statement = f'ALTER TABLE {table} ALTER COLUMN "content" SET COMPRESSION {method}'
        try:
            # A savepoint: a refusal ends here, not the migration's transaction.
            with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
                cursor.execute(statement)
        except DatabaseError:  # a server built without LZ4: pglz, as before
            pass

    return change


class Migration(migrations.Migration):

    dependencies = [
        ("djangofeeds", "0015_post_search_deferred"),
    ]

    operations = [
        migrations.RunPython(content_compression("lz4"), content_compression("default")),
    ]
