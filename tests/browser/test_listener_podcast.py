"""A listener opens a podcast episode's page and plays it: nothing is downloaded before that."""

import io
import re
import wave
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.support.importing import import_url

pytestmark = pytest.mark.django_db(transaction=True)

PODCAST = Path(__file__).parent.parent / "djangofeeds" / "fixtures" / "podcast.xml"
EPISODE = "https://cdn.example.com/dtr/episode-3.mp3"


def one_second_of_silence():
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as sound:
        sound.setnchannels(1)
        sound.setsampwidth(2)
        sound.setframerate(8000)
        sound.writeframes(b"\x00\x00" * 8000)
    return buffer.getvalue()


def test_listener_finds_the_episode_and_its_player_loads_only_when_asked(page, feed_server):
    """The post page shows an audio player (preload="none": no request for the file until the
    listener asks), a download link and the categories; asked, the player loads the episode."""
    import_url(feed_server.serve("/podcast.xml", PODCAST.read_bytes()))
    # The CDN is the publisher's: the browser gets one second of sound from this stand-in.
    fetched = []

    def cdn(route):
        fetched.append(route.request.url)
        route.fulfill(status=200, content_type="audio/wav", body=one_second_of_silence())

    page.route("https://cdn.example.com/**", cdn)

    page.goto("/feeds/")
    # (chromium puts a space before the visually hidden part of the name)
    page.get_by_role("link", name=re.compile(r"^Post page\s*: Episode 3")).click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Episode 3: Brokers compared")
    player = page.locator("audio")
    expect(player).to_be_visible()
    expect(player).to_have_attribute("preload", "none")
    expect(player).to_have_attribute("src", EPISODE)
    expect(page.get_by_role("link", name="Download the audio")).to_have_attribute("href", EPISODE)
    expect(page.get_by_role("list", name="Categories")).to_contain_text("Brokers")
    page.wait_for_timeout(500)
    assert fetched == []  # a page of 25 episodes must not pull 25 files

    duration = player.evaluate(
        """audio => new Promise((resolve, reject) => {
            audio.addEventListener("loadedmetadata", () => resolve(audio.duration));
            audio.addEventListener("error", () => reject(audio.error && audio.error.message));
            audio.load();
        })"""
    )
    assert duration == pytest.approx(1.0, abs=0.05)
    assert fetched and set(fetched) == {EPISODE}

    page.get_by_role("link", name="Brokers").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Posts in “Brokers”")
    expect(page.locator("article.post")).to_have_count(1)


def test_listener_subscribes_to_the_show_from_its_page(page, feed_server):
    """The show's page offers its own feeds; the RSS link gives a feed that carries the
    episode's enclosure and names the show as its source, and the page's <head> lets a
    browser or a feed reader find the same feeds."""
    import_url(feed_server.serve("/podcast.xml", PODCAST.read_bytes()))
    page.goto("/feeds/")
    page.get_by_role("link", name="Distributed Tasks Radio").first.click()

    subscribe = page.locator(".subscribe")
    expect(subscribe.get_by_role("link", name="RSS")).to_be_visible()
    head_links = page.locator('head link[rel="alternate"][href^="/feeds/"]')  # the site has more
    expect(head_links).to_have_count(6)  # every feed's, then the show's, in three formats
    href = subscribe.get_by_role("link", name="RSS").get_attribute("href")
    assert href in [head_links.nth(n).get_attribute("href") for n in range(6)]

    response = page.request.get(href)
    assert response.ok and response.headers["content-type"].startswith("application/rss+xml")
    assert EPISODE in response.text() and "<source url=" in response.text()
