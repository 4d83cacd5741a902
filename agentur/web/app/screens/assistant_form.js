// The whole-definition editor of one assistant: create (POST) or replace (PUT) in one request,
// so the server validates FAQs, flows, desks and catalog together and names a wrong field.
import { h } from "../dom.js";
import { FormError, field, input, itemList, lines, textarea, uid } from "./form_fields.js";
import { LANGUAGES, faqEditor, flowEditor, helpDeskEditor } from "./assistant_items.js";
import { catalogEditor } from "./api_catalog_editor.js";
import { formTabs } from "./form_tabs.js";
import { thresholdsEditor } from "./preflight_thresholds_editor.js";

// What the API adds to a definition when it returns one; a definition must not carry them.
const VIEW_ONLY = ["id", "created_at", "updated_at", "has_labels"];

function languageChoice(t, chosen) {
  const boxes = LANGUAGES.map((code) => h("input", {
    type: "checkbox", id: uid("language"), value: code, checked: chosen.includes(code),
  }));
  const node = h("fieldset", { class: "language-choice" }, h("legend", {}, t("languages")),
    boxes.map((box) => h("span", {}, box, h("label", { for: box.id }, t(`language_${box.value}`)))));
  return { node, read: () => boxes.filter((box) => box.checked).map((box) => box.value) };
}

export function assistantForm(app, assistant, { onSaved, onCancel }) {
  const { t } = app;
  const original = { ...(assistant ?? {}) };
  const name = input(original.name, { required: true, maxlength: 200, class: "assistant-name" });
  const instructions = textarea(original.instructions, { rows: 4 });
  const languages = languageChoice(t, original.languages ?? [app.language].filter(
    (code) => LANGUAGES.includes(code)));
  const origins = textarea((original.allowed_origins ?? []).join("\n"), { rows: 2 });
  const faqs = itemList({
    legend: t("faqs"), addLabel: t("add_faq"), removeLabel: t("remove_faq"),
    items: original.faqs, build: (faq) => faqEditor(t, faq), className: "faqs",
  });
  const helpDesks = itemList({
    legend: t("help_desks"), addLabel: t("add_help_desk"), removeLabel: t("remove_help_desk"),
    items: original.help_desks, build: (desk) => helpDeskEditor(t, app.timezone, desk),
    className: "help-desks",
  });
  const flows = itemList({
    legend: t("flows"), addLabel: t("add_flow"), removeLabel: t("remove_flow"),
    items: original.flows, build: (flow) => flowEditor(t, flow), className: "flows",
  });
  const catalog = catalogEditor(t, original.api_catalog);
  const thresholds = thresholdsEditor(t, original.preflight_thresholds);
  const alert = h("p", { class: "error", role: "alert" });
  const save = h("button", { type: "submit" }, t("save"));
  const cancel = h("button", { type: "button", class: "secondary", onclick: onCancel }, t("cancel"));
  const form = h("form", { class: "assistant-form" });
  // In sections, one at a time: the whole definition as one form was pages long.
  form.append(formTabs(form, [
    { label: t("section_general"), nodes: [field(t("name"), name),
      field(t("instructions"), instructions), languages.node,
      field(t("allowed_origins"), origins, t("allowed_origins_hint"))] },
    { label: t("faqs"), nodes: [faqs.node] },
    { label: t("flows"), nodes: [flows.node] },
    { label: t("help_desks"), nodes: [helpDesks.node] },
    { label: t("api_catalog"), nodes: [catalog.node] },
    { label: t("thresholds"), nodes: [thresholds.node] },
  ], t("sections")), alert, h("div", { class: "actions" }, save, cancel));

  function definition() {
    const data = { ...original };
    for (const key of VIEW_ONLY) delete data[key];
    return {
      ...data,
      name: name.value.trim(),
      instructions: instructions.value,
      languages: languages.read(),
      allowed_origins: lines(origins.value),
      faqs: faqs.read(),
      help_desks: helpDesks.read(),
      flows: flows.read(),
      api_catalog: catalog.read(),
      preflight_thresholds: thresholds.read(),
    };
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    alert.textContent = "";
    save.disabled = true;
    try {
      const body = definition();
      const saved = original.id
        ? await app.api.put(`/v1/assistants/${encodeURIComponent(original.id)}`, body)
        : await app.api.post("/v1/assistants", body);
      onSaved(saved);
    } catch (error) {
      alert.textContent = error instanceof FormError
        ? error.message
        : t("save_failed", { detail: error.detail || error.message });
    } finally {
      save.disabled = false;
    }
  });
  return form;
}
