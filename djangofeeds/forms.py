"""The admin's form for adding a feed: a page's URL gives the feed it links to."""

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from djangofeeds.discovery import finder
from djangofeeds.models import Feed, InvalidFeedURL


class FeedAddForm(forms.ModelForm):
    """Adds the feed at a URL, or the feed a page links to; a page with several offers a choice.

    After a valid ``url``, ``found`` holds the ``djangofeeds.discovery.finder.Discovery``.
    """

    # Typed without a scheme: https, as the admin's other URL fields (Django 6's default).
    url = forms.URLField(label=_("URL"), assume_scheme="https")
    # Hidden until a page links to several feeds; then a list to choose from.
    feed_choice = forms.ChoiceField(label=_("Feed"), required=False, widget=forms.HiddenInput)

    class Meta:
        model = Feed
        fields = ["url"]

    def clean_url(self):
        url = self.cleaned_data["url"]
        try:
            self.found = finder.find(url)
        except InvalidFeedURL as exc:
            raise ValidationError(str(exc)) from exc
        feeds = self.found.feeds
        if len(feeds) == 1:
            return feeds[0].url
        field = self.fields["feed_choice"]
        field.widget = forms.RadioSelect()
        field.choices = [(link.url, f"{link.label} ({link.url})") for link in feeds]
        # The page is read again when the choice comes back: the choice must be on it.
        chosen = self.data.get(self.add_prefix("feed_choice"))
        if chosen in {link.url for link in feeds}:
            return chosen
        raise ValidationError(
            ngettext(
                "%(page)s links to %(count)d feed: choose one below, then save again.",
                "%(page)s links to %(count)d feeds: choose one below, then save again.",
                len(feeds),
            )
            % {"page": self.found.page, "count": len(feeds)}
        )
