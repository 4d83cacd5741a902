// Builds DOM nodes from data with textContent only: nothing a server or visitor sends is ever
// parsed as HTML.

export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

let counter = 0;

/** A document-unique id for aria-labelledby and label/for pairs. */
export function uniqueId(prefix) {
  counter += 1;
  return `agentur-${prefix}-${counter}`;
}

/** Only http(s) and tel/mailto targets become links; anything else stays text. */
export function safeHref(value) {
  try {
    const url = new URL(value);
    return ["http:", "https:", "tel:", "mailto:"].includes(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}
