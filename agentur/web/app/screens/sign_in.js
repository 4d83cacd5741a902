// Sign in with an API key (or add another mandate's key to the session). The key goes to the
// server once; the browser keeps only the HttpOnly session cookie the server sets.

import { errorMessage, h, replace } from "../dom.js";

export const texts = {
  de: {
    title: "Anmelden",
    title_add: "Mandant hinzufügen",
    intro: "Melden Sie sich mit Ihrem API-Schlüssel an.",
    intro_add: "Der API-Schlüssel eines weiteren Mandanten fügt diesen Mandanten hinzu.",
    key: "API-Schlüssel",
    submit: "Anmelden",
    submit_add: "Hinzufügen",
    cancel: "Abbrechen",
  },
  fr: {
    title: "Connexion",
    title_add: "Ajouter un mandat",
    intro: "Connectez-vous avec votre clé d'API.",
    intro_add: "La clé d'API d'un autre mandat ajoute ce mandat.",
    key: "Clé d'API",
    submit: "Se connecter",
    submit_add: "Ajouter",
    cancel: "Annuler",
  },
  it: {
    title: "Accesso",
    title_add: "Aggiungi un mandato",
    intro: "Accedi con la tua chiave API.",
    intro_add: "La chiave API di un altro mandato aggiunge quel mandato.",
    key: "Chiave API",
    submit: "Accedi",
    submit_add: "Aggiungi",
    cancel: "Annulla",
  },
  en: {
    title: "Sign in",
    title_add: "Add a mandate",
    intro: "Sign in with your API key.",
    intro_add: "The API key of another mandate adds that mandate.",
    key: "API key",
    submit: "Sign in",
    submit_add: "Add",
    cancel: "Cancel",
  },
};

export async function render(root, app) {
  const { t } = app;
  const adding = Boolean(app.adding);
  const input = h("input", {
    id: "api-key",
    name: "api_key",
    type: "password",
    autocomplete: "current-password",
    required: true,
    spellcheck: "false",
  });
  const feedback = h("div", { class: "feedback" });
  const submit = h("button", { type: "submit" }, t(adding ? "submit_add" : "submit"));
  const form = h(
    "form",
    { class: "card sign-in", "aria-labelledby": "sign-in-title" },
    h("h1", { id: "sign-in-title" }, t(adding ? "title_add" : "title")),
    h("p", {}, t(adding ? "intro_add" : "intro")),
    h("label", { for: "api-key" }, t("key")),
    input,
    feedback,
    h(
      "div",
      { class: "actions" },
      submit,
      app.cancel && h("button", { type: "button", class: "secondary", onclick: app.cancel }, t("cancel")),
    ),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    replace(feedback);
    submit.disabled = true;
    try {
      await app.signIn(input.value.trim());
    } catch (error) {
      replace(feedback, errorMessage(error));
      input.focus();
    } finally {
      submit.disabled = false;
    }
  });
  root.append(form);
  input.focus();
}
