// The messages of the chat log: the visitor's, and the assistant's as its turn streams in —
// the thinking panel (simplified thinking, collapsible), the text (Markdown, rendered and
// sanitized as it streams), sources, flow choices and the escalation menu.

import { el } from "./dom.js";
import { escalationView } from "./escalation_view.js";
import { MarkdownView } from "./markdown/markdown_view.js";
import { sourcesView } from "./sources_view.js";

export function visitorMessage(text, t) {
  return el(
    "article",
    { class: "message visitor" },
    el("span", { class: "visually-hidden" }, `${t("you")}: `),
    el("p", { class: "text" }, text),
  );
}

export class AssistantMessage {
  /** `hooks`: {t, language, escalate(deskId, email, text), pick(label)} */
  constructor(hooks) {
    this.hooks = hooks;
    this.steps = [];
    this.stepList = el("ol");
    this.summary = el("summary", {}, hooks.t("thinking"));
    this.thinking = el("details", { class: "thinking", hidden: true }, this.summary,
      this.stepList);
    this.text = el("div", { class: "text markdown" });
    this.markdown = new MarkdownView(this.text);
    this.extras = el("div", { class: "extras" });
    this.node = el(
      "article",
      { class: "message assistant", "aria-busy": "true" },
      el("span", { class: "visually-hidden" }, `${hooks.t("assistant")}: `),
      this.thinking,
      this.text,
      this.extras,
    );
    this.choiceButtons = [];
    this.raw = "";
    // The answer's text lists the desk's options for clients without a menu; where the menu
    // shows them, those lines are left out of the text rather than shown twice.
    this.menuLines = new Set();
    this.answerLanguage = null;
  }

  static greeting(text, hooks) {
    const message = new AssistantMessage(hooks);
    message.appendText(text);
    message.finish(null);
    return message;
  }

  addThinking(text) {
    this.steps.push(text);
    this.stepList.append(el("li", {}, text));
    this.thinking.hidden = false;
    if (!this.done) this.summary.textContent = text; // the latest step, while it runs
  }

  appendText(text) {
    // A flow's later lines arrive with a leading newline; the first has nothing before it.
    this.raw += this.raw ? text : text.replace(/^\n+/, "");
    this.showText();
  }

  showText() {
    const lines = this.raw.split("\n").filter((line) => !this.menuLines.has(line.trim()));
    if (this.done) this.markdown.show(lines.join("\n"));
    else this.markdown.stream(lines.join("\n"));
  }

  showSources(sources) {
    if (sources.length) this.extras.append(sourcesView(sources, this.hooks.t));
    // A FAQ answer may be in another language than the conversation's (the server then says
    // so in a first paragraph of the visitor's language).
    this.answerLanguage = sources.find((source) => source.kind === "faq")?.language ?? null;
  }

  // Screen readers pronounce the answer's text in its own language, the note in the visitor's.
  #markAnswerLanguage(language) {
    if (!this.answerLanguage || !language || this.answerLanguage === language) return;
    for (const block of [...this.text.children].slice(1)) {
      block.setAttribute("lang", this.answerLanguage);
    }
  }

  showAction(action, live = true) {
    const { t, language, escalate, pick } = this.hooks;
    if (action.type === "choice") {
      this.choiceButtons = action.options.map((option) =>
        el("button", { type: "button", class: "choice", disabled: !live,
          onclick: () => pick(option.label) }, option.label),
      );
      this.extras.append(el("div", { class: "choices", role: "group",
        "aria-label": t("choices") }, this.choiceButtons));
    } else if (action.type === "escalation_menu") {
      const menu = escalationView(action, t, language, escalate);
      if (!menu) return;
      for (const option of action.options) {
        const contact = option.contact ? `: ${option.contact}` : "";
        this.menuLines.add(`- ${option.label}${contact}`);
      }
      this.showText();
      this.extras.append(menu);
    }
  }

  /** Choices are answered once; a later message makes them stale too. */
  retireChoices() {
    for (const button of this.choiceButtons) button.disabled = true;
  }

  /** `answer`: the turn's whole text as stored; it wins over the streamed pieces (a flow's
   * hand-off, for one, streams its lines without the separator the stored answer has). */
  finish(language, answer = null) {
    this.done = true;
    if (answer) this.raw = answer;
    this.showText();
    this.node.removeAttribute("aria-busy");
    if (language) this.node.setAttribute("lang", language);
    this.#markAnswerLanguage(language);
    this.summary.textContent = this.hooks.t("thinking_done", { count: this.steps.length });
  }

  /** A stored assistant message, as the history endpoint returns it. */
  static restore(record, hooks, live) {
    const message = new AssistantMessage(hooks);
    const data = record.data || {};
    for (const step of data.thinking || []) message.addThinking(step.text);
    message.appendText(record.text);
    message.showSources(data.sources || []);
    for (const action of data.actions || []) message.showAction(action, live);
    message.finish(data.language);
    return message;
  }
}
