// PLACEHOLDER owned by the web-screens helper (issue 18): the Agent chat screen.
// web-shell committed this stub so the shell runs; web-screens replaces it.

export const texts = {
  de: { title: "Agent-Chat" },
  fr: { title: "Chat avec l'agent" },
  it: { title: "Chat con l'agente" },
  en: { title: "Agent chat" },
};

export async function render(root, app) {
  const heading = document.createElement("h1");
  heading.textContent = app.t("title");
  root.append(heading);
}
