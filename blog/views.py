"""Pages of the blog: the list of entries, one entry with its comments, posting a comment."""

import contextlib
import ipaddress
from functools import lru_cache, partial

from django.contrib import messages
from django.core.cache import cache
from django.core.paginator import Paginator
from django.db import transaction
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from blog import conf
from blog.dispatch import dispatch_check
from blog.forms import CommentForm
from blog.models import Comment, Entry
from djangofeeds import query


class HttpResponseSeeOther(HttpResponseRedirect):
    status_code = 303


ENTRIES_PER_PAGE = 10


def entry_list(request):
    entries = Paginator(Entry.objects.published(), ENTRIES_PER_PAGE)
    page = entries.get_page(query.page_number(request))
    return render(request, "blog/entry_list.html", {"entries": page, "page": page})


def render_entry(request, entry, form=None, status=200):
    context = {
        "entry": entry,
        "comments": entry.comments.published(),
        "form": form or CommentForm(),
    }
    return render(request, "blog/entry_detail.html", context, status=status)


def entry_detail(request, slug):
    entry = get_object_or_404(Entry.objects.published(), slug=slug)
    return render_entry(request, entry)


def client_ip(request):
    """The visitor's IP address, or None when there is none to be had.

    REMOTE_ADDR, unless it is one of ``BLOG_TRUSTED_PROXIES``: then the
    X-Forwarded-For entries are read from the right, past the trusted proxies,
    and the first address that is not one of them is the visitor (everything
    to its left was written by the client, who may write anything). A
    malformed entry ends the walk at the last address known to be true.

    None when REMOTE_ADDR is no address: behind a Unix socket it is "" or a
    path, and a malformed value must not reach an inet column (PostgreSQL
    refuses it).
    """
    address = plain_ip(request.META.get("REMOTE_ADDR", ""))
    proxies = trusted_proxies(tuple(conf.BLOG_TRUSTED_PROXIES))
    forwarded = request.headers.get("X-Forwarded-For", "").split(",")
    while address and is_trusted(address, proxies) and forwarded:
        hop = plain_ip(forwarded.pop())
        if hop is None:
            break
        address = hop
    return address


@lru_cache(maxsize=8)
def trusted_proxies(networks):
    """``BLOG_TRUSTED_PROXIES`` as networks ("10.0.0.1" is 10.0.0.1/32); parsed once."""
    return tuple(ipaddress.ip_network(network, strict=False) for network in networks)


def is_trusted(address, proxies):
    address = ipaddress.ip_address(address)
    return any(address in network for network in proxies)


def plain_ip(text):
    """``text`` as an IP address without an IPv6 zone ("fe80::1%eth0"), or None."""
    with contextlib.suppress(ValueError):
        # The zone means nothing off the host, and an inet column refuses it.
        return str(ipaddress.ip_address(text.strip().partition("%")[0]))
    return None


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
    messages.error(request, "You are commenting too fast. Please wait a minute and try again.")
    return render_entry(request, entry, CommentForm(request.POST), status=429)


@require_POST
def add_comment(request, slug):
    entry = get_object_or_404(Entry.objects.published(), slug=slug)
    ip = client_ip(request)
    form = CommentForm(request.POST)
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
    comment.save()
    # After commit, so the worker finds the row; dispatch_check never raises.
    transaction.on_commit(partial(dispatch_check, comment.pk, ip), robust=True)
    messages.success(request, "Thank you! Your comment is awaiting moderation.")
    return HttpResponseSeeOther(entry.get_absolute_url())
