"""blog/local_rules.py: the rules used without an Akismet key, and the verdict they give."""

import pytest

from blog import spam
from blog.local_rules import LocalRulesBackend, local_reasons
from blog.spam_backends import Verdict
from tests.factories import CommentFactory

pytestmark = pytest.mark.django_db


def local_check(**comment_fields):
    """(verdict kind, reasons) of the local rules for a new comment."""
    comment = CommentFactory(**comment_fields)
    verdict = LocalRulesBackend().check(comment)
    assert verdict.reason == ", ".join(local_reasons(verdict.data, comment.pk))
    return verdict.kind, local_reasons(verdict.data, comment.pk)


def test_local_rules_pass_an_ordinary_comment(local_rules):
    """A plain comment with a link or two is ham."""
    text = "Nice post, see https://example.com/ and www.example.org for more."
    assert local_check(comment=text) == (Verdict.HAM, [])


def test_local_rules_catch_too_many_links(local_rules):
    """More links than BLOG_SPAM_MAX_LINKS (the homepage counts) is spam."""
    local_rules.BLOG_SPAM_MAX_LINKS = 2
    text = "https://a.example/ https://b.example/"
    assert local_check(comment=text)[0] == Verdict.HAM
    # Another text: MariaDB/MySQL compare text ignoring trailing spaces (a copy).
    assert local_check(comment=text + " Bye.", homepage="https://c.example/") == (
        Verdict.SPAM,
        ["3 links"],
    )


def test_local_rules_catch_blocked_words_across_line_breaks(local_rules):
    """A blocked phrase is found whatever its case and spacing."""
    local_rules.BLOG_SPAM_BLOCKED_WORDS = ["payday loan"]
    assert local_check(comment="Get a PAYDAY\n  Loan today") == (
        Verdict.SPAM,
        ["blocked word 'payday loan'"],
    )


def test_local_rules_catch_duplicate_text(local_rules):
    """The same text as another comment is spam; the comment itself is not its own duplicate."""
    assert local_check(comment="Great article!!") == (Verdict.HAM, [])
    assert local_check(comment="Great article!!") == (
        Verdict.SPAM,
        ["same text as an earlier comment"],
    )


def test_local_rules_count_a_url_once(local_rules):
    """ "https://www.example.com" is one link, not two."""
    local_rules.BLOG_SPAM_MAX_LINKS = 2
    text = "see https://www.a.example/ and https://www.b.example/"
    assert local_check(comment=text) == (Verdict.HAM, [])


def test_local_rules_match_blocked_words_whole(local_rules):
    """A blocked word inside another word ("specialist") is not a match."""
    local_rules.BLOG_SPAM_BLOCKED_WORDS = ["cialis"]
    assert local_check(comment="Ask a specialist, or a socialist.") == (Verdict.HAM, [])
    assert local_check(comment="Cheap Cialis!")[0] == Verdict.SPAM


def test_local_rules_recheck_does_not_blame_the_original(local_rules):
    """Re-checking the first of two identical comments keeps it ham: only earlier ones count."""
    original = CommentFactory(comment="First!")
    CommentFactory(comment="First!")
    assert local_reasons(spam.build_payload(original), original.pk) == []
