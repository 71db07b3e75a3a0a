"""rules.matching: patterns on RE2 (linear time, bounded), and a post's verdict under rules."""

import time

from djangofeeds.models import Rule
from djangofeeds.rules import matching
from djangofeeds.rules.matching import MAX_TEXT, Judge, compile_pattern, pattern_problem

EMPTY = dict.fromkeys(("title", "content", "author", "category", "link"), "")


def rule(pk, action, field, match, pattern, *, feed=None, category=None):
    return Rule(
        pk=pk,
        action=action,
        field=field,
        match=match,
        pattern=pattern,
        feed_id=feed,
        category_id=category,
    )


def test_contains_ignores_case_and_regex_is_re2():
    assert compile_pattern("contains", "Sponsored")("A SPONSORED post")
    assert not compile_pattern("contains", "sponsored")("a post")
    assert compile_pattern("regex", r"(?i)^\[ad\]")("[AD] Buy now")
    assert not compile_pattern("regex", r"^\[ad\]")("Not an [ad]")


def test_a_hostile_pattern_runs_in_linear_time_where_pythons_re_would_not_stop():
    """``(x+x+)+y`` backtracks exponentially in Python's re (30 x's already take seconds);
    RE2 answers on the longest text a rule reads in milliseconds."""
    matches = compile_pattern("regex", r"(x+x+)+y")
    started = time.perf_counter()
    assert not matches("x" * (10 * MAX_TEXT))  # cut at MAX_TEXT first
    assert time.perf_counter() - started < 1.0


def test_patterns_re2_cannot_run_are_refused_in_words():
    assert "RE2" in pattern_problem("regex", r"(a)\1")  # a backreference: backtracking only
    assert "RE2" in pattern_problem("regex", r"((a{100}){100}){100}")  # past the memory bound
    assert pattern_problem("regex", "") == "A rule needs a pattern."
    assert pattern_problem("contains", "(a)\\1") is None  # a substring: anything goes


def test_a_block_rule_hides_what_it_matches():
    judge = Judge([rule(1, "block", "title", "contains", "sponsored")])
    assert judge.verdict({**EMPTY, "title": "Sponsored: a VPN"}) == 1
    assert judge.verdict({**EMPTY, "title": "Django 6.1"}) is None


def test_keep_rules_hide_what_no_keep_rule_of_their_scope_matches():
    """Within a scope, a post must match one of its keep rules; each scope on its own."""
    judge = Judge(
        [
            rule(1, "keep", "category", "regex", "(?im)^python$", feed=7),
            rule(2, "keep", "title", "contains", "django", feed=7),
            rule(3, "keep", "author", "contains", "guido"),
        ]
    )
    python_post = {**EMPTY, "category": "news\nPython", "author": "Guido"}
    assert judge.verdict(python_post) is None
    assert judge.verdict({**EMPTY, "title": "Django", "author": "guido"}) is None
    assert judge.verdict({**EMPTY, "title": "Rust", "author": "guido"}) == 1
    assert judge.verdict({**EMPTY, "category": "pythonic", "author": "guido"}) == 1
    assert judge.verdict({**python_post, "author": "someone"}) == 3


def test_a_block_rule_wins_over_a_keep_rule():
    judge = Judge(
        [
            rule(1, "keep", "title", "contains", "python"),
            rule(2, "block", "title", "regex", "(?i)job"),
        ]
    )
    assert judge.verdict({**EMPTY, "title": "Python job offer"}) == 2


def test_a_rule_that_no_longer_compiles_is_left_out_not_fatal(caplog):
    judge = Judge(
        [
            rule(1, "block", "title", "regex", "(unclosed"),
            rule(2, "block", "title", "contains", "x"),
        ]
    )
    assert [info.rule_id for info in judge.rules] == [2]
    assert "rule #1 is left out" in caplog.text
    assert judge.verdict({**EMPTY, "title": "xyz"}) == 2


def test_a_hundred_regex_rules_of_a_field_are_one_pass_over_its_text():
    """Each field's patterns are one RE2 set: every rule that matches is found at once."""
    rules = [rule(n, "block", "title", "regex", rf"\bword{n}\b") for n in range(1, 101)]
    judge = Judge(rules)
    assert judge.hits({**EMPTY, "title": "word7 and word42, not word1000"}) == {6, 41}
    assert judge.verdict({**EMPTY, "title": "word42"}) == 42


def test_patterns_too_many_for_one_set_are_matched_one_by_one(monkeypatch, caplog):
    """A field's set past its memory falls back to each pattern on its own: slower, same
    verdicts, and said in the log."""
    monkeypatch.setattr(matching._SET_OPTIONS, "max_mem", 1)
    judge = Judge([rule(n, "block", "title", "regex", rf"\bword{n}\b") for n in (1, 2)])
    assert "matched one by one" in caplog.text
    assert judge.hits({**EMPTY, "title": "word2 only"}) == {1}
    assert judge.verdict({**EMPTY, "title": "word1"}) == 1
