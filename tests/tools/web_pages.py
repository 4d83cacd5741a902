"""A loopback web site for the web tools: routes of canned responses on a counting listener."""

from __future__ import annotations

from tests.egress.listeners import Handler, Listener, listening

ARTICLE = b"""<!doctype html><html><head><title>Hiking in the Alps | Mountain News</title>
<script>var banner = 'BUY CHEAP WATCHES';</script></head><body>
<nav><a href="/">Home</a> <a href="/shop">Shop now and save</a> <a href="/login">Login</a></nav>
<div class="ad">ADVERTISEMENT: cheap watches, click here</div>
<article><h1>Hiking in the Swiss Alps</h1>
<p>The Alps offer hundreds of marked trails for every level of hiker. In summer the meadows
bloom and the mountain huts open their doors to walkers from all over the world.</p>
<h2>Best season</h2>
<p>From June to September the passes are usually free of snow. Check the
<a href="https://weather.example.org/alps">alpine weather service</a> before you set out.</p>
<p>Always carry water, a map and warm clothes, because the weather changes fast up there.</p>
</article>
<aside>Related: ten gadgets you need</aside>
<footer>Copyright 2026 Mountain News. Cookie settings.</footer>
<script>trackVisitor();</script></body></html>"""


def response(
    body: bytes, content_type: str = "text/html; charset=utf-8", status: str = "200 OK"
) -> bytes:
    return (
        f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode() + body


def redirect_to(location: str) -> bytes:
    return (
        f"HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\n"
        "Connection: close\r\n\r\n"
    ).encode()


def routes(pages: dict[str, bytes]) -> Handler:
    """Answers each request line's path from `pages`; 404 otherwise."""

    def handle(head: bytes) -> bytes:
        path = head.split(b" ", 2)[1].decode()
        return pages.get(path) or response(b"not here", "text/plain", "404 Not Found")

    return handle


async def site(pages: dict[str, bytes]) -> Listener:
    return await listening("127.0.0.1", routes(pages))
