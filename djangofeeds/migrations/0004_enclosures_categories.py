"""Enclosures, categories and pruned-post tombstones (once also the cleanup's beat entry).

Also the indexes the admin changelists filter and sort by.
"""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models

# This migration used to depend on django-celery-beat and create the hourly
# cleanup's entry. The app no longer needs beat (a host may run without it):
# its schedule is data, djangofeeds.schedules.BEAT_SCHEDULE, and ``manage.py
# setup_schedules`` creates the editable beat entries, with the same names.
# The data step is gone rather than made conditional, so a fresh database gets
# the same entries whatever order the apps' migrations run in. A database that
# applied this keeps its rows (nothing deletes them, and setup_schedules leaves
# an existing entry as it is).


class Migration(migrations.Migration):

    dependencies = [
        ('djangofeeds', '0003_posts_undated_last_and_fetchable_urls'),
    ]

    operations = [
        migrations.CreateModel(
            name='Category',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=100)),
                ('domain', models.CharField(blank=True, help_text='RSS domain or Atom scheme; often empty.', max_length=500)),
            ],
            options={
                'verbose_name_plural': 'categories',
                'ordering': ['name', 'domain'],
            },
        ),
        migrations.CreateModel(
            name='Enclosure',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('url', models.URLField(max_length=2000, verbose_name='URL')),
                ('type', models.CharField(blank=True, help_text='MIME type, e.g. audio/mpeg.', max_length=100)),
                ('length', models.PositiveBigIntegerField(blank=True, help_text='Bytes, as the feed says; empty when unknown.', null=True)),
            ],
            options={
                'ordering': ['id'],
            },
        ),
        migrations.CreateModel(
            name='PrunedPost',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('guid_hash', models.CharField(max_length=64)),
                ('pruned_at', models.DateTimeField(default=django.utils.timezone.now)),
            ],
        ),
        migrations.AddIndex(
            model_name='importrun',
            index=models.Index(fields=['-started_at', '-id'], name='importrun_started_idx'),
        ),
        migrations.AddConstraint(
            model_name='category',
            constraint=models.UniqueConstraint(fields=('name', 'domain'), name='category_unique_name_domain'),
        ),
        migrations.AddField(
            model_name='feed',
            name='categories',
            field=models.ManyToManyField(blank=True, related_name='feeds', to='djangofeeds.category'),
        ),
        migrations.AddField(
            model_name='post',
            name='categories',
            field=models.ManyToManyField(blank=True, related_name='posts', to='djangofeeds.category'),
        ),
        migrations.AddIndex(
            model_name='feed',
            index=models.Index(fields=['is_active', 'error_count'], name='feed_errors_idx'),
        ),
        migrations.AddIndex(
            model_name='feed',
            index=models.Index(fields=['last_status'], name='feed_last_status_idx'),
        ),
        migrations.AddField(
            model_name='enclosure',
            name='post',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='enclosures', to='djangofeeds.post'),
        ),
        migrations.AddField(
            model_name='prunedpost',
            name='feed',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='pruned_posts', to='djangofeeds.feed'),
        ),
        migrations.AddConstraint(
            model_name='prunedpost',
            constraint=models.UniqueConstraint(fields=('feed', 'guid_hash'), name='prunedpost_unique_guid'),
        ),
    ]
