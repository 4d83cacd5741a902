// The shell: session start-up, hash router, navigation, mandate switcher, language choice.
// Each screen is a module with `texts` and `render(root, app)` (see screens/*.js).

import { createApi, timezone } from "./api.js";
import { LANGUAGES, language, setLanguage, translator } from "./i18n.js";
import * as assistants from "./screens/assistants.js";
import * as chat from "./screens/chat.js";
import * as files from "./screens/files.js";
import * as search from "./screens/search.js";
import * as signIn from "./screens/sign_in.js";
import * as usage from "./screens/usage.js";
import { createSession } from "./session.js";
import { texts as shellTexts } from "./shell_texts.js";

const SCREENS = { files, chat, search, assistants, usage };
const DEFAULT_ROUTE = "files";

const shellT = translator(shellTexts);
const session = createSession();
const api = createApi({
  csrfToken: () => session.csrfToken(),
  mandate: () => session.mandate()?.id ?? null,
  language,
  // The session ended on the server (signed out elsewhere, expired, key revoked).
  onUnauthorized: () => {
    if (session.signedIn) {
      session.forget();
      show();
    }
  },
});

const element = (id) => document.getElementById(id);
let cleanup = null;
let addingKey = false;

function announce(message) {
  const status = element("status");
  status.textContent = "";
  // a fresh text node after clearing, so screen readers announce a repeated message too
  requestAnimationFrame(() => {
    status.textContent = message;
  });
}

function route() {
  const name = location.hash.replace(/^#\/?/, "").split(/[/?]/)[0];
  return name || DEFAULT_ROUTE;
}

// Parameters after the route: `#/search?q=offer` gives q=offer.
function routeParams() {
  const query = location.hash.indexOf("?");
  return new URLSearchParams(query < 0 ? "" : location.hash.slice(query + 1));
}

function screenApp(module) {
  return {
    params: routeParams(),
    api,
    t: translator(module.texts || {}),
    language: language(),
    timezone,
    mandate: session.mandate(),
    announce,
    navigate: (hash) => {
      location.hash = hash;
    },
  };
}

function paintChrome() {
  document.documentElement.lang = language();
  document.title = "agentur";
  element("skip-link").textContent = shellT("skip");
  element("language-label").textContent = shellT("language");
  element("language-select").value = language();
  element("mandate-label").textContent = shellT("mandate");
  element("add-key").textContent = shellT("add_key");
  element("sign-out").textContent = shellT("sign_out");
  const nav = element("app-nav");
  nav.setAttribute("aria-label", shellT("nav"));
  const current = route();
  for (const link of nav.querySelectorAll("a[data-route]")) {
    link.textContent = shellT(link.dataset.route);
    if (link.dataset.route === current && session.signedIn && !addingKey) {
      link.setAttribute("aria-current", "page");
    } else {
      link.removeAttribute("aria-current");
    }
  }
  const signedIn = session.signedIn;
  nav.hidden = !signedIn;
  element("sign-out").hidden = !signedIn;
  element("mandate-form").hidden = !signedIn;
  const select = element("mandate-select");
  select.replaceChildren(
    ...session.mandates().map((item) => new Option(item.name, item.mandate_id)),
  );
  if (session.mandate()) select.value = session.mandate().id;
}

let shown = 0; // counts show() calls: a slow render that a newer one overtook is dropped

function endScreen() {
  if (!cleanup) return;
  try {
    cleanup();
  } catch (error) {
    console.error(error);
  }
  cleanup = null;
}

function chooseScreen() {
  if (!session.signedIn || addingKey) return signIn;
  return SCREENS[route()] || null;
}

async function show({ focus = false } = {}) {
  const generation = ++shown;
  endScreen();
  paintChrome();
  const main = element("main");
  // each render gets its own container: a render still awaiting the API when the user moves
  // on writes into a detached node, never into the next screen
  const view = document.createElement("div");
  main.replaceChildren(view);
  const module = chooseScreen();
  if (!module) {
    const message = document.createElement("h1");
    message.textContent = shellT("not_found");
    view.append(message);
    return;
  }
  const app = screenApp(module);
  if (module === signIn) {
    app.adding = addingKey;
    app.signIn = async (apiKey) => {
      await (addingKey ? session.addKey(api, apiKey) : session.signIn(api, apiKey));
      addingKey = false;
      await show({ focus: true });
    };
    app.cancel = addingKey
      ? async () => {
          addingKey = false;
          await show({ focus: true });
        }
      : null;
  }
  let result = null;
  try {
    result = await module.render(view, app);
  } catch (error) {
    const message = document.createElement("p");
    message.className = "error";
    message.setAttribute("role", "alert");
    message.textContent = shellT("load_failed", { detail: error.detail || error.message });
    view.append(message);
  }
  const ownCleanup = typeof result === "function" ? result : null;
  if (generation !== shown) {
    if (ownCleanup) ownCleanup(); // overtaken: stop its timers now
    return;
  }
  cleanup = ownCleanup;
  document.title = `${view.querySelector("h1")?.textContent || ""} – agentur`.replace(/^ – /, "");
  if (focus) main.focus();
}

// An action of the header (switch, sign out) that failed: say so, keep the screen.
async function attempt(action) {
  try {
    await action();
  } catch (error) {
    announce(shellT("load_failed", { detail: error.detail || error.message }));
  }
}

function wire() {
  const languageSelect = element("language-select");
  for (const option of languageSelect.options) option.disabled = !LANGUAGES.includes(option.value);
  languageSelect.addEventListener("change", () => {
    setLanguage(languageSelect.value);
    show();
  });
  element("mandate-select").addEventListener("change", (event) =>
    attempt(async () => {
      await session.switchMandate(api, event.target.value);
      announce(shellT("switched", { name: session.mandate()?.name || "" }));
      await show();
    }),
  );
  element("mandate-form").addEventListener("submit", (event) => event.preventDefault());
  element("add-key").addEventListener("click", () => {
    addingKey = true;
    show({ focus: true });
  });
  element("sign-out").addEventListener("click", () =>
    attempt(async () => {
      try {
        await session.signOut(api);
      } finally {
        announce(shellT("signed_out"));
        await show({ focus: true });
      }
    }),
  );
  // The hash is the router's: following the skip link's `#main` would leave the screen for
  // "not found". It moves the focus only.
  element("skip-link").addEventListener("click", (event) => {
    event.preventDefault();
    element("main").focus();
  });
  window.addEventListener("hashchange", () => show({ focus: true }));
}

async function start() {
  wire();
  paintChrome();
  try {
    await session.restore(api);
  } catch (error) {
    // the server is there but the session check failed: sign in afresh
    console.error(error);
  }
  await show();
}

start();
