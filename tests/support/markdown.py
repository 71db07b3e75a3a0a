"""Markdown as GitHub and the package index read it: link targets, heading anchors, and
links into this repository, for the tests of the README and docs/ (test_docs, test_release)."""

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

REPO = Path(__file__).resolve().parents[2]
REPOSITORY = "djangofeeds-blog/djangofeeds-blog"
# A link into this repository's main branch: a file (blob, raw) or a folder (tree).
INTO_REPO = re.compile(
    rf"^https://(?:github\.com/{REPOSITORY}/(?P<kind>blob|tree|raw)/main"
    rf"|raw\.githubusercontent\.com/{REPOSITORY}/(?:refs/heads/)?main)"
    r"(?:/(?P<path>[^?#]*))?(?:\?[^#]*)?(?:#(?P<anchor>.*))?$"
)
ABSOLUTE_SCHEMES = {"http", "https", "mailto"}
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
INLINE_CODE = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.DOTALL)
# `](target` closes both [text](target) and ![alt](target), nested ones included.
MARKDOWN_TARGET = re.compile(r"\]\(\s*(?:<([^>]*)>|([^)\s]*))")
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?", re.MULTILINE)
HTML_TARGET = re.compile(r"""\b(?:src|href)\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)
ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")


def without_code(text):
    """The markdown outside fenced code blocks and inline code spans (links there are text)."""
    return INLINE_CODE.sub("", "\n".join(without_code_blocks(text)))


def link_targets(text):
    """Every link and image target of a markdown text: [..](x), ![..](x), [ref]: x, and
    html src="x" / href="x"."""
    text = without_code(text)
    targets = [a or b for a, b in MARKDOWN_TARGET.findall(text)]
    targets += REFERENCE_DEFINITION.findall(text)
    targets += [a or b for a, b in HTML_TARGET.findall(text)]
    return [target.strip() for target in targets]


def is_relative(target):
    """True unless the target has a scheme of its own (https://, mailto:): a path, an
    in-page #anchor or a //host link means nothing, or something else, on the index."""
    return urlsplit(target).scheme.lower() not in ABSOLUTE_SCHEMES


def github_slug(heading):
    """GitHub's anchor of a heading: lowercase, punctuation but - and _ dropped, spaces to -."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text only
    text = re.sub(r"<[^>]+>", "", text)  # html tags
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def heading_anchors(markdown):
    """The anchors GitHub gives the headings of a markdown text (a repeat gets -1, -2...)."""
    anchors, seen = set(), {}
    for line in without_code_blocks(markdown):
        if match := ATX_HEADING.match(line):
            slug = github_slug(match[2])
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            anchors.add(f"{slug}-{count}" if count else slug)
    return anchors


def without_code_blocks(markdown):
    """The lines of a markdown text outside fenced code blocks (a `# comment` there is code)."""
    fence = None
    for line in markdown.splitlines():
        if match := FENCE.match(line):
            marker = match[1]
            if fence is None:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence):
                fence = None
        elif fence is None:
            yield line


def repository_path(target):
    """The checkout's relative path an absolute link into this repository names, or None."""
    match = INTO_REPO.match(target)
    return unquote(match["path"] or "").rstrip("/") if match else None


def broken_repository_link(target):
    """Why an absolute link into this repository points at nothing in the checkout, or None
    (also None for any other link)."""
    match = INTO_REPO.match(target)
    if not match:
        return None
    path = unquote(match["path"] or "").rstrip("/")
    local = REPO / path
    if match["kind"] == "tree":
        return None if local.is_dir() else f"{target}: no folder {path or '.'} in the checkout"
    if not path or not local.is_file():
        return f"{target}: no file {path} in the checkout"
    anchor = match["anchor"]
    if (
        anchor
        and local.suffix == ".md"
        and unquote(anchor) not in heading_anchors(local.read_text())
    ):
        return f"{target}: {path} has no heading #{anchor}"
    return None
