# ruff: noqa: RUF001 -- French typography: the apostrophe is U+2019, as in the catalogue.
"""The blog in French: a complete catalogue, compiled as committed, used by pages and admin.

The catalogue tests read both apps' catalogues (djangofeeds' pages are tested in
tests/djangofeeds/test_translation.py). No GNU gettext at test time: the .po is
read by tests/support/catalogs.py, the committed .mo by the standard library.
"""

import pytest
from django.test import override_settings
from django.urls import reverse
from django.utils import translation
from django.utils.translation import ngettext

from tests.factories import CommentFactory, EntryFactory
from tests.support.admin import messages_of, run_action
from tests.support.catalogs import (
    APPS,
    LANGUAGES,
    catalog_paths,
    header,
    messages,
    read_mo,
    read_po,
)
from tests.support.comments import post_comment

# The blog's fixtures clear state in the cache, which may be the database's.
pytestmark = pytest.mark.django_db

CATALOGUES = [(app, language) for app in APPS for language in LANGUAGES]
NBSP = "\u00a0"  # French puts a no-break space before ":", ";", "!" and "?"


@pytest.fixture
def french():
    """French as the site's language, as a host with LANGUAGE_CODE = "fr" has it."""
    with override_settings(LANGUAGE_CODE="fr"), translation.override("fr"):
        yield


@pytest.mark.parametrize(("app", "language"), CATALOGUES)
def test_every_message_is_translated_and_none_is_fuzzy(app, language):
    """Each shipped .po translates every msgid (each plural form), with French plural rules."""
    po, _ = catalog_paths(app, language)
    entries = read_po(po)
    fields = header(entries)
    assert fields["Language"] == language
    assert fields["Plural-Forms"] == "nplurals=2; plural=(n > 1);"
    assert fields["Content-Type"] == "text/plain; charset=UTF-8"
    found = messages(entries)
    assert len(found) > 50, f"{po} has {len(found)} messages: not the apps' catalogue"
    assert not [entry for entry in entries if entry.obsolete], "obsolete #~ entries left"
    assert [entry.msgid for entry in entries if "fuzzy" in entry.flags] == []
    for entry in found:
        forms = [0, 1] if entry.msgid_plural is not None else [0]
        assert sorted(entry.msgstr) == forms, entry.msgid
        assert all(entry.msgstr[form].strip() for form in forms), f"untranslated: {entry.msgid}"


@pytest.mark.parametrize(("app", "language"), CATALOGUES)
def test_the_committed_mo_is_the_po_compiled(app, language):
    """The .mo the wheel ships says what the .po says, message for message: compiled after
    the last edit of the .po (django-admin compilemessages in the app's folder)."""
    po, mo = catalog_paths(app, language)
    assert mo.is_file(), f"{mo} is missing: run django-admin compilemessages in {APPS[app]}"
    entries = messages(read_po(po))
    compiled = read_mo(mo)
    assert compiled.info().get("plural-forms") == "nplurals=2; plural=(n > 1);"
    assert [compiled.plural(n) for n in (0, 1, 2, 5)] == [0, 0, 1, 1]
    expected = {}
    for entry in entries:
        if entry.msgid_plural is None:
            expected[entry.key] = entry.msgstr[0]
            if entry.msgctxt is None:
                assert compiled.gettext(entry.msgid) == entry.msgstr[0]
            else:
                assert compiled.pgettext(entry.msgctxt, entry.msgid) == entry.msgstr[0]
        else:
            for form, text in entry.msgstr.items():
                expected[(entry.key, form)] = text
            for n, form in ((1, 0), (2, 1)):
                got = (
                    compiled.ngettext(entry.msgid, entry.msgid_plural, n)
                    if entry.msgctxt is None
                    else compiled.npgettext(entry.msgctxt, entry.msgid, entry.msgid_plural, n)
                )
                assert got == entry.msgstr[form], entry.msgid
    # Nothing more either: a message removed from the .po is gone from the .mo too.
    # (The header's "" entry aside; _catalog is how GNUTranslations keeps a catalogue.)
    catalog = {key: text for key, text in compiled._catalog.items() if key != ""}
    assert catalog == expected


