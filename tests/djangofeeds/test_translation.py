# ruff: noqa: RUF001 -- French typography: the apostrophe is U+2019, as in the catalogue.
"""The feeds in French: the pages and the admin use the committed catalogue.

Whether the catalogue is complete and its .mo compiled from it is tested for both
apps in tests/blog/test_translation.py.
"""

import pytest
from django.core.management import load_command_class
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import ngettext

from djangofeeds.models import ImportRun, Outcome
from tests.factories import FeedFactory, PostFactory
from tests.support.admin import messages_of, run_action

pytestmark = pytest.mark.django_db

NBSP = "\u00a0"  # French puts a no-break space before ":" and ";", and inside « »


@pytest.fixture
def french():
    """French as the site's language, as a host with LANGUAGE_CODE = "fr" has it."""
    with override_settings(LANGUAGE_CODE="fr"), translation.override("fr"):
        yield


def test_post_list_in_french(client, french):
    """/feeds/ speaks French: heading, the feeds followed (plural), search, each post's links."""
    feed = FeedFactory(title="Le flux")
    PostFactory(feed=feed, title="Un article")
    page = client.get("/feeds/").text
    for french_text in (
        "<h1>Les derniers articles des flux</h1>",
        f"1 flux suivi{NBSP}:",
        '<label for="feeds-search">Rechercher des articles</label>',
        '<button type="submit">Rechercher</button>',
        "Page de l’article",
        "Lire sur le site d’origine",
    ):
        assert french_text in page
    for english in ("Latest from the feeds", "Following", "Search posts", "Post page", "Read on"):
        assert english not in page

    FeedFactory(title="Un autre flux")
    assert f"2 flux suivis{NBSP}:" in client.get("/feeds/").text


def test_search_and_feed_pages_in_french(client, french):
    """A search that finds nothing, and a feed's own page, in French."""
    feed = FeedFactory(title="Le flux", link="https://example.com/")
    PostFactory(feed=feed, title="Un article")
    PostFactory(feed=feed, title="")
    nothing = client.get("/feeds/", {"q": "introuvable"}).text
    assert f"Aucun article ne correspond à «{NBSP}introuvable{NBSP}»." in nothing
    assert f"Articles correspondant à «{NBSP}introuvable{NBSP}»" in nothing
    assert "0 résultat, le meilleur en premier" in nothing  # French: 0 takes the singular
    page = client.get(feed.get_absolute_url()).text
    for french_text in ("&larr; Tous les flux", ">Site web</a>", "· 2 articles", "(sans titre)"):
        assert french_text in page
    assert "All feeds" not in page and "(untitled)" not in page


def test_feed_admin_in_french(admin_client, french):
    """The feeds' changelist: actions, filter, column headers and model names in French."""
    FeedFactory()
    page = admin_client.get("/admin/djangofeeds/feed/").text
    for french_text in (
        ">Importer maintenant<",
        ">Activer<",
        ">Désactiver<",
        ">Effacer les erreurs (vérifier à nouveau maintenant)<",
        "besoin d’attention",  # the filter's title
        "non vérifiés à temps (0)",
        "dernière erreur",  # a column (admin.display)
        "prochaine vérification le",  # a column (the model field's verbose name)
    ):
        assert french_text in page.lower() if french_text.islower() else french_text in page
    for english in ("Import now", "Reset errors", "needs attention", "last error", "next check"):
        assert english.lower() not in page.lower()


def test_feed_change_page_runs_panel_in_french(admin_client, french):
    """The panel of import runs under a feed's form, empty, then with runs (plural)."""
    feed = FeedFactory()
    url = reverse("admin:djangofeeds_feed_change", args=[feed.pk])
    empty = admin_client.get(url).text
    assert "<h2>Importations récentes</h2>" in empty
    assert "Dernière importation" in empty  # the fieldset
    assert (
        "Aucune importation pour l’instant. Sélectionnez le flux dans la liste et lancez "
        f"«{NBSP}Importer maintenant{NBSP}», ou attendez la planification."
    ) in empty

    ImportRun.objects.create(feed=feed, outcome=Outcome.IMPORTED, finished_at=timezone.now())
    one = admin_client.get(url).text
    table = one.split('id="recent-import-runs"', 1)[1].split("</table>", 1)[0]
    assert '<th scope="col">Début</th>' in table and "importé" in table  # the outcome's label
    assert "L’importation de ce flux (1)" in one
    ImportRun.objects.create(feed=feed, outcome=Outcome.FAILED)  # still running
    two = admin_client.get(url).text
    assert "Les 2 importations de ce flux" in two and "en cours" in two
    assert "Recent import runs" not in two and "import runs of this feed" not in two


def test_admin_action_messages_take_the_french_plural(admin_client, french):
    """An action reports in French, singular for 1 feed and plural for 2."""
    feeds = [FeedFactory(is_active=False) for _ in range(3)]
    one = run_action(admin_client, "/admin/djangofeeds/feed/", "activate", feeds[:1])
    two = run_action(admin_client, "/admin/djangofeeds/feed/", "activate", feeds[1:])
    assert messages_of(one) == ["1 flux activé."]
    assert messages_of(two) == ["2 flux activés."]


@pytest.mark.parametrize(
    ("app", "command", "french_text"),
    [
        ("djangofeeds", "addfeed", "S’abonne à des flux par leur URL"),
        ("djangofeeds", "opml_import", "S’abonne aux flux d’un fichier OPML"),
        ("djangofeeds", "opml_export", "Écrit tous les flux en OPML 2.0"),
        ("djangofeeds", "feed_health", "Montre combien de flux sont dans chaque état de santé"),
        ("djangofeeds", "group_stories", "Donne aux articles enregistrés avant les histoires"),
        ("djangofeeds", "setup_schedules", "Crée les entrées django-celery-beat"),
        ("blog", "recheck_comments", "Renvoie à la vérification anti-spam"),
    ],
)
def test_command_help_in_french(french, app, command, french_text):
    """``manage.py <command> --help`` in French (argparse takes the help as it is made)."""
    parser = load_command_class(app, command).create_parser("manage.py", command)
    text = " ".join(parser.format_help().split())
    assert french_text in text


@pytest.mark.parametrize(
    ("count", "expected"),
    [(0, "0 flux désactivé."), (1, "1 flux désactivé."), (2, "2 flux désactivés.")],
)
def test_a_plural_message_takes_the_french_form(count, expected):
    with translation.override("fr"):
        text = ngettext("Deactivated %d feed.", "Deactivated %d feeds.", count)
    assert text % count == expected
