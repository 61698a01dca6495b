"""An SMTP stub server for the tests that deliver mail (the mail, market, schedule and fault
tests): it takes what smtplib sends and keeps the envelopes. The fixture `smtp_server`
(tests/conftest.py) serves one for a test."""

import socket
import socketserver
import threading
from contextlib import contextmanager
from email import message_from_bytes, policy


class SMTPStub(socketserver.StreamRequestHandler):
    """Just enough SMTP for smtplib: greet, accept one sender, recipients and the data.
    A subclass's `answers` replace the usual reply to a command: {"RCPT": "451 busy"}."""

    answers: dict[str, str] = {}

    def reply(self, line: str) -> None:
        self.wfile.write(line.encode() + b"\r\n")

    def handle(self) -> None:
        self.reply("220 stub ESMTP")
        envelope: dict = {"rcpt": []}
        while line := self.rfile.readline():
            command = line.decode(errors="replace").strip()
            verb = command.split(" ", 1)[0].upper()
            if verb in self.answers:
                self.reply(self.answers[verb])
            elif verb in ("EHLO", "HELO"):
                self.reply("250 stub")
            elif verb == "MAIL":
                envelope["from"] = command
                self.reply("250 OK")
            elif verb == "RCPT":
                envelope["rcpt"].append(command)
                self.reply("250 OK")
            elif verb == "DATA":
                self.reply("354 go on")
                data = b""
                while (chunk := self.rfile.readline()) not in (b".\r\n", b""):
                    data += chunk[1:] if chunk.startswith(b"..") else chunk
                envelope["data"] = data
                self.server.received.append(envelope)
                envelope = {"rcpt": []}
                self.reply("250 queued")
            elif verb == "QUIT":
                self.reply("221 bye")
                return
            else:
                self.reply("250 OK")


@contextmanager
def smtp_stub(handler: type[SMTPStub] = SMTPStub):
    """An SMTP stub server on a free port; the envelopes it took in its `received`."""
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    server.received = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def mail_through(app, server, monkeypatch) -> None:
    """`app` hands its mails to the stub `server` for the test (MAIL_URL)."""
    host, port = server.server_address
    monkeypatch.setitem(app.config, "MAIL_URL", f"smtp://{host}:{port}")


def free_port() -> int:
    """A port nothing listens on: an SMTP server that is down."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def subjects_received(server) -> list[str]:
    """The Subject of each mail the stub took, in order."""
    return [
        message_from_bytes(envelope["data"], policy=policy.default)["Subject"]
        for envelope in server.received
    ]
