# MariaDB enforces the unique feed URL (varchar(2000), over InnoDB's 3072-byte
# key limit in utf8mb4) with a hidden hash, which its planner does not use for
# lookups: every `url = %s` (the fence, subscribe, the claims of "Import now")
# would scan the table. A prefix index serves those lookups. Other databases
# index the column whole already: nothing to do there.

from django.db import migrations

INDEX = "feed_url_prefix_idx"


def create_index(apps, schema_editor):
    if schema_editor.connection.vendor == "mysql":
        # DDL commits at once on MariaDB/MySQL: outside a transaction (atomic=False below).
        schema_editor.execute(f"CREATE INDEX {INDEX} ON djangofeeds_feed (url(255))")


def drop_index(apps, schema_editor):
    if schema_editor.connection.vendor == "mysql":
        schema_editor.execute(f"DROP INDEX {INDEX} ON djangofeeds_feed")


class Migration(migrations.Migration):

    dependencies = [
        ('djangofeeds', '0007_websub'),
    ]

    operations = [
        migrations.RunPython(create_index, drop_index, atomic=False, elidable=False),
    ]
