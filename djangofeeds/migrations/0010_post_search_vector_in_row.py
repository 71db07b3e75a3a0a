# The search vector kept in the post's row where it fits (djangofeeds.search_schema).

from django.db import migrations

from djangofeeds.search import schema as search_schema


class Migration(migrations.Migration):

    dependencies = [
        ('djangofeeds', '0009_post_search'),
    ]

    operations = [
        # PostgreSQL only: the column is not a model field (migration 0009).
        migrations.RunPython(search_schema.keep_vector_in_row, search_schema.vector_as_before),
    ]
