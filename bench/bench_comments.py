"""Comment latency: 500 comment POSTs to gunicorn while Akismet answers after 2 seconds;
then 500 replies to a comment whose author did not ask for reply notices (the control),
and 500 to one whose author did, each mailed by the worker through an SMTP server that
answers after 2 seconds ("notices", SPEC §7).

gunicorn (2 sync workers) on the bench settings, a Celery worker on the spam
queue (threads pool, so that 2-second checks overlap), localservers' Akismet
stand-in with a 2 s delay, Redis broker, PostgreSQL. Two clients POST the form
(CSRF token from the entry page, as a browser does) and time each POST; then
the bench waits until every comment has been checked.
"""

import os
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import httpx

from bench.harness import (
    ROOT,
    bench_environment,
    cpu_by_kind,
    median,
    percentile,
    start_workers,
    stop_workers,
    task_times,
)
from bench.report import Report
from localservers.akismet_server import AkismetStandIn
from localservers.processes import WatchedProcess
from localservers.services import free_port
from localservers.smtp_server import SmtpServer
from localservers.waiting import wait_until

POSTS = 500
CLIENTS = 2
GUNICORN_WORKERS = 2
AKISMET_DELAY = 2.0
MAIL_DELAY = 2.0  # the SMTP server's, before its greeting
NOTIFIED = "ada@example.com"  # the author of the comment every reply answers
CHECK_THREADS = 50  # spam checks waiting on Akismet at once
KEY = "bench-key"


def start_gunicorn(port, app="project.wsgi:application"):
    argv = [
        sys.executable,
        "-m",
        "gunicorn",
        app,
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(GUNICORN_WORKERS),
    ]
    web = WatchedProcess(argv, cwd=ROOT, env=dict(os.environ))
    for _ in range(GUNICORN_WORKERS):
        web.wait_for(r"Booting worker with pid", timeout=30)
    return web


def post_comments(base_url, entry_url, count, first, parent=None):
    """POST ``count`` comments (replies to ``parent``) as one visitor; each POST's time in ms."""
    times = []
    with httpx.Client(base_url=base_url, timeout=30) as client:
        page = client.get(entry_url)
        page.raise_for_status()
        token = client.cookies["csrftoken"]
        for number in range(first, first + count):
            form = {
                "csrfmiddlewaretoken": token,
                "name": f"Reader {number}",
                "email_address": f"reader{number}@example.com",
                "homepage": "",
                "comment": f"Comment number {number}: thanks for the write-up.",
                "website": "",
                **({"parent": parent} if parent else {}),
            }
            started = time.perf_counter()
            response = client.post(f"{entry_url}comment/", data=form)
            times.append((time.perf_counter() - started) * 1000)
            if response.status_code != 303:
                raise AssertionError(f"POST answered {response.status_code}: {response.text[:500]}")
    return times


def published_entry():
    """The one entry every POST comments on."""
    from blog.models import Entry

    return Entry.objects.create(
        title="Entry 0", slug="entry-0", body="Some text.", is_published=True
    )


