// The app's one door to the API: JSON over fetch, uploads with progress, server-sent events.
// Every request carries the session cookie (same origin), the tab's mandate, the browser's
// time zone and the UI language; every unsafe one also carries the session's CSRF token.

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export class ApiError extends Error {
  constructor(status, title, detail, body = null) {
    super(detail || title || `HTTP ${status}`);
    this.name = "ApiError";
    this.status = status;
    this.title = title || `HTTP ${status}`;
    this.detail = detail || "";
    this.body = body; // the whole problem+json, e.g. for field errors
  }
}

export const timezone = Intl.DateTimeFormat().resolvedOptions().timeZone;

// A problem+json body (or whatever the server sent) as an ApiError.
async function errorFrom(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    // not JSON (a proxy's page, an empty body): status and status text are all we have
  }
  return new ApiError(response.status, body?.title || response.statusText, body?.detail || "", body);
}

// session: { csrfToken(): string|null, mandate(): string|null, language(): string,
//            onUnauthorized(error): void }
export function createApi(session) {
  function headers(method, extra = {}) {
    const result = {
      "X-User-Timezone": timezone,
      "Accept-Language": session.language(),
      ...extra,
    };
    const csrf = session.csrfToken();
    if (UNSAFE.has(method) && csrf) result["X-CSRF-Token"] = csrf;
    // The mandate this tab shows: the session's active one may have been switched in another tab.
    const mandate = session.mandate?.();
    if (mandate) result["X-Mandate"] = mandate;
    return result;
  }

  async function send(method, path, body, extraHeaders = {}, signal = undefined) {
    const init = { method, credentials: "same-origin", signal };
    const hasBody = body !== undefined;
    init.headers = headers(method, {
      Accept: "application/json",
      ...(hasBody ? { "Content-Type": "application/json" } : {}),
      ...extraHeaders,
    });
    if (hasBody) init.body = JSON.stringify(body);
    const response = await fetch(path, init);
    if (!response.ok) {
      const error = await errorFrom(response);
      if (response.status === 401) session.onUnauthorized(error);
      throw error;
    }
    return response;
  }

  async function json(method, path, body) {
    const response = await send(method, path, body);
    if (response.status === 204) return null;
    const type = response.headers.get("Content-Type") || "";
    return type.includes("json") ? response.json() : response.text();
  }

  // POST with Accept: text/event-stream; yields {event, data} (data parsed as JSON when it is).
  // Breaking out of the loop (or aborting options.signal) cancels the request.
  async function* stream(path, body, options = {}) {
    const response = await send("POST", path, body, { Accept: "text/event-stream" }, options.signal);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value.replace(/\r\n?/g, "\n");
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const message = parseEvent(block);
          if (message) yield message;
        }
      }
    } finally {
      reader.cancel().catch(() => {});
    }
  }

  // Multipart upload through XMLHttpRequest: fetch reports no upload progress.
  // onProgress(fraction) gets 0..1 as the bytes leave the browser.
  function upload(path, formData, onProgress = () => {}) {
    return new Promise((resolve, reject) => {
      const request = new XMLHttpRequest();
      request.open("POST", path);
      request.withCredentials = true;
      for (const [name, value] of Object.entries(headers("POST", { Accept: "application/json" }))) {
        request.setRequestHeader(name, value);
      }
      request.upload.addEventListener("progress", (event) => {
        if (event.lengthComputable) onProgress(event.loaded / event.total);
      });
      request.addEventListener("load", () => {
        let body = null;
        try {
          body = JSON.parse(request.responseText);
        } catch {
          body = null;
        }
        if (request.status >= 200 && request.status < 300) {
          onProgress(1);
          resolve(body);
          return;
        }
        const error = new ApiError(request.status, body?.title || request.statusText, body?.detail || "", body);
        if (request.status === 401) session.onUnauthorized(error);
        reject(error);
      });
      request.addEventListener("error", () => reject(new ApiError(0, "Network error", "")));
      request.send(formData);
    });
  }

  // A binary body (file content for a preview) as a Blob.
  async function blob(path) {
    const response = await send("GET", path, undefined, { Accept: "*/*" });
    return response.blob();
  }

  return {
    get: (path) => json("GET", path),
    post: (path, body = {}) => json("POST", path, body),
    put: (path, body = {}) => json("PUT", path, body),
    patch: (path, body = {}) => json("PATCH", path, body),
    delete: (path) => json("DELETE", path),
    upload,
    stream,
    blob,
  };
}

function parseEvent(block) {
  let event = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (!line || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  if (!data.length) return null;
  const text = data.join("\n");
  try {
    return { event, data: JSON.parse(text) };
  } catch {
    return { event, data: text };
  }
}
