"""IMAP and SMTP with the standard library (imaplib, smtplib): blocking, so callers run these
functions in a worker thread. Sockets connect to the address the egress check returned (the
host name is kept for TLS verification), never to a second DNS answer.

Every string argument of an IMAP command is sent as a quoted string (`imap_string`: one line,
`\\` and `"` escaped) or as a literal — never bare: imaplib's own `login` sends the user name
as it is, so a user name with CR LF could add commands of its own."""

from __future__ import annotations

import email
import email.policy
import imaplib
import re
import smtplib
import socket
import ssl
from contextlib import suppress
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any

from pydantic import Field, model_validator

from agentur.connections.kinds import ConnectionSettingsModel, Security
from agentur.egress.parse_url import Target, UrlRefusedError, parse_host
from agentur.errors import AgenturError, InvalidInputError, NotFoundError, TooLargeError
from agentur.wire_values import wire_problem


class MailError(AgenturError, status_code=502, title="Mail server error"):
    """The mail server refused or failed; the message is safe to show (no credentials)."""


class _PinnedIMAP4(imaplib.IMAP4):
    def __init__(self, address: str, host: str, port: int, timeout: float) -> None:
        self._address = address
        super().__init__(host, port, timeout=timeout)

    def _create_socket(self, timeout: float | None) -> socket.socket:
        return socket.create_connection((self._address, self.port), timeout)


class _PinnedIMAP4SSL(imaplib.IMAP4_SSL):
    def __init__(self, address: str, host: str, port: int, timeout: float) -> None:
        self._address = address
        super().__init__(host, port, ssl_context=ssl.create_default_context(), timeout=timeout)

    def _create_socket(self, timeout: float | None) -> socket.socket:
        sock = socket.create_connection((self._address, self.port), timeout)
        return self.ssl_context.wrap_socket(sock, server_hostname=self.host)


class _PinnedSMTP(smtplib.SMTP):
    def __init__(self, address: str, timeout: float) -> None:
        self._address = address
        super().__init__(timeout=timeout)

    def _get_socket(self, host: str, port: int, timeout: float) -> socket.socket:
        return socket.create_connection((self._address, port), timeout, self.source_address)


class _PinnedSMTPSSL(smtplib.SMTP_SSL):
    def __init__(self, address: str, timeout: float) -> None:
        self._address = address
        super().__init__(timeout=timeout, context=ssl.create_default_context())

    def _get_socket(self, host: str, port: int, timeout: float) -> socket.socket:
        sock = socket.create_connection((self._address, port), timeout, self.source_address)
        return self.context.wrap_socket(sock, server_hostname=self._host)


class MailSettings(ConnectionSettingsModel):
    username: str = Field(min_length=1, max_length=320)
    from_address: str = Field(min_length=3, max_length=320)
    imap_host: str = Field(min_length=1, max_length=253)
    imap_port: int = Field(default=993, ge=1, le=65535)
    imap_security: Security = Security.tls
    smtp_host: str = Field(min_length=1, max_length=253)
    smtp_port: int = Field(default=465, ge=1, le=65535)
    smtp_security: Security = Security.tls

    @model_validator(mode="after")
    def _egress_hosts(self) -> MailSettings:
        for field in ("imap_host", "smtp_host"):
            try:
                parse_host(getattr(self, field), 1, "mail")
            except UrlRefusedError as error:
                raise ValueError(f"{field}: {error.detail}") from error
        return self

    @property
    def imap_target(self) -> Target:
        return parse_host(self.imap_host, self.imap_port, "imap")

    @property
    def smtp_target(self) -> Target:
        return parse_host(self.smtp_host, self.smtp_port, "smtp")

    def targets(self) -> list[tuple[str, Target]]:
        return [("imap_host", self.imap_target), ("smtp_host", self.smtp_target)]


@dataclass(frozen=True, slots=True)
class MailAccess:
    settings: MailSettings
    password: str
    timeout_seconds: float


def imap_string(value: str, what: str = "an IMAP argument") -> bytes:
    """`value` as an IMAP quoted string (RFC 3501): one line, `\\` and `"` escaped."""
    if problem := wire_problem(value):
        raise InvalidInputError(f"{what} {problem}")
    return b'"' + value.replace("\\", "\\\\").replace('"', '\\"').encode() + b'"'


