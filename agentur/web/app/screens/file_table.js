// The files of the open folder as a table: a checkbox per row for the bulk actions, the
// row's own actions (preview, download, rename, move, delete) and drag and drop of rows onto
// folders. On a narrow screen the rows turn into cards (styles.css).

import { h } from "../dom.js";
import { tagCell } from "./file_tags.js";
import { indexStatus } from "./index_status.js";

// The drag payload between a row and a folder: ids of the files dragged.
export const DRAGGED_FILES = "application/x-agentur-files";

// `selection`: a Set of file ids; `act(action, files)`: runs "preview", "download",
// "rename", "move" or "delete"; `onSelect()` after the selection changed.
export function fileTable(app, files, { selection, act, onSelect, formatSize, pollers }) {
  const { t } = app;
  const boxes = new Map(); // file id -> its checkbox
  const all = h("input", { type: "checkbox" });

  function syncAll() {
    const chosen = files.filter((file) => selection.has(file.id)).length;
    all.checked = chosen > 0 && chosen === files.length;
    all.indeterminate = chosen > 0 && chosen < files.length;
  }

  function mark(file, chosen) {
    if (chosen) selection.add(file.id);
    else selection.delete(file.id);
    const box = boxes.get(file.id);
    box.checked = chosen;
    box.closest("tr").classList.toggle("selected", chosen);
  }

  function choose(file, chosen) {
    mark(file, chosen);
    syncAll();
    onSelect();
  }

  all.addEventListener("change", () => {
    const chosen = all.checked;
    for (const file of files) mark(file, chosen);
    syncAll();
    onSelect();
  });

  function action(name, file) {
    return h("button", { type: "button", class: name === "delete" ? "danger" : "secondary",
      "aria-label": t(`${name}_of`, { name: file.name }), onclick: () => act(name, [file]) },
    t(name));
  }

  function row(file) {
    const status = indexStatus(app, file);
    pollers.push(status);
    const box = h("input", { type: "checkbox", checked: selection.has(file.id),
      "aria-label": t("select_file", { name: file.name }),
      onchange: (event) => choose(file, event.target.checked) });
    boxes.set(file.id, box);
    const tr = h("tr", { "data-file-id": file.id, draggable: "true",
      class: selection.has(file.id) ? "selected" : null },
    h("td", { class: "file-select" }, box),
    h("th", { scope: "row", class: "file-name" }, file.name),
    tagCell(app, file),
    h("td", { class: "number", "data-label": t("size") }, formatSize(file.size)),
    h("td", { "data-label": t("index") }, status.node),
    h("td", {}, h("div", { class: "file-actions" },
      ["preview", "download", "rename", "move", "delete"].map((name) => action(name, file)))));
    tr.addEventListener("dragstart", (event) => {
      // a selected row carries the whole selection along, another row only itself
      const ids = selection.has(file.id) ? [...selection] : [file.id];
      event.dataTransfer.setData(DRAGGED_FILES, JSON.stringify(ids));
      event.dataTransfer.effectAllowed = "move";
    });
    return tr;
  }

  const body = h("tbody", {}, files.map(row));
  syncAll();
  return h("table", { class: "file-table" },
    h("caption", { class: "visually-hidden" }, t("files")),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col", class: "file-select" }, h("label", { class: "select-all" }, all,
        h("span", { class: "select-all-text" }, t("select_all")))),
      ["name", "tags", "size", "index", "actions"].map((key) =>
        h("th", { scope: "col", class: key === "size" ? "number" : null }, t(key))))),
    body);
}
