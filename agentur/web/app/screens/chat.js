// Agent chat: a streamed run per message (POST /v1/agent/runs as SSE), its thinking panel,
// rounds/cost/tokens, a stop button (DELETE the run) and the history per workflow.
import { h } from "../dom.js";
import { loadStylesheet } from "./load_stylesheet.js";
import { AgentReply, userMessage } from "./chat_turn.js";
import { ConversationList, historyTurns } from "./chat_history.js";
import { texts } from "./chat_texts.js";

export { texts };

const FINAL_STATES = new Set([
  "completed", "cancelled", "failed", "budget_exceeded", "max_rounds_reached",
]);

export async function render(root, app) {
  await loadStylesheet(new URL("./chat.css", import.meta.url));
  const { t } = app;
  const state = { workflowId: null, runId: null, round: 0, disposed: false, connection: null };

  const log = h("section", { class: "chat-log", "aria-label": t("title") });
  const status = h("p", { class: "chat-status", role: "status" });
  const prompt = h("textarea", { id: "chat-prompt", name: "prompt", rows: 3, required: true });
  const send = h("button", { type: "submit", class: "chat-send" }, t("send"));
  const stop = h("button", { type: "button", class: "danger chat-stop", disabled: true }, t("stop"));
  const form = h("form", { class: "chat-form" },
    h("label", { for: "chat-prompt" }, t("prompt_label")), prompt,
    h("div", { class: "chat-actions" }, send, stop));
  const conversations = new ConversationList(app, {
    onSelect: (id) => open(id),
    onNew: () => open(null),
  });
  root.replaceChildren(h("h1", {}, t("title")),
    h("div", { class: "chat-layout" }, conversations.node,
      h("div", { class: "chat-main" }, log, status, form)));

  function showEmpty() {
    log.replaceChildren(h("p", { class: "chat-empty" }, t("empty")));
  }

  function showError(error) {
    status.textContent = t("error", { detail: error.detail || error.message || String(error) });
  }

  async function open(workflowId) {
    state.workflowId = workflowId;
    status.textContent = "";
    try {
      if (workflowId) log.replaceChildren(...await historyTurns(app, workflowId));
      else showEmpty();
      await conversations.refresh(workflowId);
    } catch (error) {
      showError(error);
    }
    prompt.focus();
  }

  function setRunning(running) {
    send.disabled = running;
    prompt.disabled = running;
    stop.disabled = !running;
    conversations.setBusy(running);
  }

  function handle(reply, event, data) {
    // Chunks and tool events carry the model round they belong to.
    if (data?.round > state.round && event !== "final") {
      state.round = data.round;
      status.textContent = t("status_round", { round: data.round });
    }
    switch (event) {
      case "run":
        state.runId = data.run_id;
        state.workflowId = data.workflow_id ?? state.workflowId;
        break;
      case "chunk":
        reply.appendText(data.text);
        break;
      case "tool_call":
        reply.toolCall(data);
        break;
      case "tool_result":
        reply.toolResult(data);
        break;
      case "final":
        reply.setText(data.text);
        if (FINAL_STATES.has(data.status)) status.textContent = t(`status_${data.status}`);
        break;
      case "agent_summary":
        reply.setStats(data);
        break;
      case "error":
        showError({ message: data.message });
        break;
      default:
        break; // status: the status line follows the rounds (above) and the end (final)
    }
  }

  async function run(text) {
    if (log.querySelector(".chat-empty")) log.replaceChildren();
    const reply = new AgentReply(app);
    const turn = h("article", { class: "chat-turn" }, userMessage(t, text), reply.node);
    log.append(turn);
    log.scrollTop = log.scrollHeight;
    setRunning(true);
    state.round = 0;
    status.textContent = t("status_running");
    try {
      const body = { prompt: text, workflow_id: state.workflowId ?? undefined };
      state.connection = new AbortController();
      const events = app.api.stream("/v1/agent/runs", body, { signal: state.connection.signal });
      for await (const { event, data } of events) {
        // Follow the answer as it grows, unless the reader scrolled up to read something.
        const following = log.scrollHeight - log.scrollTop - log.clientHeight < 48;
        handle(reply, event, data);
        if (following) log.scrollTop = log.scrollHeight;
      }
    } catch (error) {
      if (!state.disposed) showError(error);
    } finally {
      state.runId = null;
      state.connection = null;
      if (!state.disposed) {
        setRunning(false);
        prompt.focus();
        conversations.refresh(state.workflowId).catch(showError);
      }
    }
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = prompt.value.trim();
    if (!text || state.connection) return;
    prompt.value = "";
    run(text);
  });
  prompt.addEventListener("keydown", (event) => {
    // Enter sends, Shift+Enter starts a new line (as in most chat apps).
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  stop.addEventListener("click", async () => {
    if (!state.runId) return;
    stop.disabled = true;
    status.textContent = t("status_stopping");
    try {
      await app.api.delete(`/v1/agent/runs/${encodeURIComponent(state.runId)}`);
    } catch (error) {
      if (error.status !== 409) showError(error); // 409: it finished meanwhile
    }
  });

  showEmpty();
  try {
    await conversations.refresh(null);
  } catch (error) {
    showError(error);
  }
  // Leaving the screen closes the stream (the server's agent_cancel_on_disconnect decides
  // whether the run goes on without a listener).
  return () => {
    state.disposed = true;
    state.connection?.abort();
  };
}
