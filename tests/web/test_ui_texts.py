"""Every UI text exists in German, French, Italian and English: each module of the app that
exports `texts` has the same keys in all four languages (checked in the browser, which is
where the modules run)."""

from __future__ import annotations

from playwright.async_api import BrowserContext

from agentur.api.routes.web_app import APP_DIR

LANGUAGES = ["de", "fr", "it", "en"]
KEYS = """async (paths) => {
  const found = {};
  for (const path of paths) {
    const module = await import(path);
    if (!module.texts) continue;
    const keys = ([language, texts]) => [language, Object.keys(texts).sort()];
    found[path] = Object.fromEntries(Object.entries(module.texts).map(keys));
  }
  return found;
}"""


async def test_every_text_in_all_four_languages(
    base_url: str, browser_context: BrowserContext
) -> None:
    page = await browser_context.new_page()
    await page.goto(base_url + "/")
    paths = [f"/app/{path.relative_to(APP_DIR).as_posix()}" for path in APP_DIR.rglob("*.js")]
    found = await page.evaluate(KEYS, paths)
    assert {"/app/shell_texts.js", "/app/screens/files_texts.js", "/app/screens/usage.js"} <= set(
        found
    )
    for path, languages in found.items():
        assert sorted(languages) == sorted(LANGUAGES), path
        for language in LANGUAGES:
            assert languages[language] == languages["en"], (path, language)
