"""The one way out: every outbound connection a user can aim — tools, connections (HTTP, IMAP,
SMTP, MCP), assistants' API catalogs — goes through this part: strict URL and host parsing,
refusal of every address that is not globally routable unless the operator lists it
(`settings.py`), the connection pinned to the address that was checked, redirects checked hop
by hop, and explicit size and time limits."""
