// The pre-flight's confidence thresholds: above one, the decision acts (in routing mode)
// or would act (shadow mode). Tuned by reading the decision log below the form.
import { h } from "../dom.js";
import { field, input, merged } from "./form_fields.js";

const QUESTIONS = [
  "flow", "faq", "person_request", "help_desk", "reasoning_level", "frustration_level", "language",
];

export function thresholdsEditor(t, thresholds = {}) {
  const inputs = QUESTIONS.map((name) => [name, input(thresholds[name] ?? "", {
    type: "number", min: 0, max: 1, step: 0.05, inputmode: "decimal",
  })]);
  const node = h("fieldset", { class: "item-group thresholds" },
    h("legend", {}, t("thresholds")), h("p", { class: "muted" }, t("thresholds_hint")),
    inputs.map(([name, control]) => field(t(`threshold_${name}`), control)));
  return {
    node,
    // An empty field is left out: the server's default threshold applies.
    read: () => merged(thresholds, Object.fromEntries(inputs.map(([name, control]) => [
      name, control.value === "" ? undefined : Number(control.value),
    ]))),
  };
}
