"""The blog's two mails, each sent by a task after commit through Django's mail backend:

- ``MODERATORS``: a comment held for moderation, to BLOG_MODERATORS (default: the
  site's MANAGERS), with one-click links to publish it or mark it spam;
- ``REPLY_NOTICE``: a published reply, to the author of the comment it answers when
  they ticked "notify me of replies", with a one-click unsubscribe link and RFC 8058's
  ``List-Unsubscribe`` and ``List-Unsubscribe-Post`` headers.

Each is sent at most once per comment: the comment's history records it
(``mail sent``), and a task that finds it recorded (a retry after a lost answer, a
duplicate) sends nothing. Templates, which a host overrides as any Django template:
``blog/mail/<template>_subject.txt``, ``<template>.txt`` and ``<template>.html``.
"""

import logging
from datetime import timedelta
from email.utils import formataddr

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from blog import conf
from blog.mail_links import PUBLISH, SPAM, moderation_url, site_url, unsubscribe_url
from blog.models import Comment, CommentEvent
from djangofeeds_blog_shared.mail import addresses, send_templated

logger = logging.getLogger(__name__)
Status, Kind = Comment.Status, CommentEvent.Kind

# Each mail: the name its history events start with -> (its template, its task).
MODERATORS, REPLY_NOTICE = "moderators", "reply notice"
MAILS = {
    MODERATORS: ("held_comment", "blog.tasks.mail_moderators"),
    REPLY_NOTICE: ("reply_notice", "blog.tasks.mail_reply_notice"),
}


def moderators():
    """BLOG_MODERATORS (None: MANAGERS) as To addresses; ``(name, address)`` pairs formatted."""
    listed = settings.MANAGERS if conf.BLOG_MODERATORS is None else conf.BLOG_MODERATORS
    return addresses(listed)


def was_sent(comment_id, mail):
    return CommentEvent.objects.filter(
        comment_id=comment_id, kind=Kind.MAIL_SENT, detail__startswith=f"{mail}:"
    ).exists()


def send(mail, context, to, headers=None):
    """Render ``mail``'s three templates and send one message with a text and an HTML part."""
    context = {**context, "site_url": site_url("/")}
    send_templated(f"blog/mail/{MAILS[mail][0]}", context, to, headers)


def admin_url(comment_id):
    """The comment's admin page, or None on a site whose admin is not at ``admin:``."""
    try:
        return site_url(reverse("admin:blog_comment_change", args=[comment_id]))
    except NoReverseMatch:
        return None


def mail_moderators(comment_id):
    """Mail the moderators one held comment; returns whether a mail was sent.

    Nothing is sent for a comment no longer held (a moderator decided meanwhile),
    nor twice, nor when no moderator is set (said once in the log per comment)."""
    comment = Comment.objects.select_related("entry").filter(pk=comment_id).first()
    if comment is None or not comment.is_held or was_sent(comment_id, MODERATORS):
        return False
    to = moderators()
    if not to:
        logger.warning(
            "comment %s is held for moderation, and no moderator is mailed: "
            "set BLOG_MODERATORS or MANAGERS",
            comment_id,
        )
        return False
    context = {
        "comment": comment,
        "entry": comment.entry,
        "publish_url": moderation_url(comment.pk, PUBLISH),
        "spam_url": moderation_url(comment.pk, SPAM),
        "admin_url": admin_url(comment.pk),
        "link_days": conf.BLOG_MODERATION_LINK_DAYS,
    }
    send(MODERATORS, context, to)
    record(comment.pk, Kind.MAIL_SENT, MODERATORS, ", ".join(to))
    return True


def awaiting_notices(prefix=""):
    """The comments whose replies are mailed to their author: published, notices asked for
    (``prefix``: of a related comment, ``"parent__"``)."""
    return Q(**{f"{prefix}status": Status.PUBLISHED, f"{prefix}notify_replies": True})


def reply_recipient(reply):
    """The comment ``reply`` answers, when its author is to hear of it; else None."""
    parent = reply.parent
    if reply.status != Status.PUBLISHED or parent is None:
        return None
    if parent.status != Status.PUBLISHED or not parent.notify_replies:  # awaiting_notices()'s rule
        return None
    if parent.email_address.casefold() == reply.email_address.casefold():
        return None  # answering oneself
    return parent


def mail_reply_notice(comment_id):
    """Mail a published reply to the author of the comment it answers, if they asked;
    returns whether a mail was sent."""
    reply = Comment.objects.select_related("entry", "parent").filter(pk=comment_id).first()
    parent = reply and reply_recipient(reply)
    if parent is None or was_sent(comment_id, REPLY_NOTICE):
        return False
    unsubscribe = unsubscribe_url(parent.pk)
    headers = {
        "List-Unsubscribe": f"<{unsubscribe}>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",  # RFC 8058
    }
    context = {"reply": reply, "comment": parent, "entry": reply.entry}
    context |= {"reply_url": site_url(reply.get_absolute_url()), "unsubscribe_url": unsubscribe}
    to = formataddr((parent.name, parent.email_address))
    send(REPLY_NOTICE, context, [to], headers)
    record(reply.pk, Kind.MAIL_SENT, REPLY_NOTICE, parent.email_address)
    return True


def record(comment_id, kind, mail, detail=""):
    CommentEvent.objects.create(
        comment_id=comment_id, kind=kind, detail=f"{mail}: {detail}" if detail else f"{mail}:"
    )


def stop_reply_notices(comment_id):
    """Unsubscribe: no more reply notices to this comment's author for any of their comments
    on its entry. Returns how many comments it changed (0: already stopped, or gone)."""
    comment = Comment.objects.filter(pk=comment_id).first()
    if comment is None:
        return 0
    with transaction.atomic():
        changed = Comment.objects.filter(
            entry_id=comment.entry_id,
            email_address__iexact=comment.email_address,
            notify_replies=True,
        ).update(notify_replies=False)
        if changed:
            CommentEvent.objects.create(comment_id=comment.pk, kind=Kind.UNSUBSCRIBED)
    return changed


# Said of a mail whose recipients the server refused for good: never queued again.
REFUSED = "refused for good"


def refused(exc):
    """The history's detail of a mail whose recipients the mail server refused (5xx)."""
    answers = [
        f"{address}: {code} {message.decode(errors='replace')}"
        for address, (code, message) in exc.recipients.items()  # smtplib: message is bytes
    ]
    return f"{REFUSED} ({'; '.join(answers)})"


def mails_to_queue_again(within_days=7):
    """``(comment_id, mail)`` pairs whose last word is a failure, within the last days:
    the tasks gave up (the mail server down for hours) or were never queued (broker
    down). The sweeper queues them again, once per failure."""
    since = timezone.now() - timedelta(days=within_days)
    events = CommentEvent.objects.filter(
        kind__in=[Kind.MAIL_SENT, Kind.MAIL_FAILED, Kind.MAIL_QUEUED_AGAIN], created_at__gte=since
    ).values_list("comment_id", "kind", "detail")
    last = {}
    for comment_id, kind, detail in events.order_by("created_at", "pk"):
        mail, _, said = detail.partition(": ")
        last[comment_id, mail.rstrip(":")] = None if said.startswith(REFUSED) else kind
    return [key for key, kind in last.items() if kind == Kind.MAIL_FAILED and key[1] in MAILS]
