// Builds DOM nodes without innerHTML: text always goes in as text nodes (no XSS from data).
// h('button', { type: 'button', onclick: fn, class: 'x' }, 'label', otherNode)
export function h(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      node.addEventListener(name.slice(2), value);
    } else if (name === 'value' || name === 'checked' || name === 'selected') {
      node[name] = value; // a property, so a form control shows it
    } else {
      node.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

// Each screen may bring a stylesheet of its own; CSP 'self' allows it (no inline style).
export function loadStylesheet(url) {
  const href = new URL(url).pathname;
  if (document.querySelector(`link[rel="stylesheet"][href="${href}"]`)) return;
  document.head.append(h('link', { rel: 'stylesheet', href }));
}

let counter = 0;
// A fresh element id, so every <label for> finds its own control.
export function uid(prefix) {
  counter += 1;
  return `${prefix}-${counter}`;
}
