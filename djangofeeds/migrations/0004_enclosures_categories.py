"""Enclosures, categories and pruned-post tombstones; the hourly cleanup in the beat schedule.

Also the indexes the admin changelists filter and sort by.
"""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models

CLEANUP_TASK = "djangofeeds.tasks.cleanup"
CLEANUP_NAME = "djangofeeds: prune old posts, import runs and task results"


def create_cleanup_schedule(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    every_hour, _ = IntervalSchedule.objects.get_or_create(every=1, period="hours")
    PeriodicTask.objects.get_or_create(
        name=CLEANUP_NAME,
        defaults={
            "task": CLEANUP_TASK,
            "interval": every_hour,
            # A copy that waited for an hour behind a backlog is dropped: the next one comes.
            "expire_seconds": 3000,
            "description": "Keeps DJANGOFEEDS_KEEP_POSTS posts per feed, the import runs of the "
            "last DJANGOFEEDS_KEEP_RUNS_DAYS days (and always the last "
            "DJANGOFEEDS_KEEP_RUNS_PER_FEED of each feed), and task results younger than "
            "CELERY_RESULT_EXPIRES. Deletes in bounded batches.",
        },
    )


def remove_cleanup_schedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=CLEANUP_NAME).delete()


class Migration(migrations.Migration):

    dependencies = [
        ('djangofeeds', '0003_posts_undated_last_and_fetchable_urls'),
        ('django_celery_beat', '0019_alter_periodictasks_options'),
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
        migrations.RunPython(create_cleanup_schedule, remove_cleanup_schedule),
    ]
