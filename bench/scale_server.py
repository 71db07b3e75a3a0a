"""A fast feed server for bench_scale: asyncio, one process, every feed a path, fetches counted.

``python -m bench.scale_server PORT HOSTS`` serves on HOSTS loopback addresses (one
port; ``localservers.loopback.loopback_hosts``), by the first path segment:

- ``/304/<n>.xml``: 304 when asked with ``If-None-Match: "v1"``, else the document;
- ``/same/<n>.xml``: the same 200 document every time, without validators;
- ``/new/<n>.xml``: a 200 whose newest 1-3 items are new at every fetch;
- ``/err/<n>.xml``: 500; ``/reset/<n>.xml``: the connection closed unanswered;
- ``/slow/<n>.xml``: an answer after ``SLOW_SECONDS`` (longer than the bench's fetch timeout).

``/__stats`` answers JSON: fetches in all, distinct paths, paths fetched more than once.
localservers' ``FeedServer`` starts a thread per connection in the bench's own process;
this one parses just enough HTTP, so that the server is never the bottleneck.
"""

import asyncio
import collections
import contextlib
import json
import sys
import time
import zlib
from email.utils import formatdate

from localservers.loopback import loopback_hosts

SLOW_SECONDS = 30
ITEMS = 10
# Item n is dated n hours after this, at every fetch: a document's items keep their dates
# (the same checksums), so a "new" feed's only changes are its new items.
EPOCH = time.time() - 3600 * 1000


def document(name, first):
    """An RSS 2.0 document of ITEMS items numbered after ``first``, newest first, dated."""
    items = "".join(
        f"<item><title>{name} item {n}</title><link>http://example.com/{name}/{n}</link>"
        f"<guid>{name}-{n}</guid><description>Item {n} of {name}.</description>"
        f"<pubDate>{formatdate(EPOCH + 3600 * n, usegmt=True)}</pubDate></item>"
        for n in range(first + ITEMS, first, -1)
    )
    return (
        '<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel>'
        f"<title>{name}</title><link>http://example.com/{name}</link>"
        f"<description>bench feed</description>{items}</channel></rss>"
    ).encode()


class Server:
    def __init__(self):
        self.hits = collections.Counter()
        self.same = {}
        # A /new/ feed's document's first item: /__reset (which clears the hits) leaves
        # it, so that every fetch still brings new items.
        self.new_first = collections.Counter()

    def answer(self, path, headers):
        kind, _, name = path.strip("/").partition("/")
        self.hits[path] += 1
        if kind == "304":
            if headers.get("if-none-match") == '"v1"':
                return 304, b"", {"ETag": '"v1"'}
            return 200, document(name, 0), {"ETag": '"v1"'}
        if kind == "same":
            if name not in self.same:
                self.same[name] = document(name, 0)
            return 200, self.same[name], {}
        if kind == "new":
            # 1-3 new items, as many at every fetch of the feed: every round the same work.
            self.new_first[path] += 1 + zlib.crc32(name.encode()) % 3
            return 200, document(name, self.new_first[path]), {}
        if kind == "err":
            return 500, b"server error", {}
        return 404, b"no such feed", {}

    def stats(self):
        counts = list(self.hits.values())
        return {
            "fetches": sum(counts),
            "paths": len(counts),
            "fetched_more_than_once": sum(1 for count in counts if count > 1),
        }

    async def handle(self, reader, writer):
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        lines = head.decode("latin-1").split("\r\n")
        path = lines[0].split(" ")[1] if len(lines[0].split(" ")) > 1 else "/"
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if path == "/__stats":
            status, body, extra = 200, json.dumps(self.stats()).encode(), {}
        elif path == "/__reset":
            self.hits.clear()
            status, body, extra = 200, b"{}", {}
        elif path.startswith("/reset/"):
            self.hits[path] += 1
            writer.transport.abort()
            return
        elif path.startswith("/slow/"):
            self.hits[path] += 1
            await asyncio.sleep(SLOW_SECONDS)
            status, body, extra = 200, document(path, 0), {}
        else:
            status, body, extra = self.answer(path, headers)
        reason = {200: "OK", 304: "Not Modified", 404: "Not Found", 500: "Error"}[status]
        lines = [f"HTTP/1.1 {status} {reason}", "Connection: close"]
        if status != 304:
            lines += ["Content-Type: application/rss+xml", f"Content-Length: {len(body)}"]
        lines += [f"{name}: {value}" for name, value in extra.items()]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        writer.close()


async def main(port, hosts):
    server = Server()
    addresses = loopback_hosts(hosts)
    listener = await asyncio.start_server(server.handle, addresses, port, backlog=1024)
    print(f"serving on {port}", flush=True)
    async with listener:
        await listener.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), int(sys.argv[2])))
