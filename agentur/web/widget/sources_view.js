// The sources of an answer: a link where the source has a web address, else its name
// (a FAQ's question, a document's file and section).

import { el, safeHref } from "./dom.js";

function sourceName(source, t) {
  if (source.kind === "faq") return t("faq_source", { question: source.question });
  const parts = [source.file, source.section].filter(Boolean);
  if (source.page) parts.push(t("page", { page: source.page }));
  return parts.join(" › ") || source.title || source.url || "";
}

export function sourcesView(sources, t) {
  const items = sources.map((source) => {
    const href = source.url ? safeHref(source.url) : null;
    const prefix = source.ref ? `[${source.ref}] ` : "";
    const name = sourceName(source, t);
    const body = href
      ? el("a", { href, target: "_blank", rel: "noopener noreferrer" }, name)
      : el("span", {}, name);
    return el("li", {}, prefix, body);
  });
  return el("div", { class: "sources" }, el("p", { class: "sources-title" }, t("sources")),
    el("ul", {}, items));
}
