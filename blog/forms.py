"""The comment form: explicit fields, length limits and a honeypot."""

import unicodedata

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from blog import conf
from blog.models import Comment
from blog.spam import HONEYPOT_FIELD
from djangofeeds_blog_shared import query

MAX_COMMENT_LENGTH = 5000

# Line breaks and other control characters have no place in a name, an address or
# a URL: "Eve\r\nBcc: victim@example.com" would become a mail header, and the
# bidirectional overrides make "Eve\u202egnp.exe" read as another name. Joiners
# (U+200C, U+200D) stay: names and emoji need them.
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
ONE_LINE_FIELDS = ("name", "email_address", "homepage")


def refuse_control_characters(value):
    """A validator for one-line fields: no control characters, line separators or bidi overrides."""
    for char in str(value):
        if unicodedata.category(char) in ("Cc", "Zl", "Zp") or char in BIDI_CONTROLS:
            raise ValidationError(
                _(
                    "Please remove the invisible character %(char)s: line breaks and control "
                    "characters cannot be used here."
                ),
                code="control_character",
                params={"char": f"U+{ord(char):04X}"},
            )


class CommentForm(forms.ModelForm):
    """A visitor's comment; ``is_bot`` is True when the hidden honeypot field was filled."""

    comment = forms.CharField(
        label=_("Comment"),
        max_length=MAX_COMMENT_LENGTH,
        widget=forms.Textarea(attrs={"rows": 6}),
        error_messages={
            "required": _("Please write a comment."),
            "max_length": _(
                "Please keep your comment under %(limit_value)d characters (it has %(show_value)d)."
            ),
        },
    )

    homepage = forms.URLField(
        required=False,
        max_length=200,
        assume_scheme="https",
        label=_("Home page"),
        widget=forms.URLInput(attrs={"autocomplete": "url"}),
        error_messages={"invalid": _("Please give a full URL, e.g. https://example.com/.")},
    )

    class Meta:
        model = Comment
        fields = ["name", "email_address", "homepage", "comment", "notify_replies"]
        # Browsers fill these in for the visitor (autocomplete tokens of the HTML spec).
        widgets = {
            "name": forms.TextInput(attrs={"autocomplete": "name"}),
            "email_address": forms.EmailInput(attrs={"autocomplete": "email"}),
        }
        help_texts = {"email_address": _("Never shown on the page.")}
        labels = {"notify_replies": _("Email me when someone replies to my comment")}
        error_messages = {
            "name": {
                "required": _("Please give your name."),
                "max_length": _("Please shorten your name to %(limit_value)d characters."),
            },
            "email_address": {
                "required": _("Please give your email address (it is not shown)."),
                "invalid": _("Please give a valid email address."),
            },
        }

    # The comment replied to: a hidden field, so that replying works without JavaScript.
    parent = forms.IntegerField(
        required=False, min_value=1, max_value=query.MAX_ID, widget=forms.HiddenInput
    )

    def __init__(self, *args, entry=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.entry = entry
        # Hidden from people by the template; bots that fill every field fill it.
        self.fields[HONEYPOT_FIELD] = forms.CharField(required=False, label=_("Leave this empty"))
        for name in ONE_LINE_FIELDS:
            self.fields[name].validators.append(refuse_control_characters)

    def clean_parent(self):
        """The published comment of this entry replied to, or None; refused past the depth limit."""
        parent_id = self.cleaned_data.get("parent")
        if parent_id is None:
            return None
        parent = reply_target(self.entry, parent_id)
        if parent is None:
            raise ValidationError(
                _("The comment you are replying to cannot be found. Please reply to another one."),
                code="invalid_parent",
            )
        if thread_depth(parent) >= conf.BLOG_MAX_THREAD_DEPTH:
            raise ValidationError(
                _(
                    "This thread cannot go deeper than %(limit)d levels: please reply to an "
                    "earlier comment of the thread."
                ),
                code="too_deep",
                params={"limit": conf.BLOG_MAX_THREAD_DEPTH},
            )
        return parent

    def save(self, commit=True):
        self.instance.parent = self.cleaned_data.get("parent")
        return super().save(commit)

    @property
    def is_bot(self):
        # Any value counts: a bot that sends the field twice, the last one
        # empty, is still a bot (``data.get`` would see only the last one).
        values = self.data.getlist(HONEYPOT_FIELD) if hasattr(self.data, "getlist") else []
        values = values or [self.data.get(HONEYPOT_FIELD, "")]
        return any(str(value).strip() for value in values)


def reply_target(entry, parent_id):
    """The published comment ``parent_id`` of ``entry``, or None."""
    if entry is None:
        return None
    # By its key alone, then checked: filtered on the entry too, PostgreSQL could take
    # the entry's index and read all its comments (a table growing faster than its
    # statistics: a reply POST took twice a comment's on an entry of 1,900 comments).
    # What the checks and the form's heading read: not its text, nor the Akismet payload.
    try:
        comment = Comment.objects.only("entry_id", "status", "parent_id", "name").get(pk=parent_id)
    except Comment.DoesNotExist:
        return None
    published = comment.status == Comment.Status.PUBLISHED
    return comment if published and comment.entry_id == entry.pk else None


def thread_depth(comment):
    """How deep ``comment`` sits in its thread: 1 at the top level.

    One query per level, bounded by BLOG_MAX_THREAD_DEPTH; a loop (made in the
    admin) stops the walk rather than hanging it.
    """
    depth, seen = 1, {comment.pk}
    parent_id = comment.parent_id
    while parent_id is not None and parent_id not in seen:
        seen.add(parent_id)
        depth += 1
        parent_id = Comment.objects.filter(pk=parent_id).values_list("parent_id", flat=True).first()
    return depth
