"""The meeting assistant: a live, platform-neutral session API a meeting bridge (Teams, Zoom,
Meet, a browser page, the `agentur meeting play` CLI) drives. Finished utterances come in; a
fast path (`meeting_reply`, one structured model call) decides whether to answer and whether
the agent is needed; escalations run the ordinary agent in the meeting's workflow; replies go
out as events (text, speech) and to an optional chat webhook."""
