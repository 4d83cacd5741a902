// The Usage screen (work in progress: the first commit gives the shell something to route to).

import { h } from "../dom.js";

export const texts = {
  de: { title: "Verbrauch" },
  fr: { title: "Consommation" },
  it: { title: "Consumo" },
  en: { title: "Usage" },
};

export async function render(root, app) {
  root.append(h("h1", {}, app.t("title")));
}
