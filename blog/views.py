"""Pages of the blog: the list of entries, one entry with its comments, posting a comment."""

from functools import partial

from django.contrib import messages
from django.core.cache import cache
from django.core.paginator import Paginator
from django.db import transaction
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from blog import conf
from blog.client_ip import client_ip
from blog.dispatch import dispatch_check
from blog.forms import CommentForm, reply_target, thread_depth
from blog.models import Comment, Entry
from blog.signals import comment_will_be_posted
from djangofeeds_blog_shared import query


class HttpResponseSeeOther(HttpResponseRedirect):
    status_code = 303


ENTRIES_PER_PAGE = 10


def entry_list(request):
    entries = Paginator(Entry.objects.published(), ENTRIES_PER_PAGE)
    page = entries.get_page(query.page_number(request))
    return render(request, "blog/entry_list.html", {"entries": page, "page": page})


def comment_threads(comments):
    """The top-level comments, each reply under its parent as ``thread_replies``.

    ``comments`` are the entry's published comments (one query); a reply whose
    parent is not among them is not shown. Each gets ``depth`` (1 at the top)
    and ``shown``, the number of comments the threads hold.
    """
    by_parent = {}
    for comment in comments:
        comment.thread_replies = []
        by_parent.setdefault(comment.parent_id, []).append(comment)
    roots = by_parent.get(None, [])
    shown, pending = 0, [(root, 1) for root in roots]
    while pending:
        comment, depth = pending.pop()
        comment.depth = depth
        comment.can_reply = depth < conf.BLOG_MAX_THREAD_DEPTH
        comment.thread_replies = by_parent.get(comment.pk, [])
        shown += 1
        pending.extend((reply, depth + 1) for reply in comment.thread_replies)
    return roots, shown


def render_entry(request, entry, form=None, status=200, reply_to=None):
    threads, count = comment_threads(entry.comments.published())
    form = form or CommentForm(entry=entry)
    if reply_to is None and form.is_bound:
        form.is_valid()  # fills cleaned_data: a form sent back with errors keeps its parent
        reply_to = form.cleaned_data.get("parent")
    context = {
        "entry": entry,
        "comments": threads,
        "comment_count": count,
        "comments_open": entry.comments_open(),
        "form": form,
        "replying_to": reply_to,
    }
    return render(request, "blog/entry_detail.html", context, status=status)


def entry_detail(request, slug):
    entry = get_object_or_404(Entry.objects.published(), slug=slug)
    # ?reply_to=<id>: the form set to reply to that comment, with no JavaScript.
    # A comment that cannot be replied to gets the plain form.
    reply_to = None
    parent_id = query.object_id(request, "reply_to")
    if parent_id is not None and entry.comments_open():
        reply_to = reply_target(entry, parent_id)
        if reply_to is not None and thread_depth(reply_to) >= conf.BLOG_MAX_THREAD_DEPTH:
            reply_to = None
    form = CommentForm(entry=entry, initial={"parent": reply_to.pk} if reply_to else None)
    return render_entry(request, entry, form, reply_to=reply_to)


def header(request, name):
    """A request header as the database takes it: no NUL (PostgreSQL refuses it), bounded."""
    return request.headers.get(name, "").replace("\x00", "")[:1000]


def over_rate_limit(ip):
    """Count one POST against the IP's fixed one-minute window; True once over the limit.

    Called for what the limit counts: a comment about to be stored, or a bot
    caught by the honeypot, not a visitor's typo (an invalid form stores
    nothing, and a person who corrects it five times must not be locked out).
    Each counted POST claims one of the window's numbered slots with
    ``cache.add``, atomic on memcached and on the database cache alike
    (``incr`` is a get and a set on the database cache: concurrent POSTs
    would all pass). A refused POST costs two ``get_many``.
    """
    limit = conf.BLOG_COMMENTS_PER_MINUTE
    if not limit or not ip:
        return False
    window = f"blog:comment-rate:{ip}:{int(timezone.now().timestamp() // 60)}"
    slots = [f"{window}:{number}" for number in range(limit)]
    try:
        taken = cache.get_many(slots)
        if any(cache.add(slot, 1, timeout=120) for slot in slots if slot not in taken):
            return False
        # Every slot looked taken. Read them back: a memcached server that
        # pymemcache has marked dead answers add with False and get_many with {}.
        return len(cache.get_many(slots)) >= limit
    except Exception:
        # An unreachable cache must not stop people from commenting.
        return False


def too_fast(request, entry):
    messages.error(
        request, gettext("You are commenting too fast. Please wait a minute and try again.")
    )
    return render_entry(request, entry, CommentForm(request.POST, entry=entry), status=429)


def may_post(request, comment):
    """Ask comment_will_be_posted's receivers: any that answers False vetoes the comment."""
    responses = comment_will_be_posted.send(sender=Comment, comment=comment, request=request)
    return all(response is not False for _, response in responses)


def after_response(response, call):
    """Run ``call`` once ``response`` has been sent, or now if it already was."""
    if response.closed:
        call()
    else:
        # The server closes a response once it has written it (WSGI's close(), and
        # Django's ASGI handler after the last body message); Django then runs these.
        response._resource_closers.append(call)


@require_POST
def add_comment(request, slug):
    entry = get_object_or_404(Entry.objects.published(), slug=slug)
    if not entry.comments_open():
        # Nothing is saved, nor counted; the page says why (no form on it).
        messages.error(
            request, gettext("Comments on this entry are closed: your comment was not posted.")
        )
        return render_entry(request, entry, status=403)
    ip = client_ip(request)
    form = CommentForm(request.POST, entry=entry)
    if form.is_bot:
        # A bot replaying its POST is counted like a comment: past the limit it gets 429.
        if over_rate_limit(ip):
            return too_fast(request, entry)
        return render_entry(request, entry, status=400)
    if not form.is_valid():
        return render_entry(request, entry, form, status=400)
    if over_rate_limit(ip):
        return too_fast(request, entry)
    comment = form.save(commit=False)
    comment.entry = entry
    comment.status = Comment.Status.PENDING
    comment.user_ip = ip
    comment.user_agent = header(request, "User-Agent")
    comment.referrer = header(request, "Referer")
    comment.last_dispatched_at = timezone.now()
    if not may_post(request, comment):
        messages.error(request, gettext("Your comment was not accepted."))
        return render_entry(request, entry, form, status=400)
    comment.save()
    response = HttpResponseSeeOther(entry.get_absolute_url())
    # After commit, so the worker finds the row; after the response, so the visitor
    # never waits on the broker (a process that dies in between leaves the comment
    # pending: recheck_pending_comments sends it). dispatch_check never raises.
    check = partial(dispatch_check, comment.pk, ip)
    transaction.on_commit(partial(after_response, response, check), robust=True)
    thank(request)
    return response


# Translated when shown; compared in the language of the request (lazy).
THANKS = _("Thank you! Your comment is awaiting moderation.")


def thank(request):
    """Queue the thank-you, once: a visitor who posts again before seeing a page gets one.

    Each message added rewrites the messages cookie, and once it is full, each
    write searches what fits (many JSON encodings): a client posting without
    following the redirect paid that on every POST (bench/profile_comments.py).
    """
    pending = messages.get_messages(request)
    queued = any(message.message == THANKS for message in pending)
    pending.used = False  # only looked at: the messages are still shown on the next page
    if not queued:
        messages.success(request, THANKS)
