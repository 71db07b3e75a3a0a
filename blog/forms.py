"""The comment form: explicit fields, length limits and a honeypot."""

from django import forms
from django.utils.translation import gettext_lazy as _

from blog.models import Comment
from blog.spam import HONEYPOT_FIELD

MAX_COMMENT_LENGTH = 5000


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
        fields = ["name", "email_address", "homepage", "comment"]
        # Browsers fill these in for the visitor (autocomplete tokens of the HTML spec).
        widgets = {
            "name": forms.TextInput(attrs={"autocomplete": "name"}),
            "email_address": forms.EmailInput(attrs={"autocomplete": "email"}),
        }
        help_texts = {"email_address": _("Never shown on the page.")}
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

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Hidden from people by the template; bots that fill every field fill it.
        self.fields[HONEYPOT_FIELD] = forms.CharField(required=False, label=_("Leave this empty"))

    @property
    def is_bot(self):
        # Any value counts: a bot that sends the field twice, the last one
        # empty, is still a bot (``data.get`` would see only the last one).
        values = self.data.getlist(HONEYPOT_FIELD) if hasattr(self.data, "getlist") else []
        values = values or [self.data.get(HONEYPOT_FIELD, "")]
        return any(str(value).strip() for value in values)
