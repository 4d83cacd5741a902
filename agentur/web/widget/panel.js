// The bubble and the chat window inside a Shadow DOM, so the host page's CSS neither reaches
// in nor is reached. Keyboard: the bubble opens the window and focus moves to the message
// field; Escape or the close button closes it and focus returns to the bubble.

import { el, uniqueId } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";

function chatIcon() {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", "M4 4h16a1 1 0 0 1 1 1v11a1 1 0 0 1-1 1H9l-5 4v-4H4a1 1 0 0 1-1-1V5a1 "
    + "1 0 0 1 1-1z");
  svg.append(path);
  return svg;
}

export function buildPanel({ title, language, stylesheet, t, onOpen, onSubmit }) {
  const host = document.createElement("agentur-widget");
  const shadow = host.attachShadow({ mode: "open" });
  const ids = { panel: uniqueId("panel"), title: uniqueId("title"), input: uniqueId("input") };

  const bubble = el("button", { type: "button", class: "bubble", "aria-expanded": "false",
    "aria-controls": ids.panel, "aria-label": t("open") }, chatIcon());
  const close = el("button", { type: "button", class: "close", "aria-label": t("close") }, "×");
  const log = el("div", { class: "log", role: "log", "aria-live": "polite",
    "aria-labelledby": ids.title, tabindex: "0" });
  const input = el("textarea", { id: ids.input, rows: 2, required: true, autocomplete: "off" });
  const form = el(
    "form",
    { class: "composer" },
    el("label", { for: ids.input, class: "visually-hidden" }, t("message_label")),
    input,
    el("button", { type: "submit", class: "send" }, t("send")),
  );
  const panel = el(
    "section",
    { class: "panel", id: ids.panel, role: "dialog", "aria-labelledby": ids.title,
      hidden: true },
    el("header", { class: "head" }, el("h2", { id: ids.title }, title), close),
    log,
    form,
  );
  const root = el("div", { class: "root", lang: language, hidden: true }, bubble, panel);
  // Shown once its stylesheet is in: no flash of an unstyled window on the host page.
  const link = el("link", { rel: "stylesheet", href: stylesheet });
  link.addEventListener("load", () => (root.hidden = false), { once: true });
  shadow.append(link, root);

  const view = {
    host,
    log,
    input,
    get isOpen() {
      return !panel.hidden;
    },
    open() {
      panel.hidden = false;
      bubble.setAttribute("aria-expanded", "true");
      bubble.setAttribute("aria-label", t("close"));
      input.focus();
      onOpen();
    },
    close() {
      panel.hidden = true;
      bubble.setAttribute("aria-expanded", "false");
      bubble.setAttribute("aria-label", t("open"));
      bubble.focus();
    },
    scrollToEnd() {
      log.scrollTop = log.scrollHeight;
    },
  };
  bubble.addEventListener("click", () => (view.isOpen ? view.close() : view.open()));
  close.addEventListener("click", () => view.close());
  root.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && view.isOpen) {
      event.stopPropagation();
      view.close();
    }
  });
  input.addEventListener("keydown", (event) => {
    // Enter sends, Shift+Enter starts a new line (and IME composition is left alone).
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (text) onSubmit(text);
  });
  document.body.append(host);
  return view;
}
