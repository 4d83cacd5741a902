"""Every UI text exists in German, French, Italian and English: each module of the app and of
the visitor widget that exports `texts` has the same keys in all four languages (checked in
the browser, which is where the modules run)."""

from __future__ import annotations

from playwright.async_api import BrowserContext

from agentur.api.routes.web_app import APP_DIR
from agentur.api.routes.widget import widget_files

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
    widget = f"/widget/{widget_files().version}/texts.js"
    found = await page.evaluate(KEYS, [*paths, widget])
    assert {"/app/shell_texts.js", "/app/screens/files_texts.js", "/app/screens/usage.js"} <= set(
        found
    )
    assert widget in found
    for path, languages in found.items():
        assert sorted(languages) == sorted(LANGUAGES), path
        for language in LANGUAGES:
            assert languages[language] == languages["en"], (path, language)


SOURCE_NAMES = """async ([module, texts]) => {
  const { sourcesView } = await import(module);
  const { translator } = await import(texts);
  const source = { kind: "document", file: "Preise.pdf", section: "Hecken", page: 3 };
  return Object.fromEntries(["de", "fr", "it", "en"].map((language) =>
    [language, sourcesView([source], translator(language)).querySelector("li").textContent]));
}"""


async def test_the_widgets_source_names_speak_the_visitors_language(
    base_url: str, browser_context: BrowserContext
) -> None:
    page = await browser_context.new_page()
    await page.goto(base_url + "/")
    version = widget_files().version
    names = await page.evaluate(
        SOURCE_NAMES, [f"/widget/{version}/sources_view.js", f"/widget/{version}/texts.js"]
    )
    assert names == {
        "de": "Preise.pdf › Hecken › S. 3",
        "fr": "Preise.pdf › Hecken › p. 3",
        "it": "Preise.pdf › Hecken › pag. 3",
        "en": "Preise.pdf › Hecken › p. 3",
    }