@dataclass(frozen=True, slots=True)
class LoginArguments:
    user: bytes  # a quoted string
    password: bytes  # a quoted string, or the bytes of a literal
    literal: bool


def login_arguments(user: str, password: str) -> LoginArguments:
    """LOGIN's arguments, checked before anything is sent: both quoted; a password that is not
    ASCII goes as a literal (its UTF-8 bytes, which a quoted string may not carry)."""
    quoted_user = imap_string(user, "the user name")
    if password.isascii():
        return LoginArguments(quoted_user, imap_string(password, "the password"), literal=False)
    if problem := wire_problem(password):
        raise InvalidInputError(f"the password {problem}")
    return LoginArguments(quoted_user, password.encode(), literal=True)


def login(imap: imaplib.IMAP4, arguments: LoginArguments) -> None:
    """What `IMAP4.login` does, with the arguments quoted (it has no hook for that). imaplib
    sends one literal per command, always last — the password's place."""
    sent = [arguments.user]
    if arguments.literal:
        imap.literal = arguments.password
    else:
        sent.append(arguments.password)
    status, data = imap._simple_command("LOGIN", *sent)
    if status != "OK":
        raise imap.error(data[-1])
    imap.state = "AUTH"


def _connect_imap(access: MailAccess, address: str) -> imaplib.IMAP4:
    settings = access.settings
    if settings.imap_security is Security.tls:
        return _PinnedIMAP4SSL(
            address, settings.imap_host, settings.imap_port, access.timeout_seconds
        )
    imap = _PinnedIMAP4(address, settings.imap_host, settings.imap_port, access.timeout_seconds)
    if settings.imap_security is Security.starttls:
        try:
            imap.starttls(ssl.create_default_context())
        except BaseException:
            imap.shutdown()
            raise
    return imap


def open_imap(access: MailAccess, address: str) -> imaplib.IMAP4:
    settings = access.settings
    arguments = login_arguments(settings.username, access.password)  # before any traffic
    try:
        imap = _connect_imap(access, address)
        try:
            login(imap, arguments)
        except BaseException:
            with suppress(OSError):
                imap.shutdown()
            raise
    except (OSError, imaplib.IMAP4.error) as error:
        raise MailError(f"IMAP {settings.imap_host}:{settings.imap_port}: {error}") from error
    return imap


def _ok(result: tuple[str, list[Any]], what: str) -> list[Any]:
    status, data = result
    if status != "OK":
        detail = b" ".join(d for d in data if isinstance(d, bytes)).decode(errors="replace")
        raise MailError(f"IMAP {what} failed: {detail or status}")
    return data


LIST_LINE = re.compile(rb'\((?P<flags>[^)]*)\) (?P<delim>"[^"]*"|NIL) (?P<name>.+)$')


def list_mailboxes(imap: imaplib.IMAP4) -> list[str]:
    names: list[str] = []
    for line in _ok(imap.list(), "LIST"):
        match = LIST_LINE.match(line) if isinstance(line, bytes) else None
        if match and b"\\noselect" not in match["flags"].lower():
            names.append(match["name"].strip(b'"').decode("utf-8", errors="replace"))
    return names


def select(imap: imaplib.IMAP4, mailbox: str) -> None:
    quoted = imap_string(mailbox, "the mailbox name").decode()
    status, data = imap.select(quoted, readonly=True)
    if status != "OK":
        raise NotFoundError(f"mailbox {mailbox!r} cannot be opened")


def search(imap: imaplib.IMAP4, criteria: list[bytes]) -> list[int]:
    """UIDs matching, newest first. Non-ASCII values are sent with CHARSET UTF-8."""
    arguments = criteria or [b"ALL"]
    charset = "UTF-8" if any(max(part, default=0) > 127 for part in arguments) else None
    data = _ok(imap.uid("SEARCH", *([f"CHARSET {charset}"] if charset else []), *arguments),
               "SEARCH")  # fmt: skip
    uids = [int(uid) for uid in (data[0] or b"").split()]
    return sorted(uids, reverse=True)


HEADER_FIELDS = "FROM TO CC SUBJECT DATE"


