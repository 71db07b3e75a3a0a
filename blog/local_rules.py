"""The local spam rules, used when no AKISMET_API_KEY is set: links, blocked words, copies."""

import re

from blog import conf
from blog.models import Comment
from blog.spam import build_payload
from blog.spam_backends import SpamBackend, Verdict

# A whole URL counts once: "https://www.example.com" is one link, not two.
LINK = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)


def local_reasons(payload, comment_id=None):
    """The local rules a payload breaks, as short phrases (empty: looks fine)."""
    text = payload["comment_content"]
    reasons = []
    links = len(LINK.findall(text)) + bool(payload.get("comment_author_url"))
    if links > conf.BLOG_SPAM_MAX_LINKS:
        reasons.append(f"{links} links")
    # Whitespace folded, so a line break cannot split a blocked phrase.
    lowered = " ".join([*text.lower().split(), *payload.get("comment_author", "").lower().split()])
    reasons += [
        f"blocked word {word!r}"
        for word in conf.BLOG_SPAM_BLOCKED_WORDS
        # Whole words only: "cialis" must not flag a "specialist".
        if re.search(rf"(?<!\w){re.escape(word.lower())}(?!\w)", lowered)
    ]
    # Only earlier comments: re-checking the original must not make it a copy of its copy.
    duplicates = Comment.objects.filter(comment=text)
    if comment_id is not None:
        duplicates = duplicates.filter(pk__lt=comment_id)
    if text.strip() and duplicates.exists():
        reasons.append("same text as an earlier comment")
    return reasons


class LocalRulesBackend(SpamBackend):
    """The local rules as a spam backend: no outside service, no feedback to send."""

    name = "local"

    def check(self, comment, remote_addr=None):
        payload = build_payload(comment, remote_addr)
        reasons = local_reasons(payload, comment.pk)
        kind = Verdict.SPAM if reasons else Verdict.HAM
        return Verdict(kind, ", ".join(reasons), payload)
