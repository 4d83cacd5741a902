// The Files screen's modal dialogs: confirm a deletion, name a file anew, choose a folder.
// A native <dialog> opened with showModal(): the browser keeps the focus inside, Escape
// cancels, and the focus returns to where it was when the dialog closes.

import { h, replace } from "../dom.js";

const LISTED = 10; // names a deletion lists before "and N more"
let counter = 0;

// GET path of the folders in `parentId` (undefined or null: the top level).
export const foldersIn = (parentId) =>
  `/v1/folders${parentId ? `?parent_id=${encodeURIComponent(parentId)}` : ""}`;

// Resolves with what `close(value)` was given; undefined when cancelled (Escape, Cancel).
function modal(title, build) {
  return new Promise((resolve) => {
    counter += 1;
    const titleId = `file-dialog-title-${counter}`;
    const dialog = h("dialog", { class: "file-dialog", "aria-labelledby": titleId });
    let result;
    const close = (value) => {
      result = value;
      dialog.close();
    };
    dialog.append(h("h2", { id: titleId }, title), ...build(close));
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(result);
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

function cancelButton(t, close) {
  return h("button", { type: "button", class: "secondary", onclick: () => close(undefined) },
    t("cancel"));
}

// true when the user confirmed deleting `files`.
export async function confirmDelete(t, files) {
  const title = files.length === 1
    ? t("delete_one", { name: files[0].name })
    : t("delete_many", { count: files.length });
  const confirmed = await modal(title, (close) => [
    h("p", {}, t("delete_warning")),
    files.length > 1 && h("ul", { class: "dialog-list" },
      files.slice(0, LISTED).map((file) => h("li", {}, file.name)),
      files.length > LISTED && h("li", {}, t("and_more", { count: files.length - LISTED }))),
    h("div", { class: "actions" },
      h("button", { type: "button", class: "danger", onclick: () => close(true) }, t("delete")),
      // the safe choice has the focus: Enter right away deletes nothing
      h("button", { type: "button", class: "secondary", autofocus: true,
        onclick: () => close(false) }, t("cancel"))),
  ]);
  return confirmed === true;
}

// The new name, or null when cancelled or unchanged.
export async function askName(t, file) {
  const name = await modal(t("rename_title", { name: file.name }), (close) => {
    const id = `rename-${counter}`;
    const input = h("input", { type: "text", id, value: file.name, required: true,
      maxlength: 255, autocomplete: "off", autofocus: true });
    const form = h("form", { class: "field" },
      h("label", { for: id }, t("new_name")), input,
      h("div", { class: "actions" }, h("button", { type: "submit" }, t("rename")),
        cancelButton(t, close)));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      close(input.value.trim());
    });
    // the name without its extension is selected, as file managers do
    const dot = file.name.lastIndexOf(".");
    requestAnimationFrame(() => input.setSelectionRange(0, dot > 0 ? dot : file.name.length));
    return [form];
  });
  return name && name !== file.name ? name : null;
}

// {folderId} of the chosen folder (null: the top level), or null when cancelled. `trail`:
// the folders open on the screen, where the chooser starts.
export async function chooseFolder(app, title, trail) {
  const { api, t } = app;
  const path = [...trail];
  const choice = await modal(title, (close) => {
    const where = h("p", { class: "chooser-where", "aria-live": "polite" });
    const list = h("ul", { class: "chooser-list" });
    const up = h("button", { type: "button", class: "secondary",
      onclick: () => { path.pop(); show(); } }, t("up"));
    const here = h("button", { type: "button",
      onclick: () => close({ folderId: path.at(-1)?.id ?? null }) }, t("move_here"));
    async function show() {
      where.textContent = t("chooser_in", {
        path: [t("root"), ...path.map((folder) => folder.name)].join(" / "),
      });
      up.disabled = path.length === 0;
      try {
        const folders = await api.get(foldersIn(path.at(-1)?.id));
        replace(list, folders.length ? folders.map((folder) => h("li", {},
          h("button", { type: "button", class: "folder",
            onclick: () => { path.push({ id: folder.id, name: folder.name }); show(); } },
          folder.name))) : h("li", { class: "muted" }, t("no_subfolders")));
      } catch (error) {
        replace(list, h("li", { class: "error", role: "alert" }, error.detail || error.message));
      }
    }
    show();
    return [where, up, list, h("div", { class: "actions" }, here, cancelButton(t, close))];
  });
  return choice ?? null;
}
