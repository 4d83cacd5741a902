// Assistants: the list, the editor (FAQs, flows, help desks, API catalog), publishable
// visitor keys, and the pre-flight decisions and replay results of an assistant.
import { h, scrollable } from "../dom.js";
import { loadStylesheet } from "./load_stylesheet.js";
import { assistantForm } from "./assistant_form.js";
import { decisionsSection } from "./assistant_decisions.js";
import { texts } from "./assistants_texts.js";

export { texts };

function visitorKeySection(app, assistantId) {
  const { t } = app;
  const output = h("div", { class: "visitor-key", "aria-live": "polite" });
  const issue = h("button", {
    type: "button",
    onclick: async () => {
      try {
        const key = await app.api.post(
          `/v1/assistants/${encodeURIComponent(assistantId)}/visitor-keys`, {});
        // The widget's one script tag (see agentur/web/widget/widget.js), ready to paste.
        const tag = `<script src="${location.origin}/widget.js" data-assistant="${assistantId}"`
          + ` data-key="${key.key}" async></script>`;
        output.replaceChildren(h("p", {}, t("visitor_key_once")), h("code", {}, key.key),
          h("p", {}, t("embed_snippet")), h("pre", { class: "embed-snippet" }, h("code", {}, tag)));
      } catch (error) {
        output.replaceChildren(h("p", { class: "error", role: "alert" }, t("load_failed", {
          detail: error.detail || error.message })));
      }
    },
  }, t("issue_visitor_key"));
  return h("section", { "aria-labelledby": "visitor-key-title" },
    h("h2", { id: "visitor-key-title" }, t("visitor_key")),
    h("p", { class: "muted" }, t("visitor_key_hint")), issue, output);
}

// Two steps, so one stray click deletes nothing: the button first asks, then acts.
function deleteSection(app, assistant, onDeleted) {
  const { t } = app;
  const area = h("div", { class: "actions" });
  const ask = () => {
    const confirm = h("button", {
      type: "button",
      class: "danger",
      onclick: async () => {
        try {
          await app.api.delete(`/v1/assistants/${encodeURIComponent(assistant.id)}`);
          onDeleted();
        } catch (error) {
          area.append(h("p", { class: "error", role: "alert" }, t("load_failed", {
            detail: error.detail || error.message })));
        }
      },
    }, t("delete_confirm"));
    area.replaceChildren(h("p", {}, t("delete_question", { name: assistant.name })), confirm,
      h("button", { type: "button", class: "secondary", onclick: idle }, t("cancel")));
    confirm.focus();
  };
  const idle = () => area.replaceChildren(
    h("button", { type: "button", class: "danger", onclick: ask }, t("delete")));
  idle();
  return h("section", { "aria-labelledby": "delete-title" },
    h("h2", { id: "delete-title" }, t("delete_title")), area);
}

export async function render(root, app) {
  await loadStylesheet(new URL("./assistants.css", import.meta.url));
  const { t, language, timezone } = app;
  const status = h("p", { class: "assistants-status", role: "status" });

  async function showList(message = "") {
    const when = new Intl.DateTimeFormat(language, {
      dateStyle: "short", timeStyle: "short", timeZone: timezone,
    });
    const create = h("button", { type: "button", onclick: () => showEditor(null) },
      t("new_assistant"));
    root.replaceChildren(h("h1", {}, t("title")), create, status);
    status.textContent = message;
    let assistants;
    try {
      assistants = await app.api.get("/v1/assistants?limit=500");
    } catch (error) {
      status.textContent = t("load_failed", { detail: error.detail || error.message });
      return;
    }
    if (assistants.length === 0) {
      root.append(h("p", {}, t("no_assistants")));
      return;
    }
    root.append(scrollable(t("list_caption"), h("table", { class: "data-table assistants-list" },
      h("caption", {}, t("list_caption")),
      h("thead", {}, h("tr", {},
        [t("name"), t("languages"), t("faqs"), t("flows"), t("help_desks"), t("updated"), ""]
          .map((text) => h("th", { scope: "col" }, text)))),
      h("tbody", {}, assistants.map((a) => h("tr", { "data-assistant": a.id },
        h("th", { scope: "row" }, a.name),
        h("td", {}, a.languages.join(", ")),
        h("td", {}, String(a.faqs.length)),
        h("td", {}, String(a.flows.length)),
        h("td", {}, String(a.help_desks.length)),
        h("td", {}, when.format(new Date(a.updated_at))),
        h("td", {}, h("button", {
          type: "button",
          "aria-label": t("edit_named", { name: a.name }),
          onclick: () => showEditor(a.id),
        }, t("edit")))))))));
  }

  async function showEditor(assistantId) {
    let assistant = null;
    try {
      if (assistantId) {
        assistant = await app.api.get(`/v1/assistants/${encodeURIComponent(assistantId)}`);
      }
    } catch (error) {
      status.textContent = t("load_failed", { detail: error.detail || error.message });
      return;
    }
    const form = assistantForm(app, assistant, {
      onSaved: (saved) => showList(t("saved", { name: saved.name })),
      onCancel: () => showList(),
    });
    const heading = assistant ? t("edit_title", { name: assistant.name }) : t("new_assistant");
    root.replaceChildren(h("h1", {}, heading), form);
    if (assistant) {
      root.append(visitorKeySection(app, assistant.id),
        ...await decisionsSection(app, assistant.id),
        deleteSection(app, assistant, () => showList(t("deleted", { name: assistant.name }))));
    }
    form.querySelector("input")?.focus();
  }

  await showList();
}
