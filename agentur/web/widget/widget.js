/* agentur visitor widget — the one script a website embeds:
 *   <script src="https://agentur.example/widget.js" data-assistant="<assistant id>"
 *           data-key="apk_…" async></script>
 * Optional: data-language="de|fr|it|en" (else the visitor's browser language),
 * data-title="…" (the chat window's heading).
 *
 * A classic script (so a plain <script> tag works everywhere) that imports the widget's ES
 * modules from the same server, under a version that changes with every release.
 */
(() => {
  "use strict";
  // currentScript is set while a classic script runs, also when a tag manager inserted it.
  const script =
    document.currentScript || document.querySelector("script[src*='widget.js'][data-assistant]");
  if (!script || !script.src) return;
  const data = script.dataset;
  if (!data.assistant || !data.key) {
    console.error("agentur widget: the script tag needs data-assistant and data-key");
    return;
  }
  const modules = new URL("widget/__WIDGET_VERSION__/", script.src);
  const config = {
    assistant: data.assistant,
    key: data.key,
    language: data.language || null,
    title: data.title || null,
    // The API lives beside widget.js (also behind a reverse proxy's path prefix).
    server: new URL(".", script.src).href,
    modules: modules.href,
  };
  const start = () =>
    import(new URL("main.js", modules).href)
      .then((widget) => widget.mount(config))
      .catch((error) => console.error("agentur widget: could not start", error));
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start, { once: true });
  } else {
    start();
  }
})();
