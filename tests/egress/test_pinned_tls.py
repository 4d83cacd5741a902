"""Pinning keeps TLS honest: the connection goes to the checked address while SNI and the
certificate check use the host name — a certificate for another name is refused."""

from __future__ import annotations

import asyncio
import datetime
import ssl
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from agentur.egress.pinned_transport import EgressTransport
from agentur.egress.policy import AllowList, EgressPolicy


def _self_signed(name: str, folder: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / f"{name}.pem", folder / f"{name}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@pytest.mark.parametrize(("served_name", "works"), [("pinned.test", True), ("other.test", False)])
async def test_tls_verifies_the_host_name_on_the_pinned_address(
    tmp_path: Path, served_name: str, works: bool
) -> None:
    cert, key = _self_signed(served_name, tmp_path)
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_tls.load_cert_chain(cert, key)
    seen_sni: list[str | None] = []
    server_tls.sni_callback = lambda sock, name, ctx: seen_sni.append(name)  # type: ignore[assignment]

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0, ssl=server_tls)
    port = server.sockets[0].getsockname()[1]
    client_tls = ssl.create_default_context(cafile=str(cert))

    async def resolve(host: str, port: int) -> list[str]:
        return ["127.0.0.1"]

    policy = EgressPolicy(allowed=AllowList.parse("127.0.0.1/32"), resolve=resolve)
    transport = EgressTransport(policy, verify=client_tls)
    try:
        async with httpx.AsyncClient(transport=transport) as client:
            if works:
                response = await client.get(f"https://pinned.test:{port}/")
                assert response.text == "ok"
            else:
                with pytest.raises(httpx.ConnectError, match="certificate"):
                    await client.get(f"https://pinned.test:{port}/")
        assert seen_sni == ["pinned.test"]  # SNI carries the name, not the address
    finally:
        server.close()
        await server.wait_closed()
