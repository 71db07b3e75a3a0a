# ruff: noqa: RUF001 -- French typography: the apostrophe is U+2019, as in the catalogue.
"""A podcast's details on the pages (djangofeeds/includes/episode.html) and in the admin."""

import pytest
from django.test import override_settings
from django.urls import reverse
from django.utils import translation

from djangofeeds.templatetags.feed_content import duration
from tests.factories import FeedFactory, PostFactory
from tests.support.pages import attribute, elements, template_origins

pytestmark = pytest.mark.django_db

EPISODE = {
    "duration": 3723,
    "image_url": "https://cdn.example.com/qs/12.jpg",
    "season": 2,
    "episode": 5,
    "explicit": True,
    "transcript_url": "https://cdn.example.com/qs/12.html",
    "transcript_type": "text/html",
    "chapters_url": "https://cdn.example.com/qs/12-chapters.json",
}


def test_post_page_shows_the_episodes_artwork_details_and_links(client):
    """Artwork (alt text, sized by its class, lazy, no referrer), "Season 2, episode 5", the
    duration as H:MM:SS, "Explicit", and links to the transcript and the chapters."""
    post = PostFactory(title="Acks late, and why", **EPISODE)

    response = client.get(post.get_page_url())

    page = response.text
    (artwork,) = elements(page, "img", src=EPISODE["image_url"])
    assert attribute(artwork, "alt") == "Episode artwork"
    assert attribute(artwork, "class") == "artwork" and attribute(artwork, "loading") == "lazy"
    assert attribute(artwork, "referrerpolicy") == "no-referrer"
    assert "Season 2, episode 5" in page
    assert elements(page, "time", datetime="PT3723S")
    assert ">1:02:03</time>" in page
    assert ">Explicit</li>" in page
    (transcript,) = elements(page, "a", href=EPISODE["transcript_url"])
    assert attribute(transcript, "type") == "text/html" and "Transcript" in page
    assert elements(page, "a", href=EPISODE["chapters_url"]) and ">Chapters</a>" in page
    assert "djangofeeds/includes/episode.html" in template_origins(response)


def test_post_page_shows_only_the_details_an_episode_has(client):
    """An episode number alone, a short duration as M:SS, no explicit marker when the feed
    says clean; a post without any detail shows no episode block at all."""
    episode = PostFactory(episode=7, duration=1200, explicit=False)
    article = PostFactory()

    page = client.get(episode.get_page_url()).text
    plain = client.get(article.get_page_url()).text

    assert "Episode 7" in page and "Season" not in page and ">20:00</time>" in page
    assert "Explicit" not in page and "artwork" not in page and "Transcript" not in page
    assert 'class="episode"' not in plain and "episode-facts" not in plain


def test_post_page_speaks_french(client):
    """The episode's details are translated (the catalogue: djangofeeds/locale/fr)."""
    post = PostFactory(**EPISODE)

    with override_settings(LANGUAGE_CODE="fr"), translation.override("fr"):
        page = client.get(post.get_page_url()).text

    for french in ("Illustration de l’épisode", "Saison 2, épisode 5", "Explicite", "Chapitres"):
        assert french in page
    assert ">Transcription</a>" in page and "Season" not in page


def test_feed_page_shows_the_feeds_artwork(client):
    feed = FeedFactory(image_url="https://cdn.example.com/qs/cover.jpg")

    page = client.get(feed.get_absolute_url()).text

    (artwork,) = elements(page, "img", src="https://cdn.example.com/qs/cover.jpg")
    assert attribute(artwork, "alt") == "Feed artwork" and attribute(artwork, "loading") == "lazy"
    assert not elements(client.get(FeedFactory().get_absolute_url()).text, "img")


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(0, "0:00"), (59, "0:59"), (1200, "20:00"), (3600, "1:00:00"), (3723, "1:02:03"), (None, "")],
)
def test_duration_is_shown_as_a_player_shows_it(seconds, shown):
    assert duration(seconds) == shown


def test_post_change_page_shows_the_podcast_fieldset_read_only(admin_client):
    """The admin shows the details in their own "Podcast" fieldset, read-only like the rest."""
    post = PostFactory(**EPISODE)

    response = admin_client.get(reverse("admin:djangofeeds_post_change", args=[post.pk]))

    assert response.status_code == 200 and not response.context["has_change_permission"]
    page = response.text
    podcast = page.split('class="fieldset-heading">Podcast</h2>', 1)[1].split("</fieldset>")[0]
    for name in EPISODE:
        assert f'class="form-row field-{name}"' in podcast
    assert (
        '<div class="readonly">3723</div>' in podcast and "Seconds; empty when unknown." in podcast
    )
    assert 'href="https://cdn.example.com/qs/12-chapters.json"' in podcast
    assert not elements(page, "input", name="duration")  # read-only, no form field


def test_feed_change_page_shows_the_artwork_url(admin_client):
    feed = FeedFactory(image_url="https://cdn.example.com/qs/cover.jpg")

    page = admin_client.get(reverse("admin:djangofeeds_feed_change", args=[feed.pk])).text

    assert 'href="https://cdn.example.com/qs/cover.jpg"' in page
    assert not elements(page, "input", name="image_url")