def main():
    report = Report("comments", "Comment latency")
    akismet = AkismetStandIn(keys=[KEY]).start()
    akismet.delay = AKISMET_DELAY
    os.environ.update(AKISMET_API_KEY=KEY, AKISMET_API_URL=akismet.url)
    smtp = SmtpServer().start()
    smtp.delay = MAIL_DELAY
    mail = {"EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend"}
    mail |= {"EMAIL_HOST": smtp.host, "EMAIL_PORT": str(smtp.port)}
    try:
        with bench_environment(memcached=True, redis=True):
            from blog.models import Comment

            entry_url = published_entry().get_absolute_url()
            port = free_port()
            web = start_gunicorn(port)
            workers = []
            try:
                workers = start_workers(
                    1, queues=["spam"], concurrency=CHECK_THREADS, pool="threads", env=mail
                )
                # A few GETs first, so that no gunicorn worker's first request is timed.
                for _ in range(4):
                    httpx.get(f"http://127.0.0.1:{port}{entry_url}").raise_for_status()
                cpu_before = cpu_by_kind(workers)
                started = time.perf_counter()
                times = post_all(port, entry_url, first=0)
                posted = time.perf_counter() - started
                cpu_during = cpu_by_kind(workers) - cpu_before
                wait_until(
                    lambda: not Comment.objects.pending().exists(),
                    timeout=300,
                    message="every comment checked",
                )
                checked = time.perf_counter() - started
                statuses = dict(Counter(Comment.objects.values_list("status", flat=True)))
                # The same replies without, then with notices: each reply, once checked
                # and published, is mailed by the worker.
                control, _, control_s = post_replies(
                    port, entry_url, smtp, notify=False, first=3 * POSTS
                )
                notices, mailed, notices_s = post_replies(
                    port, entry_url, smtp, notify=True, first=2 * POSTS
                )
                # Then the same POSTs with no spam worker on the 2 cores (they stay pending):
                # what the checks running beside the form cost its tail.
                stop_workers(workers)
                alone = post_all(port, entry_url, first=POSTS)
            finally:
                stop_workers(workers)
                web.process.terminate()
                web.process.wait(timeout=30)
            check_ms = task_times(workers, "blog.tasks.spam_filter")["?"]
    finally:
        akismet.stop()
        smtp.stop()

    checks = len(akismet.calls("comment-check"))
    delay_ms = AKISMET_DELAY * 1000
    goal_ms = 0.01 * delay_ms  # SPEC §7: p99 under 1% of the delay
    # The first check waits for the verify-key call, then for its own answer: every
    # answer, and the checks' writes, came after the POSTs when they took less.
    answers_after_posts = posted < 2 * AKISMET_DELAY
    # Each client's POSTs in order: the first `burst` of each came while the worker
    # started one check per comment, until its CHECK_THREADS threads were all waiting.
    share, burst = POSTS // CLIENTS, CHECK_THREADS // CLIENTS
    slow = [number % share for number, ms in enumerate(times) if ms >= goal_ms]
    slow_in_burst = sum(position < burst for position in slow)
    worker_cpu_ms = cpu_during["worker parents"] * 1000  # a threads pool: one process
    alone_p50, alone_p99 = median(alone), percentile(alone, 99)
    p50, p99 = median(times), percentile(times, 99)
    ideal = POSTS * AKISMET_DELAY / CHECK_THREADS
    report.raw |= {
        "posts": POSTS,
        "clients": CLIENTS,
        "gunicorn_workers": GUNICORN_WORKERS,
        "akismet_delay_s": AKISMET_DELAY,
        "check_threads": CHECK_THREADS,
        "post_ms": times,
        "post_ms_without_worker": alone,
        "posting_s": posted,
        "all_checked_s": checked,
        "comment_checks": checks,
        "statuses": statuses,
        "check_task_ms": check_ms,
        "cpu_ms_during_posts": {kind: seconds * 1000 for kind, seconds in cpu_during.items()},
        "slow_post_positions": slow,
    }
    report.row(
        f"comment latency: {POSTS} POSTs, Akismet delayed {AKISMET_DELAY:.0f} s, p99",
        f"{p99:.1f} ms",
        f"{delay_ms:.0f} ms (the delay)",
        f"{p99 / delay_ms:.1%}",
        "< 1% of the delay",
        p99 < goal_ms,
    )
    notices_p99, control_p99 = percentile(notices, 99), percentile(control, 99)
    report.raw |= {"notices_post_ms": notices, "notices_all_mailed_s": mailed}
    report.raw |= {"control_reply_post_ms": control}
    report.row(
        f"notices: {POSTS} reply POSTs, each mailed, SMTP delayed {MAIL_DELAY:.0f} s, p99 "
        f"({MAIL_DELAY * 1000:.0f} ms: the delay); baseline: the same replies, notices off",
        f"{notices_p99:.1f} ms ({notices_p99 / (MAIL_DELAY * 1000):.1%} of the delay)",
        f"{control_p99:.1f} ms",
        f"{notices_p99 / control_p99:.2f}x",
        "< 1% of the delay",
        notices_p99 < 0.01 * MAIL_DELAY * 1000,
    )
    report.note(
        f"Notices: the {POSTS} replies were checked, published and each mailed to "
        f"{NOTIFIED} by the same worker {mailed:.1f} s after the first POST (p50 of the "
        f"POSTs {median(notices):.1f} ms, {median(control):.1f} ms with notices off): the "
        "POST never waits for the mail, which a task sends after the spam check."
    )
    late = [ms for number, ms in enumerate(notices) if number % share >= burst]
    report.note(
        f"The replies' POSTs took {notices_s:.1f} s with notices, {control_s:.1f} s without; "
        f"past {AKISMET_DELAY:.0f} s the first checks' answers are written (publishing, each "
        f"reply's notice queued) on the same 2 cores. POSTs over {goal_ms:.0f} ms with notices: "
        f"{sum(ms >= goal_ms for ms in notices)}, {sum(ms >= goal_ms for ms in late)} of them "
        f"after each client's first {burst}."
    )
    report.row(
        "comment latency: p50",
        f"{p50:.1f} ms",
        f"{delay_ms:.0f} ms (the delay)",
        f"{p50 / delay_ms:.1%}",
    )
    report.row(
        "comment latency: the same POSTs with the spam worker stopped, p50 / p99",
        f"{alone_p50:.1f} / {alone_p99:.1f} ms",
        f"{delay_ms:.0f} ms (the delay)",
        f"{alone_p99 / delay_ms:.1%}",
    )
    report.row(
        f"comment latency: all {POSTS} checked by the worker",
        f"{checked:.1f} s",
        f"{ideal:.0f} s ({POSTS} x {AKISMET_DELAY:.0f} s / {CHECK_THREADS} threads)",
        f"{checked / ideal:.2f}x",
    )
    report.note(
        f"{CLIENTS} clients POSTed {POSTS} comments in {posted:.1f} s; the stand-in "
        f"answered {checks} comment-checks; statuses after: {statuses}. One check took "
        f"{median(check_ms) / 1000:.2f} s in the worker (median; p99 "
        f"{percentile(check_ms, 99) / 1000:.2f} s), the stand-in's {AKISMET_DELAY:.0f} s "
        f"included; {CHECK_THREADS} threads ran them, the first ones after the process's "
        "single verify-key call, which the stand-in delays too."
    )
    report.note(
        f"During the {posted:.1f} s of POSTs the spam worker used "
        f"{worker_cpu_ms:.0f} ms of CPU and PostgreSQL {cpu_during['PostgreSQL'] * 1000:.0f} ms. "
        f"{len(slow)} POSTs took {goal_ms:.0f} ms or more; {slow_in_burst} of them were among "
        f"each client's first {burst}, while the worker started a check for each new comment "
        f"until its {CHECK_THREADS} threads were all waiting on Akismet"
        + (
            " (their answers, and the checks' writes, came after the POSTs)."
            if answers_after_posts
            else "."
        )
    )
    if p99 >= goal_ms:
        if slow_in_burst * 2 > len(slow):
            where = (
                f"Most of the tail is the first {CHECK_THREADS} comments: the worker starting "
                "their checks (receiving each message from Redis and recording it as "
                "unacknowledged, a thread's first query opening its own PostgreSQL connection, "
                f"the request to Akismet) on the same 2 cores as {GUNICORN_WORKERS} gunicorn "
                f"processes, the {CLIENTS} clients and PostgreSQL"
            )
        else:
            where = (
                f"Most of the POSTs over {goal_ms:.0f} ms came after each client's first {burst}"
            )
            if not answers_after_posts:
                where += ", while the checks' answers were written on the same 2 cores"
        report.note(
            f"Why not p99 < {goal_ms:.0f} ms: the view sends the check after its response (it "
            f"never waits on Akismet or the broker), and with the worker stopped the same POSTs "
            f"measured p99 {alone_p99:.1f} ms (p50 {alone_p50:.1f}). {where}; see "
            "docs/dev/performance.md (twelfth round)."
        )
    report.save()


