// Upload with progress: a drop zone (drag and drop) around a real file input, tags and a
// share switch for the new files, one progress bar per file.

import { errorMessage, h, replace } from "../dom.js";

// folderId() gives the folder the files go to (null: top level); onUploaded(file) per file.
export function uploadPanel(app, folderId, onUploaded) {
  const { api, t } = app;
  const input = h("input", { type: "file", id: "upload-input", multiple: true, class: "visually-hidden" });
  const tags = h("input", { type: "text", id: "upload-tags", autocomplete: "off" });
  const share = h("input", { type: "checkbox", id: "upload-share" });
  const progressList = h("ul", { class: "results", "aria-live": "polite" });
  const zone = h(
    "div",
    { class: "drop-zone" },
    h("p", {}, t("drop_here")),
    h("label", { for: "upload-input", class: "button-like" }, t("choose_files")),
    input,
  );

  async function send(file) {
    const progress = h("progress", { max: 1, value: 0, "aria-label": t("uploading", { name: file.name }) });
    const line = h("li", {}, h("span", {}, file.name), " ", progress);
    progressList.append(line);
    const form = new FormData();
    form.append("file", file, file.name);
    const folder = folderId();
    if (folder) form.append("folder_id", folder);
    for (const tag of tags.value.split(",").map((item) => item.trim()).filter(Boolean)) {
      form.append("tags", tag);
    }
    if (share.checked) form.append("scope", "mandate");
    try {
      const stored = await api.upload("/v1/files", form, (fraction) => {
        progress.value = fraction;
      });
      replace(line, h("span", { class: "ok" }, t("uploaded", { name: stored.name })));
      onUploaded(stored);
    } catch (error) {
      replace(line, h("span", {}, file.name), " ", errorMessage(error));
    }
  }

  async function sendAll(files) {
    for (const file of files) await send(file); // one at a time: progress stays readable
  }

  input.addEventListener("change", () => {
    const files = [...input.files];
    input.value = "";
    sendAll(files);
  });
  zone.addEventListener("dragover", (event) => {
    event.preventDefault();
    zone.classList.add("dragging");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("dragging"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("dragging");
    sendAll([...event.dataTransfer.files]);
  });

  return h(
    "section",
    { class: "card", "aria-labelledby": "upload-title" },
    h("h2", { id: "upload-title" }, t("upload")),
    zone,
    h(
      "div",
      { class: "row" },
      h("div", { class: "field" }, h("label", { for: "upload-tags" }, t("upload_tags")), tags),
      h("div", { class: "field checkbox" }, h("span", {}, share, " ", h("label", { for: "upload-share" }, t("share")))),
    ),
    progressList,
  );
}
