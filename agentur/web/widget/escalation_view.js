// The escalation menu of a help desk: each option the server offers (only channels that work:
// e-mail, phone, a live chat's web page) with whether it is open now and its opening hours;
// e-mail through a small form, as the desk's address stays on the server.

import { el, safeHref, uniqueId } from "./dom.js";
import { openingLines } from "./opening_hours.js";

function hoursView(option, t, language) {
  if (!option.hours) return el("p", { class: "hours" }, t("always"));
  const lines = openingLines(option.hours, language);
  return el(
    "div",
    { class: "hours" },
    el("p", {}, t("hours", { zone: option.hours.timezone })),
    el("ul", {}, lines.map((line) => el("li", {}, line))),
  );
}

function contactView(option, t) {
  if (option.kind === "phone") {
    const href = safeHref(`tel:${option.contact.replace(/[^+0-9]/g, "")}`);
    return el("a", { href, class: "contact" }, `${t("call")}: ${option.contact}`);
  }
  // A chat is offered by the server only as the web address of a live chat.
  const href = safeHref(option.contact);
  return href && href.startsWith("http")
    ? el("a", { href, target: "_blank", rel: "noopener noreferrer", class: "contact" },
      option.label)
    : null;
}

function emailForm(desk, t, escalate) {
  const formId = uniqueId("email");
  const addressId = uniqueId("address");
  const textId = uniqueId("request");
  // Focusable, so the focus has somewhere to go when the sent form disappears.
  const result = el("p", { class: "result", role: "status", tabindex: "-1" });
  const toggle = el("button", { type: "button", "aria-expanded": "false",
    "aria-controls": formId }, t("email_write"));
  const address = el("input", { id: addressId, type: "email", autocomplete: "email" });
  const request = el("textarea", { id: textId, rows: 3, required: true, maxlength: 10000 });
  const submit = el("button", { type: "submit" }, t("email_send"));
  const form = el(
    "form",
    { id: formId, class: "email-form", hidden: true },
    el("label", { for: addressId }, t("email_address")), address,
    el("label", { for: textId }, t("email_text")), request,
    submit,
  );
  toggle.addEventListener("click", () => {
    const show = form.hidden;
    form.hidden = !show;
    toggle.setAttribute("aria-expanded", String(show));
    if (show) address.focus();
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    submit.disabled = true;
    try {
      const answer = await escalate(desk.id, address.value.trim(), request.value.trim());
      result.textContent = answer.message;
      result.className = answer.delivered ? "result ok" : "result failed";
      if (answer.delivered) {
        form.hidden = true;
        toggle.disabled = true;
        result.focus();
      }
    } catch (error) {
      result.textContent = t("error_email");
      result.className = "result failed";
    } finally {
      submit.disabled = false;
    }
  });
  return [toggle, form, result];
}

export function escalationView(menu, t, language, escalate) {
  const desk = menu.help_desk;
  if (!desk) return null;
  const headingId = uniqueId("desk");
  const options = menu.options.map((option) => {
    const status = option.open_now ? t("open_now") : t("closed_now");
    return el(
      "li",
      { class: `option ${option.kind}` },
      el(
        "p",
        { class: "option-head" },
        el("span", { class: "option-label" }, option.label),
        " ",
        el("span", { class: option.open_now ? "status open" : "status closed" }, status),
      ),
      option.kind === "email" ? emailForm(desk, t, escalate) : contactView(option, t),
      hoursView(option, t, language),
    );
  });
  return el(
    "section",
    { class: "escalation", "aria-labelledby": headingId },
    el("h3", { id: headingId }, t("contact", { desk: desk.name })),
    desk.description ? el("p", { class: "muted" }, desk.description) : null,
    el("ul", { class: "options" }, options),
  );
}
