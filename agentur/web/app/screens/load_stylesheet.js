// A screen may bring a stylesheet of its own (CSP `default-src 'self'` allows a same-origin
// <link>; inline styles are not allowed). Loaded once per page; the promise settles when the
// sheet has loaded, so a screen renders styled and the keyboard never reaches a control that
// the sheet hides a moment later.
import { h } from "../dom.js";

const loading = new Map();

export function loadStylesheet(url) {
  const href = new URL(url).pathname;
  if (!loading.has(href)) {
    loading.set(href, new Promise((resolve) => {
      // a sheet that fails to load leaves the screen usable, only plainer
      document.head.append(h("link", { rel: "stylesheet", href, onload: resolve, onerror: resolve }));
    }));
  }
  return loading.get(href);
}
