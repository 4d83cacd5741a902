"""Swagger UI at /docs with every request beyond this server refused: the page renders every
operation of the OpenAPI document from the package's own files, Authorize takes a key and
"Try it out" calls the API with it, and the page's Content-Security-Policy refuses nothing it
needs."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx
from playwright.async_api import BrowserContext, ConsoleMessage, Route

from tests.conftest import Tenants

METHODS = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}


async def operation_count(base_url: str) -> int:
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as client:
        document = (await client.get("/openapi.json")).json()
    return sum(len(METHODS & set(item)) for item in document["paths"].values())


async def test_swagger_ui_renders_and_calls_the_api_offline(
    base_url: str, browser_context: BrowserContext, tenants: Tenants
) -> None:
    alice = await tenants.member("acme")
    refused: list[str] = []

    async def this_server_only(route: Route) -> None:
        if urlsplit(route.request.url).hostname in {"127.0.0.1", "localhost"}:
            await route.continue_()
        else:
            refused.append(route.request.url)
            await route.abort("internetdisconnected")

    await browser_context.route("**/*", this_server_only)
    page = await browser_context.new_page()
    problems: list[str] = []

    def note(message: ConsoleMessage) -> None:
        if message.type == "error":
            problems.append(message.text)

    page.on("console", note)
    page.on("pageerror", lambda error: problems.append(str(error)))
    await page.goto(base_url + "/docs")

    me = page.locator(".opblock", has=page.locator("[data-path='/v1/me']")).first
    await me.wait_for()
    assert await page.locator(".opblock").count() == await operation_count(base_url)

    await page.get_by_role("button", name="Authorize").first.click()
    await page.locator(".modal-ux input").first.fill(alice.key)
    await page.get_by_role("button", name="Apply credentials").first.click()
    await page.locator(".modal-ux .btn-done").first.click()

    await me.locator(".opblock-summary").click()
    await me.get_by_role("button", name="Try it out").click()
    await me.get_by_role("button", name="Execute").click()
    status = me.locator(".live-responses-table tbody .response-col_status").first
    await status.wait_for()
    assert (await status.inner_text()).strip() == "200"
    assert alice.user_id in await me.locator(".live-responses-table .microlight").first.inner_text()
    assert refused == [] and problems == []