def post_all(port, entry_url, first, parent=None):
    """Milliseconds of POSTS comment POSTs from CLIENTS clients, numbered from ``first``."""
    share = POSTS // CLIENTS
    with ThreadPoolExecutor(CLIENTS) as pool:
        batches = pool.map(
            lambda n: post_comments(f"http://127.0.0.1:{port}", entry_url, share, n, parent),
            range(first, first + POSTS, share),
        )
        return [ms for batch in batches for ms in batch]


def post_replies(port, entry_url, smtp, *, notify, first):
    """POSTS replies to a comment whose author asked for notices (``notify``) or not; their
    POST times (ms), the seconds until every reply was published and, with notices,
    the SMTP server had received every notice, and the seconds the POSTs took."""
    from blog.models import Comment, Entry

    entry = Entry.objects.get(slug="entry-0")
    parent = Comment.objects.create(
        entry=entry, name="Ada", email_address=NOTIFIED, comment="Top.", notify_replies=notify,
        status=Comment.Status.PUBLISHED,
    )  # fmt: skip
    started = time.perf_counter()
    times = post_all(port, entry_url, first=first, parent=parent.pk)
    posting = time.perf_counter() - started
    replies = parent.replies.all()
    wait_until(
        lambda: replies.published().count() == POSTS, timeout=300, message="every reply checked"
    )
    if notify:
        wait_until(lambda: len(smtp.to(NOTIFIED)) >= POSTS, timeout=300, message="every notice")
    return times, time.perf_counter() - started, posting


if __name__ == "__main__":
    main()
