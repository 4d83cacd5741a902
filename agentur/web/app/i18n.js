// UI language: the browser's first de/fr/it/en preference, switchable and remembered.

export const LANGUAGES = ["de", "fr", "it", "en"];
const FALLBACK = "en";
const STORAGE_KEY = "agentur.language";

function browserLanguage() {
  for (const tag of navigator.languages || [navigator.language || FALLBACK]) {
    const base = tag.toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return FALLBACK;
}

// localStorage throws where the browser blocks storage; the choice then lasts for the page
function stored() {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

function remember(choice) {
  try {
    localStorage.setItem(STORAGE_KEY, choice);
  } catch {
    // not remembered; still applied
  }
}

let current = LANGUAGES.includes(stored()) ? stored() : browserLanguage();

export function language() {
  return current;
}

export function setLanguage(choice) {
  if (!LANGUAGES.includes(choice)) return;
  current = choice;
  remember(choice);
  document.documentElement.lang = choice;
}

// A t(key, vars) over one module's texts: the current language, English when a key is missing,
// the key itself when both lack it (visible in the UI, so a missing text is noticed).
// `{name}` in a text is replaced by vars.name.
export function translator(texts) {
  return (key, vars = {}) => {
    const text = texts[current]?.[key] ?? texts[FALLBACK]?.[key] ?? key;
    return text.replace(/\{(\w+)\}/g, (match, name) => (name in vars ? String(vars[name]) : match));
  };
}
