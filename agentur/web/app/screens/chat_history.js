// History per workflow: the list of the caller's conversations and the messages of one,
// rebuilt as turns; a reply's thinking panel loads its run trace when first opened.
import { h } from "../dom.js";
import { AgentReply, userMessage } from "./chat_turn.js";

const PAGE = 100; // the API's default page of messages; older ones stay on the server

// On a narrow screen the list folds away behind a toggle (styles in chat.css), so the chat
// itself comes first; choosing a conversation folds it again.
export class ConversationList {
  constructor(app, { onSelect, onNew }) {
    this.app = app;
    this.onSelect = (id) => {
      this.fold(true);
      onSelect(id);
    };
    this.list = h("ul", { class: "chat-conversations" });
    this.newButton = h("button", { type: "button", class: "secondary chat-new", onclick: () => {
      this.fold(true);
      onNew();
    } }, app.t("new_conversation"));
    this.toggle = h("button", { type: "button", class: "secondary chat-history-toggle",
      "aria-controls": "chat-history-body", onclick: () => this.fold(!this.folded) },
    app.t("conversations"));
    this.node = h("section", { class: "chat-history", "aria-labelledby": "chat-history-title" },
      h("h2", { id: "chat-history-title" }, app.t("conversations")), this.toggle,
      h("div", { id: "chat-history-body", class: "chat-history-body" }, this.newButton, this.list));
    this.fold(true);
  }

  fold(folded) {
    this.folded = folded;
    this.node.classList.toggle("folded", folded);
    this.toggle.setAttribute("aria-expanded", String(!folded));
  }

  async refresh(selectedId) {
    const workflows = await this.app.api.get("/v1/workflows?limit=50");
    const { t, language, timezone } = this.app;
    const when = new Intl.DateTimeFormat(language, {
      dateStyle: "short", timeStyle: "short", timeZone: timezone,
    });
    this.list.replaceChildren(...workflows.map((workflow) => h("li", {},
      h("button", {
        type: "button",
        class: "chat-conversation",
        "aria-current": workflow.id === selectedId ? "true" : null,
        "data-workflow": workflow.id,
        onclick: () => this.onSelect(workflow.id),
      },
      h("span", { class: "chat-conversation-title" }, workflow.title || t("untitled")),
      h("span", { class: "chat-conversation-date" }, when.format(new Date(workflow.updated_at)))))));
    if (workflows.length === 0) this.list.append(h("li", {}, t("no_conversations")));
  }

  setBusy(busy) {
    for (const button of this.node.querySelectorAll(".chat-history-body button")) {
      button.disabled = busy;
    }
  }
}

async function latestMessages(api, workflowId) {
  const path = `/v1/workflows/${encodeURIComponent(workflowId)}/messages`;
  const first = await api.get(`${path}?limit=${PAGE}`);
  if (first.total <= PAGE) return first.items;
  return (await api.get(`${path}?limit=${PAGE}&offset=${first.total - PAGE}`)).items;
}

function replyFromHistory(app, message) {
  const reply = new AgentReply(app);
  reply.setText(message.content);
  const runId = message.data?.agent_run_id;
  let loaded = false;
  reply.thinking.addEventListener("toggle", async () => {
    if (!reply.thinking.open || loaded || !runId) return;
    loaded = true;
    const waiting = h("li", {}, app.t("loading"));
    reply.steps.append(waiting);
    try {
      const trace = await app.api.get(`/v1/agent/runs/${encodeURIComponent(runId)}`);
      waiting.remove();
      reply.showTrace(trace.entries);
      reply.setStats(trace);
    } catch (error) {
      waiting.textContent = app.t("error", { detail: error.detail || error.message });
    }
  });
  return reply.node;
}

// The workflow's messages as turns: a user message opens a turn, the answers follow it.
export async function historyTurns(app, workflowId) {
  const turns = [];
  for (const message of await latestMessages(app.api, workflowId)) {
    if (message.role === "user" || turns.length === 0) {
      turns.push(h("article", { class: "chat-turn" }));
    }
    const turn = turns[turns.length - 1];
    if (message.role === "user") turn.append(userMessage(app.t, message.content));
    else if (message.role === "assistant") turn.append(replyFromHistory(app, message));
  }
  return turns;
}
