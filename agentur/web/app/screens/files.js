// The Files screen (work in progress: the first commit gives the shell something to route to).

import { h } from "../dom.js";

export const texts = {
  de: { title: "Dateien" },
  fr: { title: "Fichiers" },
  it: { title: "File" },
  en: { title: "Files" },
};

export async function render(root, app) {
  root.append(h("h1", {}, app.t("title")));
}
