"""The embedded broker: kombu's filesystem transport, each message whole before a worker sees it.

kombu's filesystem transport creates a message's file, then writes into it: a
worker listing the folder in between moves the empty file away, fails to
decode it and dies (``JSONDecodeError``, seen in CI's embedded-defaults pass).
Here a message is written under a name no queue reads (``.part``), then
renamed to its real one: a rename within a folder is atomic. ``install()``
makes ``filesystem://`` URLs use this transport; the broker of a production
site (Redis, RabbitMQ) is untouched.
"""

import os
import uuid
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import TRANSPORT_ALIASES, filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        """Put ``payload`` onto ``queue``: written aside, then renamed into the queue."""
        # kombu's name: the time orders the queue, the queue's name ends it (.<queue>.msg).
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = f"{final}.part"  # "<queue>.msg.part": no queue's reader takes it
        try:
            with open(partial, "wb") as file:
                file.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel


def install():
    """``filesystem://`` brokers use ``Transport`` (kombu looks the alias up per connection)."""
    TRANSPORT_ALIASES["filesystem"] = f"{__name__}:Transport"
