"""The pages the blog's mails link to: a moderator's publish or spam link, a commenter's
unsubscribe link (blog.mail_links signs them).

Opening a link changes nothing: the page shows what it would do and asks for a POST,
because mail scanners and link previews open links too. RFC 8058's one-click
unsubscribe is a POST without a CSRF token from the mail provider (body
``List-Unsubscribe=One-Click``): the signed token is the authority there.
"""

from django.shortcuts import render
from django.utils.translation import gettext
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from blog import conf, moderation, notices
from blog.mail_links import PUBLISH, BadLink, ExpiredLink, read_moderation, read_unsubscribe
from blog.models import Comment

TEMPLATE = "blog/mail_link.html"


def refused(request, exc):
    """The page for a link that cannot be used: 410 when expired, else 400."""
    if isinstance(exc, ExpiredLink):
        problem = gettext(
            "This link has expired: moderation links work for %(days)s days. "
            "Moderate the comment in the admin."
        ) % {"days": conf.BLOG_MODERATION_LINK_DAYS}
        return render(request, TEMPLATE, {"problem": problem}, status=410)
    problem = gettext("This link is not valid. Was it cut by your mail program?")
    return render(request, TEMPLATE, {"problem": problem}, status=400)


@require_http_methods(["GET", "POST"])
def moderate_by_mail(request, token):
    """Publish a held comment, or mark it spam, from the moderators' mail."""
    try:
        comment_id, action = read_moderation(token)
    except BadLink as exc:
        return refused(request, exc)
    comment = Comment.objects.select_related("entry").filter(pk=comment_id).first()
    if comment is None:
        problem = gettext("This comment no longer exists.")
        return render(request, TEMPLATE, {"problem": problem}, status=404)
    context = {"comment": comment, "action": action, "done": False}
    if request.method == "POST" and comment.status == Comment.Status.PENDING:
        pending = Comment.objects.pending().filter(pk=comment.pk)
        decide = moderation.publish if action == PUBLISH else moderation.mark_spam
        decide(pending, detail=gettext("from the moderators' mail"))
        comment.refresh_from_db()
        context["done"] = True
    return render(request, TEMPLATE, context)


@csrf_exempt  # RFC 8058: the mail provider POSTs with no token; the signed link is the check
@require_http_methods(["GET", "POST"])
def unsubscribe(request, token):
    """Stop reply notices to a commenter on one entry: a page to confirm, then the POST."""
    try:
        comment_id = read_unsubscribe(token)
    except BadLink as exc:
        return refused(request, exc)
    comment = Comment.objects.select_related("entry").filter(pk=comment_id).first()
    if comment is None:
        problem = gettext("This comment no longer exists: no more notices will be sent for it.")
        return render(request, TEMPLATE, {"problem": problem}, status=404)
    stopped = request.method == "POST"
    if stopped:
        notices.stop_reply_notices(comment.pk)
    return render(request, TEMPLATE, {"comment": comment, "unsubscribe": True, "done": stopped})
