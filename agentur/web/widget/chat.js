// The conversation as the visitor sees it: restores this tab's conversation on first open,
// sends messages and renders each turn's events as they stream in.

import { Conversation } from "./conversation.js";
import { el } from "./dom.js";
import { AssistantMessage, visitorMessage } from "./message_view.js";

const INPUT_MODES = { email: "email", phone: "tel", number: "decimal" };

export class Chat {
  constructor(config, language, t) {
    this.conversation = new Conversation(config, language);
    this.language = language;
    this.t = t;
    this.busy = false;
    this.messages = [];
    this.restoring = null;
  }

  attach(view) {
    this.view = view;
  }

  #hooks() {
    return {
      t: this.t,
      language: this.language,
      escalate: (desk, email, text) => this.conversation.escalate(desk, email, text),
      pick: (label) => this.send(label),
    };
  }

  #append(message) {
    this.messages.push(message);
    this.view.log.append(message.node ?? message);
    this.view.scrollToEnd();
  }

  #notice(text) {
    this.view.log.append(el("p", { class: "notice", role: "alert" }, text));
    this.view.scrollToEnd();
  }

  /** On first open: this tab's earlier messages, or the greeting (once; later calls wait). */
  restore() {
    this.restoring ??= this.#restore();
    return this.restoring;
  }

  async #restore() {
    let records = [];
    if (this.conversation.started) {
      try {
        records = await this.conversation.history();
      } catch (error) {
        // Expired or removed: the next message starts anew (a network failure keeps it).
        if (error.status === 404) this.conversation.forget();
      }
    }
    this.#append(AssistantMessage.greeting(this.t("greeting"), this.#hooks()));
    const lastAssistant = records.findLastIndex((record) => record.role === "assistant");
    records.forEach((record, index) => {
      if (record.role === "visitor") this.#append(visitorMessage(record.text, this.t));
      else this.#append(AssistantMessage.restore(record, this.#hooks(), index === lastAssistant));
    });
  }

  async send(text) {
    if (this.busy) return;
    this.busy = true;
    await this.restore(); // the earlier messages come first, even when typed fast
    for (const message of this.messages) message.retireChoices?.();
    this.view.input.value = "";
    this.view.input.removeAttribute("inputmode");
    this.view.input.focus();
    this.#append(visitorMessage(text, this.t));
    const answer = new AssistantMessage(this.#hooks());
    this.#append(answer);
    try {
      for await (const { event, data } of this.conversation.send(text)) {
        this.#show(answer, event, data);
        this.view.scrollToEnd();
      }
    } catch (error) {
      answer.node.remove();
      this.#notice(this.#failure(error));
      // The conversation is gone (expired, removed): the next message starts a new one.
      if (error.status === 404) this.conversation.forget();
    } finally {
      this.busy = false;
    }
    // A flow asks for a choice: the first option takes the focus (Tab reaches the rest).
    if (answer.choiceButtons.length) answer.choiceButtons[0].focus();
  }

  #failure(error) {
    if (error.status === 429) return this.t("error_busy");
    return this.conversation.started ? this.t("error_send") : this.t("error_start");
  }

  #show(answer, event, data) {
    if (event === "thinking") answer.addThinking(data.text);
    else if (event === "chunk") answer.appendText(data.text);
    else if (event === "sources") answer.showSources(data.sources);
    else if (event === "action") {
      answer.showAction(data);
      if (data.type === "ask" && INPUT_MODES[data.validation]) {
        this.view.input.setAttribute("inputmode", INPUT_MODES[data.validation]);
      }
    } else if (event === "final") answer.finish(data.language, data.answer);
  }
}
