// A Markdown answer that grows while it streams: the whole text is parsed again (at most once
// per frame) and the page's nodes are patched to match — blocks already shown stay the same
// nodes, a growing paragraph's text node grows — so nothing flickers, a selection in earlier
// blocks survives and a live region announces only what is new.

import { renderMarkdown } from "./render_markdown.js";

const PIPE_ROW = /^\s*\|/;

/** The part of a streaming text that renders the way it will end: a table row still being
 * written, or a header row whose delimiter row has not arrived, is held back (otherwise it
 * flashes as a paragraph of pipes before it becomes a table). */
export function settledSource(text) {
  const lines = text.split("\n");
  if (PIPE_ROW.test(lines[lines.length - 1])) lines[lines.length - 1] = "";
  const complete = lines.slice(0, -1);
  const last = complete.length - 1;
  const headerOnly = last >= 0 && PIPE_ROW.test(complete[last])
    && !(last > 0 && PIPE_ROW.test(complete[last - 1]));
  if (headerOnly) complete.pop();
  return complete.concat(lines[lines.length - 1]).join("\n");
}

function sameShell(a, b) {
  if (a.nodeType !== Node.ELEMENT_NODE || a.nodeName !== b.nodeName) return false;
  if (a.attributes.length !== b.attributes.length) return false;
  for (const { name, value } of a.attributes) if (b.getAttribute(name) !== value) return false;
  return true;
}

// Makes `target`'s children equal `source`'s, moving nodes over from `source` (sanitized)
// only where they differ.
function patch(target, source) {
  const fresh = [...source.childNodes];
  let old = target.firstChild;
  for (const node of fresh) {
    const next = old?.nextSibling ?? null;
    if (!old) {
      target.append(node);
    } else if (old.isEqualNode(node)) {
      // unchanged
    } else if (old.nodeType === Node.TEXT_NODE && node.nodeType === Node.TEXT_NODE) {
      if (node.data.startsWith(old.data)) old.appendData(node.data.slice(old.data.length));
      else old.data = node.data;
    } else if (sameShell(old, node)) {
      patch(old, node);
    } else {
      target.replaceChild(node, old);
    }
    old = next;
  }
  while (old) {
    const next = old.nextSibling;
    old.remove();
    old = next;
  }
}

export class MarkdownView {
  /** `node`: the element the rendered answer lives in (its children are replaced). */
  constructor(node) {
    this.node = node;
    this.text = "";
    this.frame = null;
    this.notBefore = 0;
  }

  /** The text so far; rendered on the next frame (several chunks in one frame: one parse). */
  stream(text) {
    this.text = text;
    this.frame ??= requestAnimationFrame(() => this.#streamFrame());
  }

  // A render costs a few milliseconds for a usual answer but a whole frame for a very long one
  // (bench/markdown_render.py): the next waits three times as long as the last took, so
  // rendering keeps to about a quarter of the main thread however long the answer grows.
  #streamFrame() {
    const start = performance.now();
    if (start < this.notBefore) {
      this.frame = requestAnimationFrame(() => this.#streamFrame());
      return;
    }
    this.frame = null;
    patch(this.node, renderMarkdown(settledSource(this.text)));
    const end = performance.now();
    this.notBefore = end + 3 * (end - start);
  }

  /** The whole text: rendered now, nothing held back. */
  show(text) {
    if (this.frame !== null) cancelAnimationFrame(this.frame);
    this.frame = null;
    this.text = text;
    patch(this.node, renderMarkdown(text));
  }
}
