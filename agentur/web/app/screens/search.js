// Knowledge search: hybrid results (full text and semantic) with the query's words marked
// in each passage, and a link that opens the file at the passage's section.

import { errorMessage, h, replace } from "../dom.js";
import { highlighted } from "../highlight.js";

export const texts = {
  de: {
    title: "Wissenssuche",
    query: "Suchbegriff",
    search: "Suchen",
    results: "Treffer",
    count: "{count} Treffer",
    none: "Keine Treffer.",
    page: "Seite {page}",
    open: "Abschnitt öffnen",
    open_label: "Abschnitt in {name} öffnen",
    legs: "Gefunden über: {legs}",
    lexical: "Volltext",
    vector: "Bedeutung",
    vector_off: "Nur Volltextsuche: {reason}",
  },
  fr: {
    title: "Recherche de connaissances",
    query: "Terme de recherche",
    search: "Rechercher",
    results: "Résultats",
    count: "{count} résultats",
    none: "Aucun résultat.",
    page: "Page {page}",
    open: "Ouvrir la section",
    open_label: "Ouvrir la section dans {name}",
    legs: "Trouvé par : {legs}",
    lexical: "texte intégral",
    vector: "sens",
    vector_off: "Recherche en texte intégral seulement : {reason}",
  },
  it: {
    title: "Ricerca nella conoscenza",
    query: "Termine di ricerca",
    search: "Cerca",
    results: "Risultati",
    count: "{count} risultati",
    none: "Nessun risultato.",
    page: "Pagina {page}",
    open: "Apri la sezione",
    open_label: "Apri la sezione in {name}",
    legs: "Trovato tramite: {legs}",
    lexical: "testo completo",
    vector: "significato",
    vector_off: "Solo ricerca nel testo completo: {reason}",
  },
  en: {
    title: "Knowledge search",
    query: "Search for",
    search: "Search",
    results: "Results",
    count: "{count} results",
    none: "No results.",
    page: "Page {page}",
    open: "Open section",
    open_label: "Open the section in {name}",
    legs: "Found by: {legs}",
    lexical: "full text",
    vector: "meaning",
    vector_off: "Full-text search only: {reason}",
  },
};

const LIMIT = 10;

// The Files screen opens this file's preview at the passage (see files.js).
export function sectionLink(hit) {
  const params = new URLSearchParams({ preview: hit.file_id, offset: String(hit.start) });
  if (hit.page) params.set("page", String(hit.page));
  return `#/files?${params}`;
}

function hitItem(hit, query, t) {
  const where = [...hit.heading_path];
  if (hit.page) where.push(t("page", { page: hit.page }));
  return h(
    "li",
    { class: "card hit" },
    h("h3", {}, hit.file_name),
    where.length > 0 && h("p", { class: "muted" }, where.join(" › ")),
    h("p", { class: "passage" }, highlighted(hit.text, query)),
    h(
      "p",
      { class: "muted" },
      t("legs", { legs: hit.legs.map((leg) => t(leg)).join(" + ") }),
      " · ",
      h("a", { href: sectionLink(hit), "aria-label": t("open_label", { name: hit.file_name }) }, t("open")),
    ),
  );
}

export async function render(root, app) {
  const { api, t } = app;
  const input = h("input", { type: "search", id: "knowledge-query", required: true, autocomplete: "off" });
  const results = h("section", { "aria-labelledby": "results-title", "aria-live": "polite" });
  const form = h(
    "form",
    { class: "card row", role: "search" },
    h("div", { class: "field grow" }, h("label", { for: "knowledge-query" }, t("query")), input),
    h("button", { type: "submit" }, t("search")),
  );

  async function run(query) {
    results.setAttribute("aria-busy", "true");
    try {
      const found = await api.post("/v1/knowledge/search", { query, limit: LIMIT });
      replace(results,
        h("h2", { id: "results-title" }, t("results")),
        h("p", {}, found.hits.length ? t("count", { count: found.hits.length }) : t("none")),
        found.vector_error && h("p", { class: "muted" }, t("vector_off", { reason: found.vector_error })),
        h("ol", { class: "results" }, found.hits.map((hit) => hitItem(hit, query, t))),
      );
    } catch (error) {
      replace(results, errorMessage(error));
    } finally {
      results.removeAttribute("aria-busy");
    }
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const query = input.value.trim();
    if (!query) return;
    // keep the query in the address, so the back button returns to these results
    history.replaceState(null, "", `#/search?${new URLSearchParams({ q: query })}`);
    run(query);
  });
  root.append(h("h1", {}, t("title")), form, results);
  const initial = app.params?.get("q");
  if (initial) {
    input.value = initial;
    await run(initial);
  }
}
