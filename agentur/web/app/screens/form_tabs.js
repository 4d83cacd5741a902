// A long form in sections, one shown at a time (the WAI-ARIA tabs pattern): the tabs are
// buttons with aria-selected, arrow keys, Home and End move between them. All sections stay
// in the form, so it is read and saved whole; a control the browser finds invalid on submit
// brings its section forward so the browser can show what is wrong.
import { h } from "../dom.js";
import { uid } from "./form_fields.js";

// sections: [{label, nodes}]; returns the node holding the tab list and the panels.
export function formTabs(form, sections, label) {
  const tabs = [];
  const panels = [];
  for (const section of sections) {
    const tabId = uid("tab");
    const panelId = uid("panel");
    tabs.push(h("button", { type: "button", role: "tab", id: tabId, "aria-controls": panelId,
      class: "form-tab" }, section.label));
    panels.push(h("div", { role: "tabpanel", id: panelId, "aria-labelledby": tabId,
      class: "form-panel" }, section.nodes));
  }

  function select(index, focus = false) {
    tabs.forEach((tab, at) => {
      const chosen = at === index;
      tab.setAttribute("aria-selected", String(chosen));
      tab.tabIndex = chosen ? 0 : -1; // one tab stop for the list; arrows move inside
      panels[at].hidden = !chosen;
    });
    if (focus) tabs[index].focus();
  }

  tabs.forEach((tab, index) => {
    tab.addEventListener("click", () => select(index));
    tab.addEventListener("keydown", (event) => {
      const last = tabs.length - 1;
      const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: last }[event.key];
      if (next === undefined) return;
      event.preventDefault();
      select((next + tabs.length) % tabs.length, true);
    });
  });
  form.addEventListener("invalid", (event) => {
    const at = panels.findIndex((panel) => panel.contains(event.target));
    if (at >= 0 && panels[at].hidden) select(at);
  }, true);
  select(0);
  return h("div", { class: "form-tabs" },
    h("div", { role: "tablist", "aria-label": label, class: "form-tablist" }, tabs), panels);
}
