"""The one way out (T3, S7, S9): every outbound request a tool, the assistant or a webhook
makes goes through this part — strict URL parsing, refusal of every address that is not
globally routable, the connection pinned to the address that was checked, redirects checked
hop by hop, and explicit size and time limits."""