def test_entry_page_and_comment_form_in_french(client, french):
    """The entry page, its comment form (labels, help, button) and its errors speak French."""
    entry = EntryFactory(title="Files d’attente")
    CommentFactory(entry=entry, status="published", comment="Bravo.")
    page = client.get(entry.get_absolute_url()).text
    for french_text in (
        '<h2 id="comments-title">Commentaires (1)</h2>',
        "Laisser un commentaire",
        "Les commentaires passent un contrôle anti-spam et s’affichent une fois publiés.",
        ">Nom</label>",  # the model's verbose name, as the form's label
        ">Commentaire</label>",
        "Site web <span",  # the form's own label
        "(facultatif)",
        "Jamais affichée sur la page.",
        '<button type="submit">Publier le commentaire</button>',
    ):
        assert french_text in page
    for english in ("Leave a comment", "Post comment", "Home page", "(optional)", "Never shown"):
        assert english not in page

    response = post_comment(client, entry, {"name": "", "email_address": "x", "comment": ""})
    assert response.status_code == 400
    for error in (
        f"Votre commentaire n’a pas encore été publié. Veuillez vérifier{NBSP}:",
        "Veuillez indiquer votre nom.",
        "Veuillez indiquer une adresse e-mail valide.",
        "Veuillez écrire un commentaire.",
    ):
        assert error in response.text
    assert "Please" not in response.text


def test_entry_list_and_feed_in_french(client, french):
    """The list of entries and the RSS feed's own title are translated too."""
    EntryFactory(title="Un billet")
    page = client.get(reverse("blog:entry_list")).text
    assert "<h1>Billets</h1>" in page and "Lire la suite" in page and "Read more" not in page
    feed = client.get(reverse("blog:feed")).text
    assert "<description>Les derniers billets du blog.</description>" in feed


def test_comment_admin_in_french(admin_client, french):
    """The comments' changelist: actions, filter and columns in French."""
    CommentFactory(status="pending")
    page = admin_client.get("/admin/blog/comment/").text
    for french_text in (
        "Marquer comme spam (et le signaler à Akismet)",
        "Marquer comme non-spam et publier (et le signaler à Akismet)",
        "Revérifier s’il s’agit de spam",
        ">Publier<",
        "besoin d’attention",  # the filter's title
        "en attente, vérification échouée (0)",
        ">en attente<",  # the status choice's label
    ):
        assert french_text in page
    for english in ("Mark as spam", "Re-check for spam", "needs attention", "check failed ("):
        assert english not in page


def test_admin_action_messages_take_the_french_plural(
    admin_client, french, django_capture_on_commit_callbacks
):
    """A moderation action reports in French, singular for 1 and plural for 2."""
    one = [CommentFactory(status="published")]
    two = [CommentFactory(status="published") for _ in range(2)]
    already = CommentFactory(status="spam")
    with django_capture_on_commit_callbacks():  # no Akismet feedback is sent
        single = run_action(admin_client, "/admin/blog/comment/", "mark_spam", [*one, already])
        plural = run_action(admin_client, "/admin/blog/comment/", "mark_spam", two)
    assert messages_of(single) == [f"1 commentaire marqué comme spam. 1 ignoré{NBSP}: déjà spam."]
    assert messages_of(plural) == ["2 commentaires marqués comme spam."]


@pytest.mark.parametrize(
    ("count", "expected"),
    [
        (0, "0 commentaire publié."),  # French: 0 is singular, unlike English
        (1, "1 commentaire publié."),
        (2, "2 commentaires publiés."),
    ],
)
def test_a_plural_message_takes_the_french_form(count, expected):
    with translation.override("fr"):
        text = ngettext("%(count)d comment published.", "%(count)d comments published.", count)
    assert text % {"count": count} == expected
