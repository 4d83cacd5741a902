// The visitor's conversation with the assistant over HTTP. The conversation's id and secret
// token are kept per browser tab (sessionStorage), so a reload continues it and another tab
// starts its own; the token goes back as X-Conversation-Token with the publishable key.

import { readEvents } from "./read_events.js";

export class RequestFailed extends Error {
  constructor(status, detail) {
    super(detail || `HTTP ${status}`);
    this.status = status;
  }
}

export class Conversation {
  constructor(config, language) {
    this.key = config.key;
    this.language = language;
    this.base = new URL(
      `v1/assistants/${encodeURIComponent(config.assistant)}/conversations`,
      config.server,
    ).href;
    this.storageKey = `agentur-widget:${config.assistant}`;
    this.current = this.#load();
  }

  get started() {
    return this.current !== null;
  }

  #load() {
    try {
      const stored = JSON.parse(sessionStorage.getItem(this.storageKey) || "null");
      return stored && stored.id && stored.token ? stored : null;
    } catch {
      return null; // storage disabled (privacy settings, sandboxed frame): no continuation
    }
  }

  #store(value) {
    this.current = value;
    try {
      if (value) sessionStorage.setItem(this.storageKey, JSON.stringify(value));
      else sessionStorage.removeItem(this.storageKey);
    } catch {
      /* the conversation still works for this page view */
    }
  }

  forget() {
    this.#store(null);
  }

  #headers(extra = {}) {
    const headers = {
      Authorization: `Bearer ${this.key}`,
      "Accept-Language": this.language,
      "X-User-Timezone": Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC",
      ...extra,
    };
    if (this.current) headers["X-Conversation-Token"] = this.current.token;
    return headers;
  }

  async #fetch(path, options = {}, answers = [200, 201]) {
    const response = await fetch(this.base + path, {
      credentials: "omit", // a visitor's cookies have no business here
      ...options,
      headers: this.#headers(options.headers),
    });
    if (!answers.includes(response.status)) {
      let detail = "";
      try {
        detail = (await response.json()).detail;
      } catch {
        /* not problem+json */
      }
      throw new RequestFailed(response.status, detail);
    }
    return response;
  }

  async start() {
    const response = await this.#fetch("", { method: "POST" });
    const started = await response.json();
    this.#store({ id: started.id, token: started.token });
  }

  async history() {
    const response = await this.#fetch(`/${this.current.id}/messages`);
    return response.json();
  }

  /** The turn's events as they stream in: thinking, chunk, sources, action, final. */
  async *send(text) {
    if (!this.started) await this.start();
    const response = await this.#fetch(`/${this.current.id}/messages`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify({ text }),
    });
    if (!(response.headers.get("content-type") || "").startsWith("text/event-stream")) {
      throw new RequestFailed(response.status, "the server did not stream the answer");
    }
    yield* readEvents(response);
  }

  /** {delivered, message, alternatives}: a 503 (e-mail not configured) is an answer too. */
  async escalate(helpDesk, email, text) {
    const response = await this.#fetch(`/${this.current.id}/escalations`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ help_desk: helpDesk, email: email || null, text }),
    }, [200, 503]);
    return response.json();
  }
}