def headers(imap: imaplib.IMAP4, uids: list[int]) -> list[dict[str, Any]]:
    if not uids:
        return []
    wanted = ",".join(str(uid) for uid in uids)
    data = _ok(
        imap.uid("FETCH", wanted, f"(UID RFC822.SIZE BODY.PEEK[HEADER.FIELDS ({HEADER_FIELDS})])"),
        "FETCH",
    )
    found: dict[int, dict[str, Any]] = {}
    for part in data:
        if not isinstance(part, tuple):
            continue
        meta, raw = part
        uid = re.search(rb"UID (\d+)", meta)
        size = re.search(rb"RFC822\.SIZE (\d+)", meta)
        if uid is None:
            continue
        parsed = email.message_from_bytes(raw, policy=email.policy.default)
        found[int(uid[1])] = {
            "uid": int(uid[1]),
            "from": str(parsed.get("from", "")),
            "to": str(parsed.get("to", "")),
            "cc": str(parsed.get("cc", "")),
            "subject": str(parsed.get("subject", "")),
            "date": str(parsed.get("date", "")),
            "size": int(size[1]) if size else None,
        }
    return [found[uid] for uid in uids if uid in found]


def fetch_message(imap: imaplib.IMAP4, uid: int, max_bytes: int) -> EmailMessage:
    [meta] = headers(imap, [uid]) or [None]
    if meta is None:
        raise NotFoundError(f"message {uid} not found in this mailbox")
    if meta["size"] is not None and meta["size"] > max_bytes:
        raise TooLargeError(f"message {uid} has {meta['size']} bytes; the limit is {max_bytes}")
    for part in _ok(imap.uid("FETCH", str(uid), "(BODY.PEEK[])"), "FETCH"):
        if isinstance(part, tuple):
            message = email.message_from_bytes(part[1], policy=email.policy.default)
            assert isinstance(message, EmailMessage)
            return message
    raise NotFoundError(f"message {uid} not found in this mailbox")


def _open_smtp(access: MailAccess, address: str) -> smtplib.SMTP:
    settings = access.settings
    smtp: smtplib.SMTP
    if settings.smtp_security is Security.tls:
        smtp = _PinnedSMTPSSL(address, access.timeout_seconds)
    else:
        smtp = _PinnedSMTP(address, access.timeout_seconds)
    try:
        smtp.connect(settings.smtp_host, settings.smtp_port)
        smtp.ehlo()
        if settings.smtp_security is Security.starttls:
            smtp.starttls(context=ssl.create_default_context())
            smtp.ehlo()
        if access.password:
            smtp.login(settings.username, access.password)
    except BaseException:
        smtp.close()
        raise
    return smtp


def check_smtp(access: MailAccess, address: str) -> None:
    """Connect and log in, send nothing."""
    try:
        _close(_open_smtp(access, address))
    except (OSError, smtplib.SMTPException) as error:
        settings = access.settings
        raise MailError(f"SMTP {settings.smtp_host}:{settings.smtp_port}: {error}") from error


def _close(smtp: smtplib.SMTP) -> None:
    try:
        smtp.quit()
    except (OSError, smtplib.SMTPException):
        smtp.close()


def send(access: MailAccess, address: str, message: EmailMessage) -> dict[str, Any]:
    """Deliver to the SMTP server; returns the server's reply to the message data. Raises
    `MailError` unless every recipient and the data were accepted."""
    settings = access.settings
    recipients = [
        addr.addr_spec
        for field in ("To", "Cc", "Bcc")
        for addr in getattr(message.get(field), "addresses", ())
    ]
    payload = message.as_bytes(policy=email.policy.SMTP)
    smtp: smtplib.SMTP | None = None
    try:
        smtp = _open_smtp(access, address)
        code, reply = smtp.mail(settings.from_address)
        if code != 250:
            raise MailError(f"SMTP refused the sender: {code} {reply.decode(errors='replace')}")
        for recipient in recipients:
            code, reply = smtp.rcpt(recipient)
            if code not in (250, 251):
                raise MailError(
                    f"SMTP refused {recipient}: {code} {reply.decode(errors='replace')}"
                )
        code, reply = smtp.data(payload)
        if code != 250:
            raise MailError(f"SMTP refused the message: {code} {reply.decode(errors='replace')}")
        return {"smtp_code": code, "smtp_reply": reply.decode(errors="replace")}
    except (OSError, smtplib.SMTPException) as error:
        raise MailError(f"SMTP {settings.smtp_host}:{settings.smtp_port}: {error}") from error
    finally:
        if smtp is not None:
            _close(smtp)
