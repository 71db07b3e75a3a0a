"""The one boundary to spam checking: Akismet when AKISMET_API_KEY is set, local rules otherwise.

Callers get a ``CheckResponse`` (HAM, SPAM, DISCARD) and see only the akismet
library's exceptions: ``RequestError``/``ProtocolError`` (may succeed later) and
``ConfigurationError``/``APIKeyError`` (will not until an operator acts). The
client and its key check are in ``blog.akismet_client``, the local rules in
``blog.local_rules``.
"""

from akismet import CheckResponse
from django.conf import settings

from blog import akismet_client, conf
from blog.local_rules import local_reasons

HONEYPOT_FIELD = "website"


def backend_name():
    """``"akismet"`` when an API key is configured, else ``"local"``."""
    return "akismet" if akismet_client.in_use() else "local"


def build_payload(comment, remote_addr=None):
    """Everything Akismet uses about a comment, as keyword arguments of the library."""
    entry = comment.entry
    blog_url = conf.AKISMET_BLOG_URL.rstrip("/")
    return {
        "user_ip": comment.user_ip or remote_addr or "",
        "user_agent": comment.user_agent,
        "referrer": comment.referrer,
        "permalink": blog_url + entry.get_absolute_url(),
        "comment_type": "comment",
        "comment_author": comment.name,
        "comment_author_email": comment.email_address,
        "comment_author_url": comment.homepage,
        "comment_content": comment.comment,
        "comment_date_gmt": comment.pub_date.isoformat(),
        # Akismet's name for the post's publication time.
        "comment_post_modified_gmt": entry.pub_date.isoformat(),
        "blog_lang": settings.LANGUAGE_CODE.split("-")[0],
        "blog_charset": "UTF-8",
        "honeypot_field_name": HONEYPOT_FIELD,
    }


def judge(payload, comment_id=None):
    """The configured backend's ``CheckResponse`` for a payload, and the local rules' reasons
    (Akismet gives none): for the history."""
    if not akismet_client.in_use():
        reasons = local_reasons(payload, comment_id)
        return (CheckResponse.SPAM if reasons else CheckResponse.HAM), ", ".join(reasons)
    return akismet_client.call(lambda client: client.comment_check(**payload)), ""


def submit_spam(payload):
    """Tell Akismet a comment is spam; False when the local rules are in use."""
    if not akismet_client.in_use():
        return False
    return akismet_client.call(lambda client: client.submit_spam(**payload))


def submit_ham(payload):
    """Tell Akismet a comment is not spam; False when the local rules are in use."""
    if not akismet_client.in_use():
        return False
    return akismet_client.call(lambda client: client.submit_ham(**payload))
