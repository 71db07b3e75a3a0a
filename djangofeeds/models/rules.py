"""Keep and block rules: which stored posts the pages and output feeds leave out.

The matching is ``djangofeeds.rules``'; a rule here is data an operator edits in the admin.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from djangofeeds.models.categories import Category
from djangofeeds.models.feeds import Feed
from djangofeeds.rules.matching import pattern_problem


class Rule(models.Model):
    class Field(models.TextChoices):
        TITLE = "title", _("title")
        CONTENT = "content", _("content")
        AUTHOR = "author", _("author")
        CATEGORY = "category", _("category")
        LINK = "link", _("link")

    class Match(models.TextChoices):
        CONTAINS = "contains", _("contains (any case)")
        REGEX = "regex", _("regular expression (RE2)")

    class Action(models.TextChoices):
        BLOCK = "block", _("block the posts it matches")
        KEEP = "keep", _("keep only the posts it matches")

    feed = models.ForeignKey(
        Feed,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="rules",
        verbose_name=_("feed"),
        help_text=_("Only this feed's posts; empty: see category."),
    )
    category = models.ForeignKey(
        Category,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="rules",
        verbose_name=_("feeds of category"),
        help_text=_("Only the posts of the feeds in this category; both empty: every post."),
    )
    field = models.CharField(_("field"), max_length=10, choices=Field.choices)
    match = models.CharField(_("match"), max_length=10, choices=Match.choices)
    pattern = models.CharField(_("pattern"), max_length=500)
    action = models.CharField(_("action"), max_length=10, choices=Action.choices)
    is_active = models.BooleanField(_("active"), default=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["id"]
        verbose_name = _("rule")
        verbose_name_plural = _("rules")
        constraints = [
            models.CheckConstraint(
                condition=Q(feed__isnull=True) | Q(category__isnull=True), name="rule_one_scope"
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_action_display()}: {self.field} {self.match} “{self.pattern}”"

    @property
    def scope(self) -> str:
        return "feed" if self.feed_id else "category" if self.category_id else "global"

    def clean(self) -> None:
        if self.feed_id and self.category_id:
            raise ValidationError(_("A rule applies to one feed or to one category, not both."))
        problem = pattern_problem(self.match, self.pattern)
        if problem:
            raise ValidationError({"pattern": problem})
