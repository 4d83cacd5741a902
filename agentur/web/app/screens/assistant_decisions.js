// Pre-flight decisions of one assistant (shadow, routing and replay modes, newest first) and
// the latest replay of its label set: what changed since the previous replay, what differs
// from its label.
import { h, scrollable } from "../dom.js";

function table(caption, headers, rows) {
  return scrollable(caption, h("table", { class: "data-table" }, h("caption", {}, caption),
    h("thead", {}, h("tr", {}, headers.map((text) => h("th", { scope: "col" }, text)))),
    h("tbody", {}, rows)));
}

async function decisionsPart(app, assistantId) {
  const { t, language, timezone } = app;
  const decisions = await app.api.get(
    `/v1/assistants/${encodeURIComponent(assistantId)}/decisions?limit=100`);
  if (decisions.length === 0) return h("p", { class: "decisions-empty" }, t("no_decisions"));
  const when = new Intl.DateTimeFormat(language, {
    dateStyle: "short", timeStyle: "medium", timeZone: timezone,
  });
  return table(t("decisions_caption"),
    [t("time"), t("mode"), t("message"), t("decision"), t("acted")],
    decisions.map((d) => h("tr", {},
      h("td", {}, when.format(new Date(d.created_at))),
      h("td", {}, t(`mode_${d.mode}`)),
      h("td", {}, d.message),
      h("td", {}, h("code", {}, d.decision)),
      h("td", {}, d.acted ? t("yes") : t("no")))));
}

async function replayPart(app, assistantId) {
  const { t } = app;
  let replay;
  try {
    replay = await app.api.get(`/v1/assistants/${encodeURIComponent(assistantId)}/replays/latest`);
  } catch (error) {
    if (error.status === 404) return h("p", {}, t("no_replay"));
    throw error;
  }
  const summary = h("p", { class: "replay-summary" }, t("replay_summary", {
    total: replay.total, changed: replay.changed, mismatched: replay.mismatched,
  }));
  const rows = replay.results.map((row) => {
    const changed = row.previous !== null && row.previous !== row.decision;
    const mismatched = row.expected !== null && row.expected !== row.decision;
    const state = changed ? t("changed") : (mismatched ? t("mismatched") : t("ok"));
    return h("tr", { class: changed || mismatched ? "replay-flagged" : null },
      h("td", {}, row.text), h("td", {}, h("code", {}, row.decision)),
      h("td", {}, row.previous ?? "–"), h("td", {}, row.expected ?? "–"), h("td", {}, state));
  });
  return h("div", {}, summary, table(t("replay_caption"),
    [t("message"), t("decision"), t("previous"), t("expected"), t("state")], rows));
}

export async function decisionsSection(app, assistantId) {
  const { t } = app;
  const section = h("section", { class: "assistant-decisions", "aria-labelledby": "decisions-title" },
    h("h2", { id: "decisions-title" }, t("decisions")),
    h("p", { class: "muted" }, t("decisions_hint")));
  const replay = h("section", { "aria-labelledby": "replay-title" },
    h("h2", { id: "replay-title" }, t("replay")));
  try {
    section.append(await decisionsPart(app, assistantId));
    replay.append(await replayPart(app, assistantId));
  } catch (error) {
    section.append(h("p", { class: "error", role: "alert" }, t("load_failed", { detail: error.detail || error.message })));
  }
  return [section, replay];
}
