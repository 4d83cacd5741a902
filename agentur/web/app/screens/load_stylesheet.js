// A screen may bring a stylesheet of its own (CSP `default-src 'self'` allows a same-origin
// <link>; inline styles are not allowed). Loaded once per page.
import { h } from "../dom.js";

export function loadStylesheet(url) {
  const href = new URL(url).pathname;
  if (document.querySelector(`link[rel="stylesheet"][href="${href}"]`)) return;
  document.head.append(h("link", { rel: "stylesheet", href }));
}
