"""The apps' shipped translations, read without GNU gettext: .po entries and their .mo.

``read_po`` is a small reader of the catalogues ``makemessages`` writes (no
obsolete ``#~`` entries are kept); the compiled ``.mo`` is read by the
standard library's ``gettext.GNUTranslations``, as Django reads it.
"""

import ast
import gettext
from dataclasses import dataclass, field
from pathlib import Path

import blog
import djangofeeds

APPS = {"blog": Path(blog.__file__).parent, "djangofeeds": Path(djangofeeds.__file__).parent}
# The languages the apps ship, each a complete catalogue of each app.
LANGUAGES = ["fr"]
# How gettext separates a message's context from its id in a .mo file.
CONTEXT_SEPARATOR = "\x04"


@dataclass
class Entry:
    msgid: str = ""
    msgctxt: str | None = None
    msgid_plural: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)  # msgstr[n]; 0 without plural
    flags: set[str] = field(default_factory=set)
    obsolete: bool = False

    @property
    def key(self):
        """The key of the message in a .mo file (and in ``GNUTranslations._catalog``)."""
        return (
            self.msgid if self.msgctxt is None else f"{self.msgctxt}{CONTEXT_SEPARATOR}{self.msgid}"
        )


def catalog_paths(app, language):
    folder = APPS[app] / "locale" / language / "LC_MESSAGES"
    return folder / "django.po", folder / "django.mo"


def unquote(text):
    """A PO string literal ("...", C escapes) as text."""
    if not (text.startswith('"') and text.endswith('"')):
        raise ValueError(f"not a PO string: {text!r}")
    return ast.literal_eval(text)


def read_po(path):
    """The entries of the .po file at ``path``, the header (msgid "") first."""
    entries, entry, target = [], None, None
    for number, raw in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        line, obsolete = raw.strip(), raw.startswith("#~")
        if obsolete:
            line = line[2:].strip()
        if not line:
            entry = target = None
            continue
        starts = line.startswith(("#", "msgctxt ", "msgid "))
        if starts and (entry is None or entry.msgstr):  # the first line of an entry
            entry, target = Entry(), None
            entries.append(entry)
        entry.obsolete = entry.obsolete or obsolete
        if line.startswith("#"):
            if line.startswith("#,"):
                entry.flags.update(flag.strip() for flag in line[2:].split(","))
            continue
        if line.startswith('"'):  # more of the last keyword's string
            if target is None:
                raise ValueError(f"{path}:{number}: a string with no keyword")
            name, index = target
            if name == "msgstr":
                entry.msgstr[index] += unquote(line)
            else:
                setattr(entry, name, getattr(entry, name) + unquote(line))
            continue
        keyword, _, value = line.partition(" ")
        if keyword == "msgstr" or keyword.startswith("msgstr["):
            index = int(keyword[7:-1]) if keyword != "msgstr" else 0
            entry.msgstr[index] = unquote(value)
            target = ("msgstr", index)
        elif keyword in ("msgctxt", "msgid", "msgid_plural"):
            setattr(entry, keyword, unquote(value))
            target = (keyword, None)
        else:
            raise ValueError(f"{path}:{number}: unknown keyword {keyword!r}")
    return entries


def header(entries):
    """The catalogue's header fields ({"Plural-Forms": ...})."""
    first = entries[0]
    assert first.msgid == "" and first.msgctxt is None, "the header comes first"
    lines = first.msgstr[0].splitlines()
    return dict(line.split(": ", 1) for line in lines if ": " in line)


def messages(entries):
    """The catalogue's messages: every entry but the header and obsolete ones."""
    return [entry for entry in entries if entry.msgid and not entry.obsolete]


def read_mo(path):
    with open(path, "rb") as handle:
        return gettext.GNUTranslations(handle)
