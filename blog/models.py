"""Blog entries."""

from django.db import models
from django.urls import reverse
from django.utils import timezone


class EntryQuerySet(models.QuerySet):
    def published(self):
        """Entries a visitor may see: published, and not dated in the future."""
        return self.filter(is_published=True, pub_date__lte=timezone.now())


class Entry(models.Model):
    title = models.CharField(max_length=200)
    slug = models.SlugField(max_length=200, unique=True)
    body = models.TextField()
    pub_date = models.DateTimeField("published", default=timezone.now, db_index=True)
    is_published = models.BooleanField("published?", default=False)

    objects = EntryQuerySet.as_manager()

    class Meta:
        ordering = ["-pub_date"]
        verbose_name_plural = "entries"

    def __str__(self):
        return self.title

    def get_absolute_url(self):
        return reverse("blog:entry_detail", kwargs={"slug": self.slug})
