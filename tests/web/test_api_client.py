"""The app's API client (`agentur/web/app/api.js`) in a real browser against the real server:
JSON, problem+json as ApiError, the CSRF token on unsafe requests, and the SSE reader over a
scripted agent run (what the chat screen builds on)."""

from __future__ import annotations

from typing import Any

from playwright.async_api import BrowserContext

from agentur.ai.providers.scripted import ScriptedTurn
from agentur.runtime import Runtime
from tests.agent.support import scripted
from tests.conftest import Tenants

CLIENT = """async ({apiKey, withCsrf}) => {
  const signedIn = await fetch("/v1/sessions", {
    method: "POST",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify({api_key: apiKey}),
  });
  const session = await signedIn.json();
  const {createApi} = await import("/app/api.js");
  const unauthorized = [];
  const api = createApi({
    csrfToken: () => (withCsrf ? session.csrf_token : null),
    language: () => "de",
    onUnauthorized: (error) => unauthorized.push(error.status),
  });
  const failure = async (promise) => {
    try {
      await promise;
      return null;
    } catch (error) {
      return {name: error.name, status: error.status, title: error.title, detail: error.detail};
    }
  };
  const me = await api.get("/v1/me");
  const missing = await failure(api.get("/v1/files/no-such-file"));
  const events = [];
  const streamed = await failure((async () => {
    for await (const event of api.stream("/v1/agent/runs", {prompt: "Grüezi"})) events.push(event);
  })());
  return {me, missing, events, streamed, unauthorized};
}"""


async def run_client(page: Any, key: str, *, with_csrf: bool) -> dict[str, Any]:
    return await page.evaluate(CLIENT, {"apiKey": key, "withCsrf": with_csrf})


async def test_json_errors_csrf_and_server_sent_events(
    base_url: str, browser_context: BrowserContext, runtime: Runtime, tenants: Tenants
) -> None:
    alice = await tenants.member("acme")
    runtime.ai, _ = scripted([ScriptedTurn(text="Grüezi! Wie kann ich helfen?")])
    page = await browser_context.new_page()
    await page.goto(base_url + "/")

    result = await run_client(page, alice.key, with_csrf=True)
    assert result["me"]["mandate_id"] == alice.mandate_id
    assert result["me"]["timezone"] == "Europe/Zurich"  # X-User-Timezone from the browser
    assert result["me"]["language"] == "de"
    assert result["missing"]["name"] == "ApiError"
    assert result["missing"]["status"] == 404
    assert result["missing"]["title"] == "Not found"
    assert "no-such-file" in result["missing"]["detail"]
    assert result["streamed"] is None
    names = [event["event"] for event in result["events"]]
    assert names[0] == "run" and names[-2:] == ["final", "agent_summary"]
    final = next(event["data"] for event in result["events"] if event["event"] == "final")
    assert final == {"status": "completed", "text": "Grüezi! Wie kann ich helfen?"}
    chunks = [event["data"]["text"] for event in result["events"] if event["event"] == "chunk"]
    assert "".join(chunks) == final["text"]
    assert result["unauthorized"] == []

    # without the CSRF token the same POST is refused, and it is not a sign-out
    refused = await run_client(page, alice.key, with_csrf=False)
    assert refused["streamed"]["status"] == 403
    assert "X-CSRF-Token" in refused["streamed"]["detail"]
    assert refused["events"] == [] and refused["unauthorized"] == []
