// Markdown answers as DOM, shared by the workspace app and the visitor widget.
//
// markdown-it parses GitHub-flavoured Markdown with raw HTML switched off (markup in the text
// stays text). Its tokens become elements through createElement and text nodes — never an
// HTML string — so nothing here touches an HTML sink: it runs under the app's Trusted Types
// policy `'none'` and on host pages that enforce their own. DOMPurify then checks the built
// tree in place against a short allow-list of tags, attributes and link schemes (a second,
// independent gate), and every link that survives opens in a new tab without an opener.

import markdownit from "./vendor/markdown-it/markdown-it.esm.min.mjs";
import createPurifier from "./vendor/dompurify/purify.es.mjs";

const parser = markdownit({ html: false, linkify: true, breaks: true });
parser.linkify.set({ fuzzyEmail: false }); // "name@host" in prose stays prose

const TAGS = [
  "a", "blockquote", "br", "code", "del", "div", "em", "h1", "h2", "h3", "h4", "h5", "h6",
  "hr", "li", "ol", "p", "pre", "s", "span", "strong", "table", "tbody", "td", "th", "thead",
  "tr", "ul",
];
const ATTRIBUTES = ["href", "target", "rel", "start", "class"];
const SCHEMES = new Set(["http:", "https:", "mailto:", "tel:"]);
// The same rule for DOMPurify's own check of href values.
const SAFE_URI = /^(?:https?:|mailto:|tel:)/i;
// Table cell alignment as classes: the pages' CSP refuses inline style attributes.
const ALIGN = /text-align:\s*(left|center|right)/;

const purifier = createPurifier(window);
purifier.addHook("afterSanitizeAttributes", (node) => {
  if (node.nodeName !== "A") return;
  if (!node.hasAttribute("href")) {
    node.removeAttribute("target");
    return;
  }
  node.setAttribute("target", "_blank");
  node.setAttribute("rel", "noopener noreferrer");
});
const PURIFY = {
  IN_PLACE: true,
  ALLOWED_TAGS: TAGS,
  ALLOWED_ATTR: ATTRIBUTES,
  ALLOW_DATA_ATTR: false,
  ALLOWED_URI_REGEXP: SAFE_URI,
  // No policy: the tree is checked in place, no string is parsed, nothing reaches a sink. (By
  // default DOMPurify would try to create one, which a `trusted-types 'none'` page refuses.)
  TRUSTED_TYPES_POLICY: null,
};

/** An absolute http(s), mailto or tel address, else null (relative, javascript:, data: …). */
export function safeLink(value) {
  try {
    const url = new URL(value);
    return SCHEMES.has(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

function link(href, text = "") {
  const node = document.createElement("a");
  node.href = href;
  node.textContent = text;
  return node;
}

function openElement(token) {
  if (token.type === "link_open") {
    const href = safeLink(token.attrGet("href") || "");
    // A refused link keeps its text, as text.
    return href ? link(href) : document.createElement("span");
  }
  const node = document.createElement(token.tag);
  const start = token.attrGet("start");
  if (token.tag === "ol" && start) node.setAttribute("start", start);
  const align = ALIGN.exec(token.attrGet("style") || "");
  if (align) node.className = `align-${align[1]}`;
  return node;
}

function leaf(token, parent) {
  switch (token.type) {
    case "text":
      parent.append(token.content);
      break;
    case "inline":
      appendTokens(token.children, parent);
      break;
    case "softbreak":
    case "hardbreak":
      parent.append(document.createElement("br"), "\n");
      break;
    case "code_inline": {
      const code = document.createElement("code");
      code.textContent = token.content;
      parent.append(code);
      break;
    }
    case "code_block":
    case "fence": {
      const pre = document.createElement("pre");
      const code = document.createElement("code");
      code.textContent = token.content;
      pre.append(code);
      parent.append(pre);
      break;
    }
    case "hr":
      parent.append(document.createElement("hr"));
      break;
    case "image": {
      // No remote images (they would tell a third party who reads the answer): a link.
      const href = safeLink(token.attrGet("src") || "");
      const text = token.content || href || "";
      parent.append(href ? link(href, text) : text);
      break;
    }
    default:
      // html_block / html_inline cannot occur (html: false); anything else shows as text.
      if (token.content) parent.append(token.content);
  }
}

function appendTokens(tokens, root) {
  const stack = [root];
  for (const token of tokens) {
    const top = stack[stack.length - 1];
    if (token.nesting === 1) {
      // A tight list's paragraphs are hidden: their text goes straight into the <li>.
      const node = token.hidden ? top : openElement(token);
      if (node !== top) top.append(node);
      stack.push(node);
    } else if (token.nesting === -1) {
      stack.pop();
    } else {
      leaf(token, top);
    }
  }
}

/** A detached <div> holding `source` rendered and sanitized. */
export function renderMarkdown(source) {
  const root = document.createElement("div");
  appendTokens(parser.parse(source, {}), root);
  purifier.sanitize(root, PURIFY);
  return root;
}
