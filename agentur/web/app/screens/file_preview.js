// Preview of a file: text as text (the first window of GET /v1/files/{id}/content), a PDF in
// the browser's own viewer (its bytes fetched by the app, shown from a blob: URL).

import { errorMessage, h } from "../dom.js";

const PREVIEW_CHARS = 20000;
const TEXT_TYPES = /^(text\/|application\/(json|xml|x-yaml|yaml|csv|markdown))/;

function isText(file) {
  return TEXT_TYPES.test(file.mime_type) || /\.(txt|md|csv|json|ya?ml|xml|log)$/i.test(file.name);
}

// Returns {node, close}; close() frees the blob URL. `at` opens it at a passage found by the
// search: {offset} (a character offset) for text, {page} for a PDF.
export async function filePreview(app, file, onClose, at = {}) {
  const { api, t } = app;
  const id = encodeURIComponent(file.id);
  let blobUrl = null;
  const body = h("div", { class: "preview-body" });
  const node = h(
    "section",
    { class: "card preview", "aria-labelledby": "preview-title", tabindex: "-1" },
    h("h2", { id: "preview-title" }, t("preview_of", { name: file.name })),
    body,
    h("div", { class: "actions" }, h("button", { type: "button", class: "secondary", onclick: onClose }, t("close_preview"))),
  );
  try {
    if (isText(file)) {
      const offset = Math.max(0, Number(at.offset) || 0);
      const window = await api.get(`/v1/files/${id}/content?offset=${offset}&limit=${PREVIEW_CHARS}`);
      body.append(h("pre", { tabindex: "0", "aria-label": t("preview_of", { name: file.name }) }, window.content));
      if (window.offset > 0 || window.next_offset !== null) {
        body.append(h("p", { class: "muted" }, t("more_text", { shown: window.content.length, total: window.total_length })));
      }
    } else if (file.mime_type === "application/pdf") {
      const blob = await api.blob(`/v1/files/${id}/download`);
      blobUrl = URL.createObjectURL(new Blob([blob], { type: "application/pdf" }));
      const page = Number(at.page) > 0 ? `#page=${Number(at.page)}` : "";
      body.append(h("iframe", { src: blobUrl + page, title: t("preview_of", { name: file.name }) }));
    } else {
      body.append(h("p", {}, t("no_preview")));
    }
  } catch (error) {
    body.append(errorMessage(error));
  }
  return {
    node,
    close() {
      if (blobUrl) URL.revokeObjectURL(blobUrl);
    },
  };
}
