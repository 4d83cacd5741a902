"""IMAP LOGIN against a real IMAP server (pymap): a crafted user name or password cannot add a
command of its own — even when it got past the API's checks (a row saved by an older version) —
and passwords with `"`, `\\`, spaces or non-ASCII letters log in."""

from __future__ import annotations

import imaplib
from collections.abc import Iterator

import pytest

from agentur.connections.kinds import Security
from agentur.connections.mail_client import (
    MailAccess,
    MailError,
    MailSettings,
    list_mailboxes,
    open_imap,
)
from agentur.errors import InvalidInputError
from tests.connections.mail_servers import IMAP_PASSWORD, IMAP_USER, imap_server

pytestmark = pytest.mark.slow  # a pymap server process per test

# With imaplib's own `login` (user name sent bare, CR LF passed on) each of these logs in and
# then runs `CREATE Injected` — the test below shows that mailbox never appears.
INJECTIONS = [
    (f"{IMAP_USER} {IMAP_PASSWORD}\r\nX1 CREATE", "Injected"),
    (f"{IMAP_USER} {IMAP_PASSWORD}\nX1 CREATE", "Injected"),
    (IMAP_USER, f"x\r\nX1 LOGIN {IMAP_USER} {IMAP_PASSWORD}\r\nX2 CREATE Injected\r\nX3 NOOP"),
    (f"{IMAP_USER} {IMAP_PASSWORD}\r\nX1 CREATE Injected\r\nX2 LOGIN\x00", "p"),
]


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with imap_server() as running:
        yield running


def access(port: int, user: str, password: str) -> MailAccess:
    # Constructed without validation: as a row the API's checks never saw.
    settings = MailSettings.model_construct(
        username=user, from_address="me@acme.test", imap_host="127.0.0.1", imap_port=port,
        imap_security=Security.none, smtp_host="127.0.0.1", smtp_port=1,
        smtp_security=Security.none,
    )  # fmt: skip
    return MailAccess(settings, password, 5.0)


def mailboxes(port: int, password: str = IMAP_PASSWORD) -> list[str]:
    imap = open_imap(access(port, IMAP_USER, password), "127.0.0.1")
    try:
        return list_mailboxes(imap)
    finally:
        imap.logout()


def injected_by_imaplib(port: int, user: str, password: str) -> None:
    """What the old code did: imaplib's `login`."""
    imap = imaplib.IMAP4("127.0.0.1", port)
    try:
        imap.login(user, password)
        imap.noop()
    except imaplib.IMAP4.error:
        pass
    finally:
        imap.shutdown()


@pytest.mark.parametrize(("user", "password"), INJECTIONS)
def test_a_crafted_login_adds_no_command(port: int, user: str, password: str) -> None:
    with pytest.raises((InvalidInputError, MailError)) as refused:
        open_imap(access(port, user, password), "127.0.0.1")
    assert "must be one line" in str(refused.value)
    assert "Injected" not in mailboxes(port)


def test_the_injections_are_real(port: int) -> None:
    """The crafted logins do inject with imaplib's own `login`: the test above would see it."""
    with imap_server() as fresh:
        user, password = INJECTIONS[0]
        injected_by_imaplib(fresh, user, password)
        assert "Injected" in mailboxes(fresh)


# The server prepares passwords with SASLprep (RFC 4013), which refuses tabs and unassigned code
# points such as emoji; everything it accepts must log in.
@pytest.mark.parametrize("password", ['p"a\\ss"\\', "pä$$wörd ß", "with space", '\\"'])
def test_passwords_with_quotes_backslashes_and_non_ascii_log_in(password: str) -> None:
    with imap_server(password) as port:
        assert mailboxes(port, password) == ["INBOX"]
        with pytest.raises(MailError, match="IMAP 127.0.0.1"):
            mailboxes(port, password + "x")
