// A search hit's section (GET /v1/files/{id}/section): the indexed text of the section around
// the passage, with the passage marked and scrolled into view. The search links here.

import { errorMessage, h } from "../dom.js";

const WINDOW = 20000;
const CONTEXT = 1500; // characters shown around a passage that sits under no heading
const LEAD = 2000; // characters before the passage when the section is longer than a window

// hit = {fileId, heading: [..], start, end} from the link; returns {node}.
export async function sectionView(app, hit, onClose) {
  const { api, t } = app;
  const base = `/v1/files/${encodeURIComponent(hit.fileId)}/section`;
  const query = new URLSearchParams({ limit: String(WINDOW) });
  if (hit.heading.length) {
    for (const part of hit.heading) query.append("heading", part);
  } else {
    query.set("start", String(Math.max(0, hit.start - CONTEXT)));
    query.set("end", String(hit.end + CONTEXT));
  }
  const body = h("div", { class: "section-body" });
  const title = h("h2", { id: "section-title" });
  const node = h(
    "section",
    { class: "card preview section", "aria-labelledby": "section-title", tabindex: "-1" },
    title,
    body,
    h("div", { class: "actions" }, h("button", { type: "button", class: "secondary", onclick: onClose }, t("close_preview"))),
  );
  try {
    let window = await api.get(`${base}?${query}`);
    const from = hit.start - window.section_start; // the passage, inside the section
    const to = hit.end - window.section_start;
    if (from < window.offset || from >= window.offset + window.content.length) {
      query.set("offset", String(Math.max(0, from - LEAD)));
      window = await api.get(`${base}?${query}`);
    }
    const path = window.heading_path.join(" › ");
    title.textContent = path
      ? t("section_of", { section: path, name: window.file_name })
      : t("passage_in", { name: window.file_name });
    const text = window.content;
    const markFrom = Math.min(Math.max(0, from - window.offset), text.length);
    const markTo = Math.min(Math.max(markFrom, to - window.offset), text.length);
    const passage = h("mark", { id: "passage" }, text.slice(markFrom, markTo));
    body.append(
      h("pre", { tabindex: "0", "aria-labelledby": "section-title" }, text.slice(0, markFrom), passage, text.slice(markTo)),
    );
    if (window.offset > 0 || window.next_offset !== null) {
      body.append(h("p", { class: "muted" }, t("section_part", { shown: text.length, total: window.total_length })));
    }
    requestAnimationFrame(() => passage.scrollIntoView({ block: "center" }));
  } catch (error) {
    title.textContent = t("section");
    body.append(errorMessage(error));
  }
  return { node };
}
