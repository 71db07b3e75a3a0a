"""Comments posted as a visitor and followed through the spam check, for tests that use workers."""

from blog.models import Comment
from localservers.waiting import wait_until

FORM = {"email_address": "reader@example.com", "comment": "Thanks, this helped me a lot."}


VALID = {
    "name": "Ada",
    "email_address": "ada@example.com",
    "homepage": "https://ada.example.com/",
    "comment": "Lovely post about queues.",
}


def post_comment(client, entry, data=None, **headers):
    """POST a comment (VALID unless ``data`` is given) to the entry; the response."""
    return client.post(f"/blog/{entry.slug}/comment/", data or VALID, **headers)


def post(client, entry, name="Ada", **fields):
    """Post a comment as a visitor with a fixed address and agent; the stored comment."""
    response = client.post(
        f"/blog/{entry.slug}/comment/",
        FORM | {"name": name} | fields,
        REMOTE_ADDR="203.0.113.50",
        HTTP_USER_AGENT="TestBrowser/2.0",
    )
    assert response.status_code == 303
    return Comment.objects.latest("pk")


def settled(comment, timeout=30):
    """The comment once a check has finished with it (checked or failed for good)."""

    def done():
        return comment.events.filter(kind__in=["checked", "check_failed"]).exists()

    wait_until(done, timeout, message=f"a finished check of comment {comment.pk}")
    comment.refresh_from_db()
    return comment


def kinds(comment):
    """The kinds of the comment's history events, oldest first."""
    return list(comment.events.values_list("kind", flat=True))
