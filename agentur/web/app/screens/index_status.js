// A file's index status as a badge, with a progress bar while it is being indexed; polls
// GET /v1/files/{id}/index until the status settles.

import { h, replace } from "../dom.js";

const SETTLED = new Set(["indexed", "lexical_only", "failed", "no_text"]);
const POLL_MS = 1500;

// Returns {node, stop}; stop() ends the polling (the screen calls it on leave).
export function indexStatus(app, file, onSettled = () => {}) {
  const { api, t } = app;
  const node = h("span", { class: "index-status", "data-file-id": file.id });
  let timer = null;
  let stopped = false;

  function paint(index) {
    const status = index.status;
    const badge = h("span", { class: `badge ${status}` }, t(`status_${status}`));
    const parts = [badge];
    if (status === "indexing" && index.chunks_total) {
      const done = index.chunks_done || 0;
      parts.push(
        " ",
        h("progress", {
          max: index.chunks_total,
          value: done,
          "aria-label": t("index_progress", { name: file.name }),
        }),
        " ",
        h("span", { class: "muted" }, t("progress", { done, total: index.chunks_total })),
      );
      if (index.eta_seconds !== null && index.eta_seconds !== undefined) {
        parts.push(" ", h("span", { class: "muted" }, t("eta", { seconds: Math.ceil(index.eta_seconds) })));
      }
    }
    if ((status === "failed" || status === "no_text") && index.error) parts.push(" ", h("span", { class: "error" }, index.error));
    node.dataset.status = status;
    replace(node, ...parts);
  }

  async function poll() {
    if (stopped) return;
    try {
      const index = await api.get(`/v1/files/${encodeURIComponent(file.id)}/index`);
      if (stopped) return;
      paint(index);
      if (SETTLED.has(index.status)) {
        onSettled(index);
        return;
      }
    } catch (error) {
      if (error.status === 404 || error.status === 401) return; // deleted, or signed out
    }
    timer = setTimeout(poll, POLL_MS);
  }

  paint({ status: "pending" });
  poll();
  return {
    node,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
