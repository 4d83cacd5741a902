// Where the Files screen is: breadcrumbs of the open folders, the subfolders of the open one
// and a form for a new one. Every breadcrumb and subfolder takes files dropped on it (rows
// dragged from the file table) and moves them there.

import { errorMessage, h, replace } from "../dom.js";
import { foldersIn } from "./file_dialogs.js";
import { DRAGGED_FILES } from "./file_table.js";

// A button that accepts dragged file rows: `onDrop(ids)`.
function dropTarget(button, onDrop) {
  const carries = (event) => event.dataTransfer?.types.includes(DRAGGED_FILES);
  button.addEventListener("dragover", (event) => {
    if (!carries(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "move";
    button.classList.add("drop-over");
  });
  button.addEventListener("dragleave", () => button.classList.remove("drop-over"));
  button.addEventListener("drop", (event) => {
    button.classList.remove("drop-over");
    if (!carries(event)) return;
    event.preventDefault();
    onDrop(JSON.parse(event.dataTransfer.getData(DRAGGED_FILES)));
  });
  return button;
}

// `trail`: the open folders, outermost first ([{id, name}], shared with the screen);
// `go(depth)`: open the trail's folder at `depth` (0: the top level); `enter(folder)`;
// `moveFiles(ids, folderId)`.
export function breadcrumbs(app, trail, { go, moveFiles }) {
  const { t } = app;
  const levels = [{ id: null, name: t("root") }, ...trail];
  return h("nav", { class: "breadcrumbs", "aria-label": t("folder_path") },
    h("ol", {}, levels.map((folder, depth) => h("li", {},
      depth === levels.length - 1
        ? h("span", { "aria-current": "location" }, folder.name)
        : dropTarget(h("button", { type: "button", class: "crumb", onclick: () => go(depth) },
          folder.name), (ids) => moveFiles(ids, folder.id))))));
}

export async function folderPanel(app, trail, { enter, moveFiles, onCreated }) {
  const { api, t } = app;
  const parent = trail.at(-1)?.id ?? null;
  const folders = await api.get(foldersIn(parent));
  const name = h("input", { type: "text", id: "new-folder", required: true, autocomplete: "off" });
  const feedback = h("div");
  const form = h("form", { class: "field" },
    h("label", { for: "new-folder" }, t("new_folder")), name,
    h("button", { type: "submit" }, t("create_folder")), feedback);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const created = await api.post("/v1/folders", { name: name.value.trim(), parent_id: parent });
      app.announce(t("folder_created", { name: created.name }));
      onCreated();
    } catch (error) {
      replace(feedback, errorMessage(error));
    }
  });
  return [
    h("h2", { id: "folders-title" }, t("folders")),
    folders.length
      ? h("ul", {}, folders.map((folder) => h("li", {},
        dropTarget(h("button", { type: "button", class: "folder", onclick: () => enter(folder) },
          folder.name), (ids) => moveFiles(ids, folder.id)))))
      : h("p", { class: "muted" }, t("no_subfolders")),
    h("p", { class: "muted drag-hint" }, t("drag_hint")),
    form,
  ];
}
