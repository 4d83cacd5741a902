// A file's tags in its row: shown as chips with an edit button that turns them into a form
// (comma-separated, saved with PATCH /v1/files/{id}).

import { errorMessage, h, replace } from "../dom.js";

export function tagCell(app, file) {
  const { api, t } = app;
  const cell = h("td", { class: "file-tags", "data-label": t("tags") });
  const show = () => {
    replace(cell,
      ...file.tags.map((tag) => h("span", { class: "tag" }, tag)),
      h("button", { type: "button", class: "secondary", onclick: edit,
        "aria-label": t("tags_of", { name: file.name }) }, t("edit_tags")),
    );
  };
  const edit = () => {
    const id = `tags-${file.id}`;
    const input = h("input",
      { type: "text", id, value: file.tags.join(", "), autocomplete: "off" });
    const feedback = h("div");
    const form = h("form", { class: "field" },
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
