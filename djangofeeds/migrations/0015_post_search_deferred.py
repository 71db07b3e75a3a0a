# The search vector kept by a trigger an import can defer (djangofeeds.search.schema).

from django.db import migrations

from djangofeeds.search import schema as search_schema


class Migration(migrations.Migration):

    dependencies = [
        ('djangofeeds', '0014_importrun_attempts'),
    ]

    operations = [
        # PostgreSQL only: the column is not a model field (migration 0009).
        migrations.RunPython(search_schema.defer_indexing, search_schema.index_inline),
    ]
