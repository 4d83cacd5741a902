"""What counts as globally routable, how URLs are parsed, and what the allow-list accepts."""

from __future__ import annotations

import ipaddress

import pytest

from agentur.egress.addresses import refusal
from agentur.egress.parse_url import UrlRefusedError, parse_url
from agentur.egress.policy import AllowList
from agentur.egress.settings import EgressSettings


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback"),
        ("0.0.0.0", "unspecified"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local"),
        ("100.100.100.200", "carrier-grade NAT"),
        ("100.64.0.1", "carrier-grade NAT"),
        ("192.0.0.9", "IETF protocol"),  # Python calls this one global
        ("224.0.1.1", "multicast"),  # and this one
        ("240.0.0.1", "reserved"),
        ("198.18.0.1", "private"),
        ("::1", "loopback"),
        ("::", "unspecified"),
        ("fe80::1", "link-local"),
        ("fc00::1", "private"),
        ("ff02::1", "multicast"),
        ("::ffff:8.8.8.8", "IPv4-mapped"),  # no reason to spell a public IPv4 this way
        ("2002:a9fe:a9fe::", "6to4"),  # Python calls 6to4 global
        ("2002:0808:0808::", "6to4"),
        ("64:ff9b::7f00:1", "NAT64 address embedding 127.0.0.1"),
        ("64:ff9b:1::1", "NAT64"),
        ("fd00:ec2::254", "metadata"),
        ("2001:db8::1", "private"),
    ],
)
def test_non_global_addresses_are_refused_with_a_reason(address: str, reason: str) -> None:
    found = refusal(ipaddress.ip_address(address))
    assert found is not None and reason in found


@pytest.mark.parametrize(
    "address", ["93.184.215.14", "8.8.8.8", "2606:4700::1111", "64:ff9b::808:808"]
)
def test_global_addresses_pass(address: str) -> None:
    assert refusal(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(
    ("url", "meaning"),
    [
        ("http://0177.0.0.1:18201/api", "127.0.0.1"),
        ("http://0x7f000001/", "127.0.0.1"),
        ("http://2130706433/", "127.0.0.1"),
        ("http://127.1/", "127.0.0.1"),
        ("http://10.1/", "10.0.0.1"),
        ("http://0xa9.254.169.254/", "169.254.169.254"),
        ("http://01.02.03.04/", "1.2.3.4"),
    ],
)
def test_non_standard_ipv4_spellings_are_refused_naming_what_they_mean(
    url: str, meaning: str
) -> None:
    with pytest.raises(UrlRefusedError, match=f"it means {meaning}"):
        parse_url(url)


@pytest.mark.parametrize(
    "url",
    [
        "",
        "example.com/x",
        "javascript:alert(1)",
        "http:///path",
        "http://exa mple.com/",
        "http://example.com\\@evil.test/",
        "http://ex%41mple.com/",
        "http://user:pw@example.com/",
        "http://[::1%25eth0]/",
        "http://[1.2.3.4]/",
        "http://example.com:0/",
        "http://example.com:65536/",
        "http://example.com:8o/",
        "http://host.123/",
        "http://-bad-.example/",
        "http://example.com/\x00",
    ],
)
def test_malformed_urls_are_refused(url: str) -> None:
    with pytest.raises(UrlRefusedError):
        parse_url(url)


def test_parsing_normalizes_case_trailing_dots_idna_and_ports() -> None:
    target = parse_url("HTTPS://Bücher.Example./path?q=1")
    assert (target.scheme, target.host, target.port) == ("https", "xn--bcher-kva.example", 443)
    v6 = parse_url("http://[0:0::1]:8080/")
    assert (v6.host, v6.port, v6.host_port) == ("::1", 8080, "[::1]:8080")
    assert parse_url("http://93.184.215.14/").ip == ipaddress.ip_address("93.184.215.14")


def test_allow_list_accepts_hosts_ports_and_networks() -> None:
    allowed = AllowList.parse(" Intranet.local , api.local:8443, [::1]:80, 10.0.0.0/8, fd00::/8")
    assert allowed.allows_host("intranet.local", "intranet.local:443")
    assert allowed.allows_host("api.local", "api.local:8443")
    assert not allowed.allows_host("api.local", "api.local:443")
    assert allowed.allows_host("::1", "[::1]:80")
    assert allowed.allows_address(ipaddress.ip_address("10.9.8.7"))
    assert allowed.allows_address(ipaddress.ip_address("fd12::1"))
    assert not allowed.allows_address(ipaddress.ip_address("11.0.0.1"))
    assert not AllowList.parse("")


@pytest.mark.parametrize("entry", ["10.0.0.0/33", "host:port", "[::1", ":80", "[zz]:1"])
def test_allow_list_names_a_bad_entry(entry: str) -> None:
    with pytest.raises(ValueError, match="allow-list entry"):
        AllowList.parse(f"ok.example, {entry}")


def test_the_egress_setting_wins_over_its_deprecated_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTUR_AGENT_EGRESS_ALLOWED_HOSTS", "old.example:80")
    assert EgressSettings().allowed.hosts == {"old.example:80"}  # still honoured alone
    monkeypatch.setenv("AGENTUR_EGRESS_ALLOWED_HOSTS", "new.example:80")
    assert EgressSettings().allowed.hosts == {"new.example:80"}
    monkeypatch.setenv("AGENTUR_EGRESS_ALLOWED_HOSTS", "10.0.0.0/33")
    with pytest.raises(ValueError, match="allow-list entry"):
        EgressSettings()
