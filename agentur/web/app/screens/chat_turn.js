// One exchange in the chat log: the user's message and the agent's reply, with its thinking
// panel (tool calls and results, each collapsible) and the run's rounds, cost and tokens.
// The answer is Markdown, rendered (and sanitized) as it streams in.
import { h } from "../dom.js";
import { MarkdownView } from "../markdown/markdown_view.js";

function pretty(value) {
  if (typeof value !== "string") return JSON.stringify(value, null, 2);
  try {
    return JSON.stringify(JSON.parse(value), null, 2); // tool results are often JSON text
  } catch {
    return value;
  }
}

export function userMessage(t, text) {
  return h("div", { class: "chat-message chat-user" },
    h("p", { class: "chat-author" }, t("you")),
    h("p", { class: "chat-text" }, text));
}

export class AgentReply {
  constructor(app) {
    this.app = app;
    this.tools = new Map(); // tool call id -> its <li>
    this.count = 0;
    this.summary = h("summary", {}, app.t("thinking"));
    this.steps = h("ol", { class: "chat-steps" });
    this.thinking = h("details", { class: "chat-thinking" }, this.summary, this.steps);
    // Only the streamed answer is a live region: screen readers hear the text, not each tool.
    this.answer = h("div", { class: "chat-answer markdown", "aria-live": "polite" });
    this.markdown = new MarkdownView(this.answer);
    this.text = "";
    this.stats = h("p", { class: "chat-stats" });
    this.node = h("div", { class: "chat-message chat-agent" },
      h("p", { class: "chat-author" }, app.t("agent")), this.thinking, this.answer, this.stats);
  }

  appendText(text) {
    this.text += text;
    this.markdown.stream(this.text);
  }

  setText(text) {
    this.text = text;
    this.markdown.show(text);
  }

  toolCall({ id, name, arguments: args }) {
    const state = h("span", { class: "chat-tool-state" }, this.app.t("tool_running"));
    const result = h("pre", { class: "chat-tool-result" });
    const item = h("li", { class: "chat-tool", "data-tool": name },
      h("details", {},
        h("summary", {}, h("code", {}, name), " ", state),
        h("p", { class: "chat-label" }, this.app.t("arguments")),
        h("pre", { class: "chat-tool-arguments" }, pretty(args ?? {})),
        h("p", { class: "chat-label" }, this.app.t("result")),
        result));
    item.state = state;
    item.result = result;
    this.tools.set(id, item);
    this.steps.append(item);
    this.count += 1;
    this.summary.textContent = this.app.t("thinking_steps", { count: this.count });
  }

  toolResult({ id, name, content, is_error: isError, duration_ms: ms }) {
    if (!this.tools.has(id)) this.toolCall({ id, name, arguments: {} });
    const item = this.tools.get(id);
    item.result.textContent = pretty(content ?? "");
    item.state.textContent = isError
      ? this.app.t("tool_error")
      : this.app.t("tool_done", { ms: Math.round(ms ?? 0) });
    item.classList.toggle("chat-tool-failed", Boolean(isError));
  }

  // Trace entries of a finished run (history): the same panel, filled at once.
  showTrace(entries) {
    for (const entry of entries) {
      if (entry.kind !== "tool_call") continue;
      const { id, name, arguments: args, result, is_error: isError } = entry.data;
      this.toolCall({ id: `${entry.sequence}-${id}`, name, arguments: args });
      this.toolResult({ id: `${entry.sequence}-${id}`, name, content: result, is_error: isError,
        duration_ms: entry.duration_ms });
    }
    if (this.count === 0) this.steps.append(h("li", {}, this.app.t("no_tools")));
  }

  setStats({ rounds, cost_chf: cost, usage }) {
    const language = this.app.language;
    const chf = new Intl.NumberFormat(language, {
      style: "currency", currency: "CHF", minimumFractionDigits: 2, maximumFractionDigits: 4,
    });
    const tokens = new Intl.NumberFormat(language).format(usage?.total_tokens ?? 0);
    this.stats.textContent = this.app.t("stats", { rounds, cost: chf.format(cost ?? 0), tokens });
  }
}
