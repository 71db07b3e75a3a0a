"""The keep/block rules applied to posts: as an import stores them, and to stored posts again
on demand (the admin's action, the task ``apply_rules``).

The verdicts are ``rules.matching``'s; here a feed's rules are loaded (global, its
categories', its own). An import judges each post from its entry before writing it
(``ImportRules``: its state is written with the post, no query more than the rules');
applied again, each stored post's ``is_blocked``/``blocked_by`` is written where it
changes, in one ``UPDATE`` per verdict.
"""

import logging
import re
import time
from collections import defaultdict
from functools import lru_cache
from html import unescape
from typing import NamedTuple

from django.db import connections, router

from djangofeeds.models import Feed, Post, Rule
from djangofeeds.rules import matching

logger = logging.getLogger(__name__)

WRITE_BATCH = 1000
READ_BATCH = 500
TAG = re.compile(r"<[^>]*>")
HTML_READ = 4 * matching.MAX_TEXT  # the text is cut at MAX_TEXT: no need to strip more
SHOWN = (False, None)
HELD = (True, None)  # blocked, by no rule: the rules ran out of time before judging it


class RuleSpec(NamedTuple):
    """A rule as a judge reads it: also the key of the compiled judges kept."""

    pk: int
    field: str
    match: str
    pattern: str
    action: str
    feed_id: int | None
    category_id: int | None


def rules_for(feed):
    """The active rules of ``feed``'s posts (global ones, its categories', its own), as
    ``RuleSpec`` rows. One query for all active rules (a site has hundreds at most), sent
    as SQL made once per process; the feed's categories are read only when a rule has one."""
    with connections[router.db_for_read(Rule)].cursor() as cursor:
        cursor.execute(*active_rules_sql(cursor.db.alias))
        rules = [RuleSpec(*row) for row in cursor.fetchall()]
    if any(rule.category_id for rule in rules):
        categories = set(feed.categories.values_list("pk", flat=True))
    else:
        categories = set()
    return [
        rule
        for rule in rules
        if rule.feed_id == feed.pk
        or rule.category_id in categories
        or (rule.feed_id is None and rule.category_id is None)
    ]


@lru_cache(maxsize=8)
def active_rules_sql(alias):
    """``(sql, params)`` of the active rules' ``RuleSpec`` columns, in their order."""
    rows = Rule.objects.using(alias).filter(is_active=True).order_by("id")
    return rows.values_list(*RuleSpec._fields).query.sql_with_params()


def judge_for(rules):
    """The ``Judge`` of ``rules`` (``RuleSpec`` rows), compiled once per process for each
    version of them."""
    return compiled_judge(tuple(rules))


# Judges kept per worker process: one per distinct set of rules (feeds with rules of
# their own each have theirs); compiling 100 patterns takes a few milliseconds.
@lru_cache(maxsize=256)
def compiled_judge(specs):
    return matching.Judge(specs)


def text_of(html):
    """The text of sanitized HTML, as far as the rules read it: tags out, entities decoded.
    (A regex, not a parser: the HTML is the sanitizer's, and this runs for every new post.)"""
    return unescape(TAG.sub(" ", html[:HTML_READ]))


def texts(fields, *, title, content, author, categories, link):
    """The texts the rules read (only ``fields`` are worked out): the content as plain text,
    the categories' names one a line."""
    return {
        "title": title,
        "content": text_of(content) if "content" in fields else "",
        "author": author,
        "category": "\n".join(categories) if "category" in fields else "",
        "link": link,
    }


def values_of(post, fields):
    """What the rules read in a stored ``post``."""
    names = [c.name for c in post.categories.all()] if "category" in fields else ()
    return texts(
        fields,
        title=post.title,
        content=post.content,
        author=post.author,
        categories=names,
        link=post.link,
    )


class ImportRules:
    """The rules at work in one import, for the posts it stores: loaded at its first post
    (one query), each post judged from its entry before it is written, until the time
    limit; past it, posts are held back (hidden, no rule named) and counted."""

    def __init__(self, feed):
        self.feed, self.judge, self.held = feed, None, 0

    def state(self, entry):
        """``(is_blocked, blocked_by_id)`` of ``entry``'s post."""
        if self.judge is None:
            self.judge = judge_for(rules_for(self.feed))
            self.deadline = time.monotonic() + matching.TIME_LIMIT
        if not self.judge.rules:
            return SHOWN
        if time.monotonic() > self.deadline:
            self.held += 1
            return HELD
        categories = [name for name, _ in entry.categories]
        values = texts(
            self.judge.fields,
            title=entry.title,
            content=entry.content,
            author=entry.author,
            categories=categories,
            link=entry.link,
        )
        rule_id = self.judge.verdict(values)
        return (rule_id is not None, rule_id)

    def note(self):
        """The run's note on posts held back, or ""."""
        if not self.held:
            return ""
        logger.warning("feed %s: the rules ran out of time, %d held back", self.feed.url, self.held)
        return f"{self.held:,} posts held back: the rules ran out of time (apply them again)"


def judge_posts(posts, judge):
    """Write ``judge``'s verdict on each of ``posts`` where it changed; ``(blocked, held)``:
    how many are now blocked by a rule, and held back at the time limit."""
    # feed_id too: a related manager's rows get their feed set, which reads it.
    rows = posts.only(
        "pk", "feed_id", "title", "content", "author", "link", "is_blocked", "blocked_by_id"
    )
    if "category" in judge.fields:
        rows = rows.prefetch_related("categories")
    if "content" not in judge.fields:
        rows = rows.defer("content")
    deadline = time.monotonic() + matching.TIME_LIMIT
    changed = defaultdict(list)
    blocked = held = 0
    for post in rows.order_by("pk").iterator(chunk_size=READ_BATCH):
        if time.monotonic() > deadline:
            state = HELD
            held += 1
        else:
            rule_id = judge.verdict(values_of(post, judge.fields))
            state = (rule_id is not None, rule_id)
            blocked += rule_id is not None
        if state != (post.is_blocked, post.blocked_by_id):
            changed[state].append(post.pk)
    for (is_blocked, rule_id), pks in changed.items():
        for start in range(0, len(pks), WRITE_BATCH):
            Post.objects.filter(pk__in=pks[start : start + WRITE_BATCH]).update(
                is_blocked=is_blocked, blocked_by_id=rule_id
            )
    return blocked, held


def apply_rules(feed_ids=None):
    """Judge every stored post of the feeds ``feed_ids`` (all feeds: None) again, by the rules
    as they are now: a post no rule hides any more is shown again. ``{"blocked", "held"}``."""
    feeds = Feed.objects.all() if feed_ids is None else Feed.objects.filter(pk__in=feed_ids)
    totals = {"blocked": 0, "held": 0}
    for feed in feeds.only("pk", "url").order_by("pk").iterator():
        rules = rules_for(feed)
        if rules:
            blocked, held = judge_posts(feed.posts.all(), judge_for(rules))
        else:
            feed.posts.filter(is_blocked=True).update(is_blocked=False, blocked_by=None)
            blocked = held = 0
        totals["blocked"] += blocked
        totals["held"] += held
    logger.info("rules applied again: %s", totals)
    return totals
