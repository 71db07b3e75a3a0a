"""The spam backend interface: what the blog asks whichever service judges its comments.

``BLOG_SPAM_BACKEND`` names a class (dotted path) with this interface; the
blog ships two: ``blog.akismet_client.AkismetBackend`` and
``blog.local_rules.LocalRulesBackend``. A backend raises ``TemporaryFailure``
for what may succeed later (the task retries with backoff) and ``Refused``
when the service refuses this site's configuration (recorded, not retried).
Their messages are stored in the comment's history: keep secrets out of them.
This module imports no model and no optional library, so a host's backend
module can import it at any time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeGuard

if TYPE_CHECKING:
    from blog.models import Comment


@dataclass(frozen=True)
class Verdict:
    """A backend's answer about one comment.

    ``kind`` is ``HAM``, ``SPAM`` or ``DISCARD`` (blatant spam); ``reason`` says
    why, for the comment's history; ``data`` is what was sent, stored with the
    comment (``akismet_payload``) for the moderators' feedback later.
    """

    HAM = "ham"
    SPAM = "spam"
    DISCARD = "discard"

    kind: str
    reason: str = ""
    data: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def is_spam(self) -> bool:
        return self.kind != self.HAM


class TemporaryFailure(Exception):
    """The service could not answer now (network, timeout, 5xx): worth trying again."""


class Refused(Exception):
    """The service refused this site's configuration (key, site URL): an operator must act."""


class SpamBackend:
    """The interface. Subclass it and set ``name``; ``check`` is the one method required."""

    # Short and stable: the comment's history says "<name>: spam".
    name = ""
    # True when the backend asks an outside service: /healthz and the sweeper read
    # is_misconfigured() then.
    remote = False

    def check(self, comment: Comment, remote_addr: str | None = None) -> Verdict:
        """The ``Verdict`` about a pending ``comment`` (``remote_addr``: the poster's IP)."""
        raise NotImplementedError

    def submit_spam(self, comment: Comment) -> bool:
        """Tell the service a moderator found ``comment`` to be spam; True when it was told."""
        return False

    def submit_ham(self, comment: Comment) -> bool:
        """Tell the service a moderator found ``comment`` not to be spam; True when it was told."""
        return False

    def is_misconfigured(self) -> bool:
        """True while the service is known to refuse this site's configuration."""
        return False


def is_backend(candidate: object) -> TypeGuard[type[SpamBackend]]:
    """True for a ``SpamBackend`` subclass with a ``name``."""
    return (
        isinstance(candidate, type) and issubclass(candidate, SpamBackend) and bool(candidate.name)
    )
