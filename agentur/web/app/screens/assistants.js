// PLACEHOLDER owned by the web-screens helper (issue 18): the Assistants screen.
// web-shell committed this stub so the shell runs; web-screens replaces it.

export const texts = {
  de: { title: "Assistenten" },
  fr: { title: "Assistants" },
  it: { title: "Assistenti" },
  en: { title: "Assistants" },
};

export async function render(root, app) {
  const heading = document.createElement("h1");
  heading.textContent = app.t("title");
  root.append(heading);
}
