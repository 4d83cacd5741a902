// Editors of an assistant's FAQs, flows and help desks; each returns {node, read}.
// An item keeps its id, so a FAQ or desk that flows refer to stays the same item.
import {
  FormError, field, input, itemList, lines, merged, orDefault, select, textarea, words,
} from "./form_fields.js";
import { stepEditor } from "./flow_steps.js";

const DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
const DAY_LINE = new RegExp(`^(${DAYS.join("|")})(?:\\s*-\\s*(${DAYS.join("|")}))?\\s*:?\\s+(.+)$`, "i");

// The languages an assistant may speak (the definition's `Language`).
export const LANGUAGES = ["en", "de", "fr", "it", "es"];

const languageOptions = (t) => LANGUAGES.map((code) => [code, t(`language_${code}`)]);

// One translation of a FAQ: {language, question (optional), answer}.
function translationEditor(t, translation) {
  const language = select(translation.language ?? "en", languageOptions(t));
  const question = input(translation.question ?? "", { maxlength: 1000 });
  const answer = textarea(translation.answer ?? "", { required: true, rows: 3 });
  return {
    node: [field(t("translation_language"), language),
      field(t("translation_question"), question, t("translation_question_hint")),
      field(t("translation_answer"), answer)],
    read: () => ({
      language: language.value,
      question: orDefault(question.value),
      answer: answer.value.trim(),
    }),
  };
}

export function faqEditor(t, faq) {
  const question = input(faq.question, { required: true, maxlength: 1000, class: "faq-question" });
  const answer = textarea(faq.answer, { required: true, rows: 4, class: "faq-answer" });
  const variants = textarea((faq.variants ?? []).join("\n"), { rows: 2 });
  const keywords = input((faq.keywords ?? []).join(", "));
  const url = input(faq.url ?? "", { type: "url" });
  const language = select(faq.language ?? "",
    [["", t("faq_language_default")], ...languageOptions(t)]);
  const translations = itemList({
    legend: t("translations"), addLabel: t("add_translation"),
    removeLabel: t("remove_translation"), className: "faq-translations",
    items: Object.entries(faq.translations ?? {})
      .map(([code, item]) => ({ ...item, language: code })),
    build: (item) => translationEditor(t, item),
  });
  return {
    node: [field(t("faq_question"), question), field(t("faq_answer"), answer),
      field(t("faq_language"), language, t("faq_language_hint")),
      field(t("faq_variants"), variants, t("one_per_line")),
      field(t("keywords"), keywords, t("comma_separated")),
      field(t("faq_url"), url, t("faq_url_hint")), translations.node],
    read: () => {
      const texts = {};
      for (const { language: code, ...text } of translations.read()) {
        if (code in texts) {
          throw new FormError(t("translation_twice", { language: t(`language_${code}`) }));
        }
        texts[code] = text;
      }
      return merged(faq, {
        question: question.value.trim(),
        answer: answer.value.trim(),
        variants: lines(variants.value),
        keywords: words(keywords.value),
        // A server without FAQ links refuses the field, so an empty one is left out.
        url: orDefault(url.value),
        language: language.value || undefined,
        translations: texts,
      });
    },
  };
}

export function flowEditor(t, flow) {
  const name = input(flow.name, { required: true, maxlength: 200 });
  const triggers = textarea((flow.trigger_examples ?? []).join("\n"), { rows: 2 });
  const keywords = input((flow.keywords ?? []).join(", "));
  const steps = itemList({
    legend: t("flow_steps"),
    addLabel: t("add_step"),
    removeLabel: t("remove_step"),
    items: flow.steps ?? [{ kind: "say" }],
    build: (step) => stepEditor(t, step),
    className: "flow-steps",
  });
  return {
    node: [field(t("flow_name"), name), field(t("flow_triggers"), triggers, t("one_per_line")),
      field(t("keywords"), keywords, t("comma_separated")), steps.node],
    read: () => merged(flow, {
      name: name.value.trim(),
      trigger_examples: lines(triggers.value),
      keywords: words(keywords.value),
      steps: steps.read(),
    }),
  };
}

// "mon-fri 08:00-12:00 13:00-17:00", one line per day or day range, to OpeningHours.days.
export function parseHours(t, text) {
  const days = {};
  for (const line of lines(text)) {
    const match = line.match(DAY_LINE);
    if (!match) throw new FormError(t("hours_invalid", { line }));
    const first = DAYS.indexOf(match[1].toLowerCase());
    const last = match[2] ? DAYS.indexOf(match[2].toLowerCase()) : first;
    const ranges = match[3].split(/[\s,;]+/).filter(Boolean);
    for (let day = first; day <= last; day += 1) days[DAYS[day]] = ranges;
  }
  return days;
}

// The stored days back as text, consecutive days with the same ranges as one "mon-fri" line.
function formatHours(hours) {
  const days = hours?.days ?? {};
  const out = [];
  for (let day = 0; day < DAYS.length; day += 1) {
    const ranges = days[DAYS[day]]?.join(" ");
    if (!ranges) continue;
    let last = day;
    while (last + 1 < DAYS.length && days[DAYS[last + 1]]?.join(" ") === ranges) last += 1;
    out.push(`${DAYS[day]}${last > day ? `-${DAYS[last]}` : ""} ${ranges}`);
    day = last;
  }
  return out.join("\n");
}

function escalationEditor(t, zone, option) {
  const kind = select(option.kind ?? "email",
    ["email", "phone", "chat"].map((key) => [key, t(`kind_${key}`)]));
  const label = input(option.label);
  const address = input(option.address, { required: true });
  const timezone = input(option.hours?.timezone ?? zone);
  const hours = textarea(formatHours(option.hours), { rows: 3, class: "code" });
  return {
    node: [field(t("option_kind"), kind), field(t("option_label"), label),
      field(t("option_address"), address, t("option_address_hint")),
      field(t("option_hours"), hours, t("hours_hint")),
      field(t("option_timezone"), timezone)],
    read: () => {
      const days = parseHours(t, hours.value);
      return merged(option, {
        kind: kind.value,
        label: label.value.trim(),
        address: address.value.trim(),
        hours: Object.keys(days).length ? { timezone: timezone.value.trim(), days } : null,
      });
    },
  };
}

export function helpDeskEditor(t, zone, desk) {
  const name = input(desk.name, { required: true, maxlength: 200 });
  const description = textarea(desk.description, { rows: 2 });
  const options = itemList({
    legend: t("options"),
    addLabel: t("add_option"),
    removeLabel: t("remove_option"),
    items: desk.options ?? [{}],
    build: (option) => escalationEditor(t, zone, option),
  });
  return {
    node: [field(t("desk_name"), name), field(t("desk_description"), description), options.node],
    read: () => merged(desk, {
      name: name.value.trim(),
      description: description.value.trim(),
      options: options.read(),
    }),
  };
}
