// Labelled form controls and repeatable item lists for the editors (no data in innerHTML).
import { h } from "../dom.js";

// A user mistake found before anything is sent; the form shows its message in its alert.
export class FormError extends Error {}

let counter = 0;
// A fresh element id, so every <label for> finds its own control.
export function uid(prefix) {
  counter += 1;
  return `${prefix}-${counter}`;
}

export const lines = (text) => text.split("\n").map((line) => line.trim()).filter(Boolean);
export const words = (text) => text.split(/[,\n]/).map((word) => word.trim()).filter(Boolean);

export function input(value = "", attributes = {}) {
  return h("input", { type: "text", value: value ?? "", ...attributes });
}

export function textarea(value = "", attributes = {}) {
  const node = h("textarea", { rows: 3, ...attributes });
  node.value = value ?? ""; // a textarea's text is its property, not an attribute
  return node;
}

export function select(value, options, attributes = {}) {
  return h("select", attributes,
    options.map(([key, label]) => h("option", { value: key, selected: key === value }, label)));
}

// <label> + control (+ a hint the control is described by).
export function field(label, control, hint) {
  control.id ||= uid("field");
  const hintNode = hint ? h("small", { id: uid("hint"), class: "muted" }, hint) : null;
  if (hintNode) control.setAttribute("aria-describedby", hintNode.id);
  return h("div", { class: "field" }, h("label", { for: control.id }, label), control, hintNode);
}

// A fieldset of items with "add" and per-item "remove"; `build(item)` returns {node, read}.
export function itemList({ legend, addLabel, removeLabel, items, build, className }) {
  const entries = [];
  const list = h("ol", { class: "item-list" });
  const add = (item) => {
    const editor = build(item);
    const entry = { editor };
    entry.node = h("li", { class: "item" }, editor.node,
      h("button", {
        type: "button",
        class: "secondary item-remove",
        onclick: () => {
          entries.splice(entries.indexOf(entry), 1);
          entry.node.remove();
        },
      }, removeLabel));
    entries.push(entry);
    list.append(entry.node);
    return entry;
  };
  for (const item of items ?? []) add(item);
  const addButton = h("button", {
    type: "button",
    class: "secondary item-add",
    onclick: () => add({}).node.querySelector("input, textarea, select")?.focus(),
  }, addLabel);
  const node = h("fieldset", { class: `item-group ${className ?? ""}` },
    h("legend", {}, legend), list, addButton);
  return { node, read: () => entries.map((entry) => entry.editor.read()) };
}

export function parseJson(text, fallback, describe) {
  if (!text.trim()) return fallback;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new FormError(describe(error.message));
  }
}

// "name=value" lines to an object and back (path parameters, query templates).
export function parsePairs(text, describe) {
  const pairs = {};
  for (const line of lines(text)) {
    const at = line.indexOf("=");
    if (at <= 0) throw new FormError(describe(line));
    pairs[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return pairs;
}

export function formatPairs(pairs) {
  return Object.entries(pairs ?? {}).map(([name, value]) => `${name}=${value}`).join("\n");
}

// The item as loaded with the form's values over it, so fields the form does not show (or a
// newer server added) survive an edit; a value of undefined drops the field (server default).
export function merged(original, values) {
  const item = { ...original, ...values };
  for (const [name, value] of Object.entries(values)) if (value === undefined) delete item[name];
  return item;
}

// Optional text: empty is undefined, which `merged` leaves out.
export const orDefault = (text) => text.trim() || undefined;
