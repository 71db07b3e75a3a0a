# Full-text search of posts: each database's own structure (djangofeeds.search_schema).

from django.db import migrations

from djangofeeds.search import schema as search_schema


class Migration(migrations.Migration):

    dependencies = [
        ('djangofeeds', '0008_feed_url_lookup_index_mariadb'),
    ]

    operations = [
        # Outside the model: a generated column (PostgreSQL), FULLTEXT indexes
        # (MariaDB/MySQL) or an FTS5 table with triggers (SQLite), by vendor.
        # Not atomic of its own: MariaDB cannot run DDL in a transaction (PostgreSQL and
        # SQLite run the whole migration in one anyway).
        migrations.RunPython(search_schema.create, search_schema.drop, atomic=False),
    ]
