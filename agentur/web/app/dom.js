// Building DOM without innerHTML: text always goes in as text nodes, never as markup.

// h("button", {type: "button", onclick: fn, class: "x"}, "label", childNode, ...)
export function h(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      node.addEventListener(name.slice(2), value);
    } else if (name === "class") {
      node.className = value;
    } else if (name in node && typeof value !== "string") {
      node[name] = value;
    } else {
      node.setAttribute(name, value === true ? "" : value);
    }
  }
  append(node, children);
  return node;
}

// node.replaceChildren(...children), skipping null/false like h() (the DOM's own would show
// them as the text "null"/"false").
export function replace(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

// An alert line for an ApiError (its detail says what to fix) or any other error.
export function errorMessage(error) {
  return h("p", { class: "error", role: "alert" }, error.detail || error.message || String(error));
}

// A table in a region of its own that scrolls sideways when the screen is narrower than the
// table (the page itself never does); focusable, so the keyboard can scroll it too.
export function scrollable(label, table) {
  return h("div", { class: "table-scroll", role: "region", "aria-label": label, tabindex: "0" },
    table);
}
