"""The shell page's Content-Security-Policy as the browser enforces it: no string reaches an
HTML sink (Trusted Types without a policy), no inline script runs."""

from __future__ import annotations

from playwright.async_api import BrowserContext

SINKS = """() => {
  const refused = [];
  const html = "<img src=x onerror='window.ran = true'>";
  const attempts = {
    innerHTML: () => { document.createElement("div").innerHTML = html; },
    insertAdjacentHTML: () => document.body.insertAdjacentHTML("beforeend", html),
    outerHTML: () => { document.body.appendChild(document.createElement("i")).outerHTML = html; },
    scriptSrc: () => { document.createElement("script").src = "/app/app.js"; },
    scriptText: () => { document.createElement("script").textContent = "window.ran = true"; },
  };
  for (const [name, attempt] of Object.entries(attempts)) {
    try { attempt(); } catch (error) { if (error instanceof TypeError) refused.push(name); }
  }
  return refused;
}"""


async def test_the_browser_refuses_markup_from_strings(
    base_url: str, browser_context: BrowserContext
) -> None:
    page = await browser_context.new_page()
    await page.goto(base_url + "/")
    await page.get_by_role("heading", level=1).wait_for()
    refused = await page.evaluate(SINKS)
    assert refused == ["innerHTML", "insertAdjacentHTML", "outerHTML", "scriptSrc", "scriptText"]
    assert await page.evaluate("() => window.ran") is None
