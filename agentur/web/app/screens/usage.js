// Usage: the mandate's AI cost in CHF per day and per model (days in the browser's time
// zone), and its limits: the monthly limit with what is left, and a prepaid balance.

import { errorMessage, h, replace, scrollable } from "../dom.js";

export const texts = {
  de: {
    title: "Verbrauch",
    limits: "Limiten",
    monthly_limit: "Monatslimite",
    spent: "Diesen Monat verbraucht",
    remaining: "Diesen Monat noch verfügbar",
    balance: "Guthaben",
    no_limit: "keine",
    period: "Zeitraum",
    last_days: "Letzte {days} Tage",
    per_day: "Kosten pro Tag",
    per_model: "Kosten pro Tag und Modell",
    date: "Datum",
    model: "Modell",
    calls: "Aufrufe",
    input_tokens: "Tokens ein",
    output_tokens: "Tokens aus",
    cost: "Kosten",
    total: "Total: {cost}",
    nothing: "In diesem Zeitraum keine KI-Kosten.",
    zone: "Tage nach Zeitzone {zone}.",
  },
  fr: {
    title: "Consommation",
    limits: "Limites",
    monthly_limit: "Limite mensuelle",
    spent: "Consommé ce mois",
    remaining: "Encore disponible ce mois",
    balance: "Solde",
    no_limit: "aucune",
    period: "Période",
    last_days: "{days} derniers jours",
    per_day: "Coût par jour",
    per_model: "Coût par jour et par modèle",
    date: "Date",
    model: "Modèle",
    calls: "Appels",
    input_tokens: "Jetons en entrée",
    output_tokens: "Jetons en sortie",
    cost: "Coût",
    total: "Total : {cost}",
    nothing: "Aucun coût d'IA sur cette période.",
    zone: "Jours selon le fuseau horaire {zone}.",
  },
  it: {
    title: "Consumo",
    limits: "Limiti",
    monthly_limit: "Limite mensile",
    spent: "Consumato questo mese",
    remaining: "Ancora disponibile questo mese",
    balance: "Credito",
    no_limit: "nessuno",
    period: "Periodo",
    last_days: "Ultimi {days} giorni",
    per_day: "Costo al giorno",
    per_model: "Costo per giorno e modello",
    date: "Data",
    model: "Modello",
    calls: "Chiamate",
    input_tokens: "Token in entrata",
    output_tokens: "Token in uscita",
    cost: "Costo",
    total: "Totale: {cost}",
    nothing: "Nessun costo di IA in questo periodo.",
    zone: "Giorni secondo il fuso orario {zone}.",
  },
  en: {
    title: "Usage",
    limits: "Limits",
    monthly_limit: "Monthly limit",
    spent: "Spent this month",
    remaining: "Left this month",
    balance: "Prepaid balance",
    no_limit: "none",
    period: "Period",
    last_days: "Last {days} days",
    per_day: "Cost per day",
    per_model: "Cost per day and model",
    date: "Date",
    model: "Model",
    calls: "Calls",
    input_tokens: "Input tokens",
    output_tokens: "Output tokens",
    cost: "Cost",
    total: "Total: {cost}",
    nothing: "No AI cost in this period.",
    zone: "Days in the time zone {zone}.",
  },
};

const PERIODS = [7, 14, 30, 90];

