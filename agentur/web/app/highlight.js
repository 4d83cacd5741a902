// Marks the words of a query in a passage: <mark> elements around text nodes, never markup
// from the data. A word matches by its stem-like prefix, so "Rechnungen" also marks
// "Rechnung" (the search itself stems; this only has to look right).

const WORD = /[\p{L}\p{N}]+/gu;
const MIN_TERM = 2;

function prefixes(query) {
  const terms = new Set();
  for (const [word] of query.toLowerCase().matchAll(WORD)) {
    if (word.length < MIN_TERM) continue;
    terms.add(word.length > 5 ? word.slice(0, word.length - 2) : word);
  }
  return [...terms].sort((a, b) => b.length - a.length);
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// A DocumentFragment of `text` with every query word wrapped in <mark>.
export function highlighted(text, query) {
  const fragment = document.createDocumentFragment();
  const terms = prefixes(query);
  if (!terms.length) {
    fragment.append(text);
    return fragment;
  }
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(?:${terms.map(escape).join("|")})[\\p{L}\\p{N}]*`, "giu");
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > last) fragment.append(text.slice(last, match.index));
    const mark = document.createElement("mark");
    mark.textContent = match[0];
    fragment.append(mark);
    last = match.index + match[0].length;
  }
  if (last < text.length) fragment.append(text.slice(last));
  return fragment;
}
