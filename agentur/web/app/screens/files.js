// The Files screen: a file manager over /v1/files and /v1/folders — folders with breadcrumbs,
// upload with progress and drag and drop, tags (filter and edit), preview of text and PDF,
// each file's index status, and download, rename, move (a folder chooser, or drag rows onto a
// folder or breadcrumb) and delete (confirmed), one file or a multi-selection at a time.

import { errorMessage, h, replace } from "../dom.js";
import { askName, chooseFolder, confirmDelete } from "./file_dialogs.js";
import { filePreview } from "./file_preview.js";
import { fileTable } from "./file_table.js";
import { uploadPanel } from "./file_upload.js";
import { texts } from "./files_texts.js";
import { breadcrumbs, folderPanel } from "./folder_nav.js";
import { sectionView } from "./section_view.js";

export { texts };

const PAGE = 200;

export async function render(root, app) {
  const { api, t, language } = app;
  const sizes = new Intl.NumberFormat(language, { maximumFractionDigits: 1 });
  const trail = []; // the open folders, outermost first: [{id, name}]
  const selection = new Set(); // ids of the checked files
  let listed = []; // the files shown
  let pollers = [];
  let preview = null;
  let tagFilter = "";

  const crumbSlot = h("div");
  const folderSlot = h("section",
    { class: "card folder-tree", "aria-labelledby": "folders-title" });
  const listPanel = h("section", { class: "card", "aria-labelledby": "files-title" });
  const notice = h("div", { class: "file-notice" });
  const previewSlot = h("div");
  const sectionSlot = h("div"); // a search hit's section, above everything else
  const currentFolder = () => trail.at(-1)?.id ?? null;
  const fileUrl = (id, tail = "") => `/v1/files/${encodeURIComponent(id)}${tail}`;

  function formatSize(bytes) {
    if (bytes < 1024) return `${bytes} B`;
    if (bytes < 1024 * 1024) return `${sizes.format(bytes / 1024)} KB`;
    return `${sizes.format(bytes / 1024 / 1024)} MB`;
  }

  async function showFolders() {
    replace(crumbSlot, breadcrumbs(app, trail, { go: openDepth, moveFiles }));
    replace(folderSlot, ...await folderPanel(app, trail, {
      enter: (folder) => openFolder(folder), moveFiles, onCreated: showFolders,
    }));
  }

  async function openFolder(folder) {
    trail.push({ id: folder.id, name: folder.name });
    await reopen();
  }

  async function openDepth(depth) {
    trail.splice(depth);
    await reopen();
  }

  async function reopen() {
    selection.clear();
    replace(notice);
    await Promise.all([showFolders(), showFiles()]);
  }

  function stopPolling() {
    for (const poller of pollers) poller.stop();
    pollers = [];
  }

  async function showPreview(file) {
    closePreview();
    preview = await filePreview(app, file, closePreview);
    replace(previewSlot, preview.node);
    preview.node.focus();
  }

  function closePreview() {
    if (preview) preview.close();
    preview = null;
    replace(previewSlot);
  }

  // The file's bytes through the API (this tab's mandate and session), saved by the browser.
  async function download(file) {
    const blob = await api.blob(fileUrl(file.id, "/download"));
    const url = URL.createObjectURL(blob);
    const link = h("a", { href: url, download: file.name, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000); // the save may start late
  }

  // Runs `change(id)` for each file, one after another; says what went wrong, then reloads
  // the list (which also drops files no longer here from the selection).
  async function each(ids, change, done) {
    const failures = [];
    for (const id of ids) {
      try {
        await change(id);
      } catch (error) {
        failures.push(error);
      }
    }
    replace(notice, ...failures.map(errorMessage));
    const succeeded = ids.length - failures.length;
    if (succeeded) app.announce(done(succeeded));
    await showFiles();
  }

  async function moveFiles(ids, folderId) {
    if (folderId === currentFolder()) return; // dropped where they are
    await each(ids, (id) => api.patch(fileUrl(id), { folder_id: folderId }),
      (count) => t("moved", { count }));
  }

  async function act(action, files) {
    replace(notice);
    try {
      if (action === "preview") await showPreview(files[0]);
      else if (action === "download") await download(files[0]);
      else if (action === "rename") {
        const name = await askName(t, files[0]);
        if (name) {
          await api.patch(fileUrl(files[0].id), { name });
          app.announce(t("renamed", { name }));
          await showFiles();
        }
      } else if (action === "move") {
        const title = files.length === 1
          ? t("move_one", { name: files[0].name }) : t("move_many", { count: files.length });
        const target = await chooseFolder(app, title, trail);
        if (target) await moveFiles(files.map((file) => file.id), target.folderId);
      } else if (action === "delete" && await confirmDelete(t, files)) {
        await each(files.map((file) => file.id), (id) => api.delete(fileUrl(id)),
          (count) => t("deleted", { count }));
      }
    } catch (error) {
      replace(notice, errorMessage(error));
    }
  }

  const selectedFiles = () => listed.filter((file) => selection.has(file.id));
  const count = h("span", { class: "selection-count", "aria-live": "polite" });
  const bulkMove = h("button", { type: "button", class: "secondary",
    onclick: () => act("move", selectedFiles()) }, t("move_selected"));
  const bulkDelete = h("button", { type: "button", class: "danger",
    onclick: () => act("delete", selectedFiles()) }, t("delete_selected"));
  const toolbar = h("div", { class: "bulk-actions", role: "group", "aria-label": t("bulk") },
    count, bulkMove, bulkDelete);

  function paintToolbar() {
    const chosen = selectedFiles().length;
    count.textContent = t("selected", { count: chosen });
    bulkMove.disabled = bulkDelete.disabled = chosen === 0;
  }

  async function showFiles() {
    stopPolling();
    const query = new URLSearchParams({ folder_id: currentFolder() || "root", limit: String(PAGE) });
    if (tagFilter) query.append("tag", tagFilter);
    listed = (await api.get(`/v1/files?${query}`)).items;
    const here = new Set(listed.map((file) => file.id));
    for (const id of [...selection]) if (!here.has(id)) selection.delete(id);
    const filter = h("input",
      { type: "search", id: "tag-filter", value: tagFilter, autocomplete: "off" });
    const filterForm = h("form", { class: "row", role: "search" },
      h("div", { class: "field" }, h("label", { for: "tag-filter" }, t("filter_tag")), filter),
      h("button", { type: "submit" }, t("apply_filter")));
    filterForm.addEventListener("submit", (event) => {
      event.preventDefault();
      tagFilter = filter.value.trim();
      showFiles();
    });
    paintToolbar();
    const table = listed.length
      ? fileTable(app, listed, { selection, act, onSelect: paintToolbar, formatSize, pollers })
      : h("p", {}, t("none"));
    replace(listPanel, h("h2", { id: "files-title" }, t("files")), filterForm,
      listed.length > 0 && toolbar, notice, table);
  }

  root.append(
    h("h1", {}, t("title")),
    crumbSlot,
    h("div", { class: "layout-two" }, folderSlot,
      h("div", { class: "files-main" }, sectionSlot,
        uploadPanel(app, currentFolder, () => showFiles()), listPanel, previewSlot)),
  );
  await Promise.all([showFolders(), showFiles()]);
  // `#/files?section=<file id>&heading=…&start=…&end=…`: a search hit's link to its section
  const section = app.params?.get("section");
  if (section) {
    const hit = {
      fileId: section,
      heading: app.params.getAll("heading"),
      start: Number(app.params.get("start")) || 0,
      end: Number(app.params.get("end")) || 0,
    };
    const view = await sectionView(app, hit, () => replace(sectionSlot));
    replace(sectionSlot, view.node);
  }
  return () => {
    stopPolling();
    closePreview();
  };
}
