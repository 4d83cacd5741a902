// The Files screen: folders (one level at a time), upload with progress and drag and drop,
// tags (filter and edit), preview of text and PDF, and each file's index status.

import { errorMessage, h, replace } from "../dom.js";
import { filePreview } from "./file_preview.js";
import { uploadPanel } from "./file_upload.js";
import { texts } from "./files_texts.js";
import { indexStatus } from "./index_status.js";

export { texts };

const PAGE = 200;

export async function render(root, app) {
  const { api, t, language } = app;
  const sizes = new Intl.NumberFormat(language, { maximumFractionDigits: 1 });
  const trail = []; // the open folders, outermost first: [{id, name}]
  let pollers = [];
  let preview = null;
  let tagFilter = "";

  const folderPanel = h("section", { class: "card folder-tree", "aria-labelledby": "folders-title" });
  const listPanel = h("section", { class: "card", "aria-labelledby": "files-title" });
  const previewSlot = h("div");
  const currentFolder = () => (trail.length ? trail[trail.length - 1].id : null);

  function formatSize(bytes) {
    if (bytes < 1024) return `${bytes} B`;
    if (bytes < 1024 * 1024) return `${sizes.format(bytes / 1024)} KB`;
    return `${sizes.format(bytes / 1024 / 1024)} MB`;
  }

  async function showFolders() {
    const parent = currentFolder();
    const folders = await api.get(`/v1/folders${parent ? `?parent_id=${encodeURIComponent(parent)}` : ""}`);
    const name = h("input", { type: "text", id: "new-folder", required: true, autocomplete: "off" });
    const feedback = h("div");
    const form = h(
      "form",
      { class: "field" },
      h("label", { for: "new-folder" }, t("new_folder")),
      name,
      h("button", { type: "submit" }, t("create_folder")),
      feedback,
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        const created = await api.post("/v1/folders", { name: name.value.trim(), parent_id: parent });
        app.announce(t("folder_created", { name: created.name }));
        await showFolders();
      } catch (error) {
        replace(feedback, errorMessage(error));
      }
    });
    replace(folderPanel,
      h("h2", { id: "folders-title" }, t("folders")),
      h("p", {}, trail.length ? t("in_folder", { name: trail.map((item) => item.name).join(" / ") }) : t("top_level")),
      trail.length > 0 &&
        h("button", { type: "button", class: "secondary", onclick: () => openFolder(null) }, t("up")),
      h(
        "ul",
        {},
        folders.map((folder) =>
          h("li", {}, h("button", { type: "button", onclick: () => openFolder(folder) }, `📁 ${folder.name}`)),
        ),
      ),
      form,
    );
  }

  async function openFolder(folder) {
    if (folder) trail.push({ id: folder.id, name: folder.name });
    else trail.pop();
    await Promise.all([showFolders(), showFiles()]);
  }

  function stopPolling() {
    for (const poller of pollers) poller.stop();
    pollers = [];
  }

  async function showPreview(file, at = {}) {
    closePreview();
    preview = await filePreview(app, file, closePreview, at);
    replace(previewSlot, preview.node);
    preview.node.focus();
  }

  function closePreview() {
    if (preview) preview.close();
    preview = null;
    replace(previewSlot);
  }

  function tagCell(file) {
    const cell = h("td");
    const show = () => {
      replace(cell,
        ...file.tags.map((tag) => h("span", { class: "tag" }, tag)),
        h("button", { type: "button", class: "secondary", onclick: edit, "aria-label": t("tags_of", { name: file.name }) }, t("edit_tags")),
      );
    };
    const edit = () => {
      const id = `tags-${file.id}`;
      const input = h("input", { type: "text", id, value: file.tags.join(", "), autocomplete: "off" });
      const feedback = h("div");
      const form = h(
        "form",
        { class: "field" },
        h("label", { for: id }, t("tags_of", { name: file.name })),
        input,
        h("button", { type: "submit" }, t("save")),
        feedback,
      );
      form.addEventListener("submit", async (event) => {
        event.preventDefault();
        const tags = input.value.split(",").map((item) => item.trim()).filter(Boolean);
        try {
          const changed = await api.patch(`/v1/files/${encodeURIComponent(file.id)}`, { tags });
          file.tags = changed.tags;
          app.announce(t("tags_saved"));
          show();
        } catch (error) {
          replace(feedback, errorMessage(error));
        }
      });
      replace(cell, form);
      input.focus();
    };
    show();
    return cell;
  }

  function fileRow(file) {
    const status = indexStatus(app, file);
    pollers.push(status);
    return h(
      "tr",
      { "data-file-id": file.id },
      h("th", { scope: "row" }, file.name),
      tagCell(file),
      h("td", { class: "number" }, formatSize(file.size)),
      h("td", {}, status.node),
      h(
        "td",
        {},
        h("button", { type: "button", class: "secondary", onclick: () => showPreview(file), "aria-label": t("preview_of", { name: file.name }) }, t("preview")),
      ),
    );
  }

  async function showFiles() {
    stopPolling();
    const query = new URLSearchParams({ folder_id: currentFolder() || "root", limit: String(PAGE) });
    if (tagFilter) query.append("tag", tagFilter);
    const listing = await api.get(`/v1/files?${query}`);
    const filter = h("input", { type: "search", id: "tag-filter", value: tagFilter, autocomplete: "off" });
    const filterForm = h(
      "form",
      { class: "row", role: "search" },
      h("div", { class: "field" }, h("label", { for: "tag-filter" }, t("filter_tag")), filter),
      h("button", { type: "submit" }, t("apply_filter")),
    );
    filterForm.addEventListener("submit", (event) => {
      event.preventDefault();
      tagFilter = filter.value.trim();
      showFiles();
    });
    const table = listing.items.length
      ? h(
          "table",
          {},
          h("caption", { class: "visually-hidden" }, t("files")),
          h(
            "thead",
            {},
            h("tr", {}, ["name", "tags", "size", "index", "actions"].map((key) =>
              h("th", { scope: "col", class: key === "size" ? "number" : null }, t(key)),
            )),
          ),
          h("tbody", {}, listing.items.map(fileRow)),
        )
      : h("p", {}, t("none"));
    replace(listPanel, h("h2", { id: "files-title" }, t("files")), filterForm, table);
  }

  root.append(
    h("h1", {}, t("title")),
    h(
      "div",
      { class: "layout-two" },
      folderPanel,
      h("div", {}, uploadPanel(app, currentFolder, () => showFiles()), listPanel, previewSlot),
    ),
  );
  await Promise.all([showFolders(), showFiles()]);
  // `#/files?preview=<id>&offset=…&page=…`: a search result's link to its section
  const wanted = app.params?.get("preview");
  if (wanted) {
    try {
      const file = await api.get(`/v1/files/${encodeURIComponent(wanted)}`);
      await showPreview(file, { offset: app.params.get("offset"), page: app.params.get("page") });
    } catch (error) {
      replace(previewSlot, errorMessage(error));
    }
  }
  return () => {
    stopPolling();
    closePreview();
  };
}
