"""Categories of feeds and posts, as the documents name them."""

from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _


class Category(models.Model):
    """A feed's or a post's category: RSS ``<category domain>``, Atom ``term``/``scheme``."""

    name = models.CharField(_("name"), max_length=100)
    domain = models.CharField(
        _("domain"),
        max_length=500,
        blank=True,
        help_text=_("RSS domain or Atom scheme; often empty."),
    )

    class Meta:
        ordering = ["name", "domain"]
        verbose_name = _("category")
        verbose_name_plural = _("categories")
        constraints = [
            models.UniqueConstraint(fields=["name", "domain"], name="category_unique_name_domain")
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return f"{reverse('djangofeeds:post_list')}?category={self.pk}"
