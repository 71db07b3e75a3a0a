"""A rule's pattern, compiled once and matched in linear time; a post's verdict under rules.

Regular expressions run on RE2 (google-re2): no backtracking, so no pattern can run
for ever, whatever the text (``(x+x+)+y`` on 64 KiB of ``x`` takes a millisecond).
Each text is cut at ``MAX_TEXT`` characters and each program at ``MAX_MEMORY``
bytes, so one match costs at most a bounded, linear amount; an import's posts also
stop at a time limit (``TIME_LIMIT``, ``importing.judging``).
"""

import logging
from dataclasses import dataclass

import re2

logger = logging.getLogger(__name__)

MAX_TEXT = 64 * 1024
MAX_MEMORY = 8 * 1024 * 1024
# Seconds one import's posts may spend in the rules; the posts not judged by then are
# held back (blocked, no rule named) until the rules are applied again.
TIME_LIMIT = 2.0
FIELDS = ("title", "content", "author", "category", "link")

_OPTIONS = re2.Options()
_OPTIONS.max_mem = MAX_MEMORY
_OPTIONS.log_errors = False
# A field's patterns compile as one program (an RE2 set): room for many rules' worth.
_SET_OPTIONS = re2.Options()
_SET_OPTIONS.max_mem = 16 * MAX_MEMORY
_SET_OPTIONS.log_errors = False


def compile_pattern(match, pattern):
    """A function ``text -> bool`` for the pattern (``re2.error`` when it cannot compile)."""
    if match == "regex":
        search = re2.compile(pattern, _OPTIONS).search
        return lambda text: search(text[:MAX_TEXT]) is not None
    needle = pattern.casefold()
    return lambda text: needle in text[:MAX_TEXT].casefold()


def pattern_problem(match, pattern):
    """Why ``pattern`` cannot be a rule's, in words; None when it can."""
    if not pattern:
        return "A rule needs a pattern."
    if match != "regex":
        return None
    try:
        compile_pattern(match, pattern)
    except re2.error as exc:
        reason = exc.args[0].decode() if isinstance(exc.args[0], bytes) else str(exc)
        return f"Not a regular expression RE2 can run: {reason}."
    return None


@dataclass(frozen=True)
class RuleInfo:
    """What a verdict needs of a rule: its id, the field it reads, its action and scope."""

    rule_id: int
    field: str
    action: str
    scope: tuple  # ("global",), ("category", id) or ("feed", id): keep rules count per scope

    @classmethod
    def of(cls, rule):
        scope = ("feed", rule.feed_id) if rule.feed_id else ("category", rule.category_id)
        return cls(rule.pk, rule.field, rule.action, scope if scope[1] else ("global",))


def verdict(rules, hits, keeps=None):
    """The id of the rule that hides a post, else None; ``hits``: the indexes in ``rules`` of
    those that match it; ``keeps``: the indexes of the keep rules by scope (worked out from
    ``rules`` when not given).

    A matching block rule hides it (the first one is named); so does a scope whose keep
    rules all miss it (the first keep rule of that scope is named).
    """
    for index in sorted(hits):
        if rules[index].action == "block":
            return rules[index].rule_id
    if keeps is None:
        keeps = keep_scopes(rules)
    for indexes in keeps.values():
        if not any(index in hits for index in indexes):
            return rules[indexes[0]].rule_id
    return None


def keep_scopes(rules):
    """``{scope: [indexes of its keep rules]}``."""
    scopes = {}
    for index, rule in enumerate(rules):
        if rule.action == "keep":
            scopes.setdefault(rule.scope, []).append(index)
    return scopes


class OneByOne:
    """An RE2 set's ``Match`` for patterns too many to compile as one set."""

    def __init__(self, patterns):
        self._searches = [re2.compile(pattern, _OPTIONS).search for pattern in patterns]

    def Match(self, text):  # re2.Set's name
        return [position for position, search in enumerate(self._searches) if search(text)]


class Judge:
    """Rules compiled for many verdicts: per field, one RE2 set of its regular expressions
    (one pass over the text finds every one that matches, however many there are) and
    the substrings of its ``contains`` rules.

    A rule whose pattern does not compile (saved around the model's check) is left out,
    and logged.
    """

    def __init__(self, rules):
        self.rules = []
        self._sets = {}  # field -> (re2.Set, [index in self.rules of each pattern added])
        self._needles = {}  # field -> [(casefolded substring, index in self.rules)]
        patterns = []  # each rule's pattern, by index in self.rules
        for rule in rules:
            if rule.match == "regex" and not self._add_pattern(rule):
                logger.error("rule #%s is left out: its pattern does not compile", rule.pk)
                continue
            if rule.match != "regex":
                self._needles.setdefault(rule.field, []).append(
                    (rule.pattern.casefold(), len(self.rules))
                )
            self.rules.append(RuleInfo.of(rule))
            patterns.append(rule.pattern)
        for field, (regexes, indexes) in list(self._sets.items()):
            try:
                regexes.Compile()
            except re2.error:  # too many for one program: each pattern on its own, slower
                logger.warning("the %s rules' patterns are matched one by one", field)
                self._sets[field] = (OneByOne([patterns[i] for i in indexes]), indexes)
        self.fields = frozenset(rule.field for rule in self.rules)
        self._keeps = keep_scopes(self.rules)

    def _add_pattern(self, rule):
        patterns, indexes = self._sets.setdefault(rule.field, (re2.Set.SearchSet(_SET_OPTIONS), []))
        try:
            patterns.Add(rule.pattern)
        except re2.error:
            return False
        indexes.append(len(self.rules))
        return True

    def hits(self, values):
        """The indexes of the rules that match a post whose fields are ``values``."""
        found = set()
        for field, (patterns, indexes) in self._sets.items():
            positions = patterns.Match(values[field][:MAX_TEXT]) or ()
            found.update(indexes[position] for position in positions)
        for field, needles in self._needles.items():
            text = values[field][:MAX_TEXT].casefold()
            found.update(index for needle, index in needles if needle in text)
        return found

    def verdict(self, values):
        """The id of the rule that hides a post whose fields are ``values``, else None."""
        return verdict(self.rules, self.hits(values), self._keeps)