export async function render(root, app) {
  const { api, t, language } = app;
  const locale = `${language}-CH`;
  const chf = new Intl.NumberFormat(locale, { style: "currency", currency: "CHF", minimumFractionDigits: 2, maximumFractionDigits: 4 });
  const count = new Intl.NumberFormat(locale);
  // the API's dates are calendar days already: format them without shifting zones
  const dayFormat = new Intl.DateTimeFormat(locale, { weekday: "short", day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
  const formatDay = (iso) => dayFormat.format(new Date(`${iso}T00:00:00Z`));
  const money = (value) => (value === null ? t("no_limit") : chf.format(value));

  const limitsCard = h("section", { class: "card", "aria-labelledby": "limits-title" });
  const report = h("section", { class: "card", "aria-labelledby": "per-day-title" });
  const period = h("select", { id: "usage-period" }, PERIODS.map((days) => new Option(t("last_days", { days }), String(days))));
  period.value = "14";

  async function showLimits() {
    const limits = await api.get("/v1/billing/limits");
    const entry = (key, value) => [h("dt", {}, t(key)), h("dd", {}, value)];
    replace(limitsCard,
      h("h2", { id: "limits-title" }, t("limits")),
      h(
        "dl",
        { class: "facts" },
        entry("monthly_limit", money(limits.monthly_limit_chf)),
        entry("spent", chf.format(limits.spent_this_month_chf)),
        limits.monthly_limit_chf !== null && entry("remaining", money(limits.remaining_this_month_chf)),
        entry("balance", money(limits.balance_chf)),
      ),
    );
  }

  // a bar as wide as the day's share of the costliest day (CSSOM: the CSP allows no style attributes)
  function bar(fraction) {
    const node = h("span", { class: "bar", "aria-hidden": "true" });
    node.style.width = `${Math.round(fraction * 100)}%`;
    return node;
  }

  function dayTable(days) {
    const highest = Math.max(...days.map((day) => day.cost_chf), 0);
    return h(
      "table",
      {},
      h("caption", { class: "visually-hidden" }, t("per_day")),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("date")), h("th", { scope: "col", class: "number" }, t("cost")), h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, t("per_day"))))),
      h(
        "tbody",
        {},
        days.map((day) =>
          h(
            "tr",
            {},
            h("th", { scope: "row" }, formatDay(day.date)),
            h("td", { class: "number" }, chf.format(day.cost_chf)),
            h("td", { class: "bar-cell" }, bar(highest ? day.cost_chf / highest : 0)),
          ),
        ),
      ),
    );
  }

  function modelTable(days) {
    const rows = days.flatMap((day) =>
      day.models.map((item) =>
        h(
          "tr",
          {},
          h("td", {}, formatDay(day.date)),
          h("th", { scope: "row" }, item.model),
          h("td", { class: "number" }, count.format(item.calls)),
          h("td", { class: "number" }, count.format(item.input_tokens)),
          h("td", { class: "number" }, count.format(item.output_tokens)),
          h("td", { class: "number" }, chf.format(item.cost_chf)),
        ),
      ),
    );
    if (!rows.length) return h("p", {}, t("nothing"));
    const headings = ["date", "model", "calls", "input_tokens", "output_tokens", "cost"];
    return scrollable(t("per_model"), h(
      "table",
      {},
      h("caption", { class: "visually-hidden" }, t("per_model")),
      h("thead", {}, h("tr", {}, headings.map((key, index) => h("th", { scope: "col", class: index > 1 ? "number" : null }, t(key))))),
      h("tbody", {}, rows),
    ));
  }

  async function showReport() {
    report.setAttribute("aria-busy", "true");
    try {
      const usage = await api.get(`/v1/billing/daily?days=${period.value}`);
      replace(report,
        h("h2", { id: "per-day-title" }, t("per_day")),
        h("p", {}, h("strong", {}, t("total", { cost: chf.format(usage.total_cost_chf) })), " ", h("span", { class: "muted" }, t("zone", { zone: usage.timezone }))),
        dayTable(usage.days),
        h("h2", {}, t("per_model")),
        modelTable(usage.days),
      );
    } catch (error) {
      replace(report, errorMessage(error));
    } finally {
      report.removeAttribute("aria-busy");
    }
  }

  period.addEventListener("change", showReport);
  root.append(
    h("h1", {}, t("title")),
    limitsCard,
    h("div", { class: "card field" }, h("label", { for: "usage-period" }, t("period")), period),
    report,
  );
  await Promise.all([showLimits(), showReport()]);
}
