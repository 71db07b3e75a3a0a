"""What a test sees of the lock cache's traffic: the writes (round trips) of one client."""


def memcached_writes(client, monkeypatch):
    """The writes ``client`` (a pymemcache client, connected) makes from now on, each a round trip.

    The socket is wrapped, not replaced: every write still reaches memcached.
    """
    written = []
    socket = client.sock

    class Counted:
        def sendall(self, data):
            written.append(data)
            return socket.sendall(data)

        def __getattr__(self, name):
            return getattr(socket, name)

    monkeypatch.setattr(client, "sock", Counted())
    return written
