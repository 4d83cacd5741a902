// The Knowledge search screen (work in progress: the first commit gives the shell something to route to).

import { h } from "../dom.js";

export const texts = {
  de: { title: "Wissenssuche" },
  fr: { title: "Recherche de connaissances" },
  it: { title: "Ricerca nella conoscenza" },
  en: { title: "Knowledge search" },
};

export async function render(root, app) {
  root.append(h("h1", {}, app.t("title")));
}
