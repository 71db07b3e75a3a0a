"""A small SMTP server on loopback that keeps what it receives: the mail server of the tests.

It speaks enough of RFC 5321 for Django's SMTP backend (and smtplib): ``EHLO``/``HELO``,
``MAIL FROM``, ``RCPT TO``, ``DATA`` (dot-unstuffed), ``RSET``, ``NOOP``, ``QUIT``; no
TLS and no AUTH. Each message is kept parsed (``messages``, ``email.message.EmailMessage``
with the envelope's recipients as ``envelope_to``). Tests can make it slow (``delay``:
seconds before its greeting, as a loaded or distant server answers) or failing
(``fail_next(n, code)``: the next ``n`` messages get ``code`` at ``DATA``'s end, 451 by
default: a temporary failure a client should retry), or refuse recipients for good
(``refused``: 550 at ``RCPT``).

From the command line, for reading the mail of ``make run`` by hand::

    python -m localservers.smtp_server --port 1025 [--delay 2]
"""

import argparse
import email
import email.policy
import socketserver
import threading
import time

from localservers.waiting import wait_until


class Handler(socketserver.StreamRequestHandler):
    timeout = 30  # a client that stops talking releases its thread

    def reply(self, line):
        self.wfile.write(f"{line}\r\n".encode())

    def handle(self):
        server = self.server.smtp
        if server.delay:
            time.sleep(server.delay)
        self.reply("220 localservers SMTP ready")
        sender, recipients = None, []
        while line := self.rfile.readline(65536):
            command, _, argument = line.decode("utf-8", "replace").rstrip("\r\n").partition(" ")
            verb = command.upper()
            if verb == "EHLO":
                self.reply("250-localhost")
                self.reply("250-8BITMIME")
                self.reply("250 SMTPUTF8")
            elif verb == "HELO":
                self.reply("250 localhost")
            elif verb == "MAIL":
                sender, recipients = argument.partition(":")[2].strip(), []
                self.reply("250 OK")
            elif verb == "RCPT":
                address = argument.partition(":")[2].strip().strip("<>")
                if address in server.refused:
                    self.reply("550 No such user here")
                    continue
                recipients.append(address)
                self.reply("250 OK")
            elif verb == "DATA":
                if sender is None or not recipients:
                    self.reply("503 MAIL and RCPT first")
                    continue
                self.reply("354 End data with <CR><LF>.<CR><LF>")
                self.reply(server.receive(self.read_data(), recipients))
                sender, recipients = None, []
            elif verb == "RSET":
                sender, recipients = None, []
                self.reply("250 OK")
            elif verb == "NOOP":
                self.reply("250 OK")
            elif verb == "QUIT":
                self.reply("221 Bye")
                return
            else:
                self.reply("502 Command not implemented")

    def read_data(self):
        lines = []
        while (line := self.rfile.readline(1 << 20)) not in (b".\r\n", b".\n", b""):
            lines.append(line[1:] if line.startswith(b"..") else line)  # dot-unstuffing
        return b"".join(lines)


class ThreadingServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


class SmtpServer:
    """Start it, point EMAIL_HOST and EMAIL_PORT at ``host`` and ``port``, read ``messages``."""

    def __init__(self, host="127.0.0.1", port=0):
        self.address = (host, port)
        self.messages = []
        self.delay = 0.0
        self.verbose = False
        self._failures = []  # the codes the next messages get, in order
        self.refused = set()  # addresses answered 550 at RCPT: "no such user", for good
        self._lock = threading.Lock()
        self._server = None

    def start(self):
        self._server = ThreadingServer(self.address, Handler)
        self._server.smtp = self
        self.host, self.port = self._server.server_address[:2]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self):
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def reset(self):
        with self._lock:
            self.messages.clear()
            self._failures.clear()
            self.refused.clear()
        self.delay = 0.0

    def fail_next(self, count, code=451):
        """The next ``count`` messages are refused with ``code`` (4xx: try later; 5xx: never)."""
        with self._lock:
            self._failures.extend([code] * count)

    def receive(self, data, recipients):
        """Keep one message, or refuse it as told; returns the answer to ``DATA``."""
        with self._lock:
            if self._failures:
                code = self._failures.pop(0)
                return f"{code} Refused by the test (localservers.smtp_server)"
            message = email.message_from_bytes(data, policy=email.policy.default)
            message.envelope_to = recipients
            self.messages.append(message)
        if self.verbose:
            print(message, flush=True)
        return "250 OK: queued"

    def to(self, address):
        """The messages whose envelope names ``address``, oldest first."""
        with self._lock:
            return [message for message in self.messages if address in message.envelope_to]

    def wait_for(self, address, count=1, timeout=30):
        """The first ``count`` messages to ``address``, once that many have arrived."""
        wait_until(lambda: len(self.to(address)) >= count, timeout, f"{count} mail(s) to {address}")
        return self.to(address)[:count]


def text_part(message):
    """A message's plain text part, decoded."""
    return message.get_body(preferencelist=("plain",)).get_content()


def html_part(message):
    """A message's HTML part, decoded."""
    return message.get_body(preferencelist=("html",)).get_content()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=1025)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before the greeting")
    args = parser.parse_args()
    server = SmtpServer(port=args.port)
    server.delay, server.verbose = args.delay, True
    server.start()
    print(f"SMTP on {server.host}:{server.port}; each message is printed. Ctrl-C stops.")
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
