// The editor of one flow step: a kind and that kind's fields (say, ask, choice, call_api,
// handoff). Fields the form does not show (e.g. a number validation's bounds) are kept
// as long as the kind stays the same.
import { h } from "../dom.js";
import {
  field, formatPairs, input, merged, orDefault, parseJson, parsePairs, select, textarea,
} from "./form_fields.js";

const KINDS = ["say", "ask", "choice", "call_api", "handoff"];
const VALIDATIONS = ["text", "email", "number", "phone", "regex"];
const VARIABLE = "[a-z_][a-z0-9_]{0,63}";

// "Label = value -> step id" lines; without "=" the label is the value too.
function parseOptions(text) {
  return text.split("\n").map((line) => line.trim()).filter(Boolean).map((line) => {
    const [choice, next] = line.split("->").map((part) => part.trim());
    const at = choice.indexOf("=");
    const label = at < 0 ? choice : choice.slice(0, at).trim();
    const value = at < 0 ? choice : choice.slice(at + 1).trim();
    return { label, value, next_step: next || null };
  });
}

function formatOptions(options) {
  return (options ?? []).map((option) => {
    const choice = option.label === option.value ? option.label : `${option.label} = ${option.value}`;
    return option.next_step ? `${choice} -> ${option.next_step}` : choice;
  }).join("\n");
}

function variableInput(step) {
  return input(step.variable, { required: true, pattern: VARIABLE, spellcheck: "false" });
}

const FIELDS = {
  say: (t, step) => {
    const text = textarea(step.text, { required: true, rows: 2 });
    return { nodes: [field(t("step_text"), text)], read: () => ({ text: text.value.trim() }) };
  },
  ask: (t, step) => {
    const prompt = input(step.prompt, { required: true });
    const variable = variableInput(step);
    const kind = select(step.validation?.kind ?? "text",
      VALIDATIONS.map((key) => [key, t(`validation_${key}`)]));
    const pattern = input(step.validation?.pattern ?? "", { spellcheck: "false" });
    const error = input(step.error_message ?? "");
    return {
      nodes: [field(t("step_prompt"), prompt),
        field(t("step_variable"), variable, t("step_variable_hint")),
        field(t("validation_kind"), kind), field(t("validation_pattern"), pattern),
        field(t("step_error_message"), error, t("default_when_empty"))],
      read: () => ({
        prompt: prompt.value.trim(),
        variable: variable.value.trim(),
        validation: { ...step.validation, kind: kind.value, pattern: pattern.value || null },
        error_message: orDefault(error.value),
      }),
    };
  },
  choice: (t, step) => {
    const prompt = input(step.prompt, { required: true });
    const variable = variableInput(step);
    const options = textarea(formatOptions(step.options), { required: true, rows: 3 });
    return {
      nodes: [field(t("step_prompt"), prompt),
        field(t("step_variable"), variable, t("step_variable_hint")),
        field(t("choice_options"), options, t("choice_options_hint"))],
      read: () => ({
        prompt: prompt.value.trim(),
        variable: variable.value.trim(),
        options: parseOptions(options.value),
      }),
    };
  },
  call_api: (t, step) => {
    const endpoint = input(step.endpoint, { required: true });
    const pathParams = textarea(formatPairs(step.path_params), { rows: 2, class: "code" });
    const query = textarea(formatPairs(step.query), { rows: 2, class: "code" });
    const body = textarea(step.body ? JSON.stringify(step.body, null, 2) : "", { rows: 2, class: "code" });
    const result = input(step.result_variable ?? "result", { pattern: VARIABLE });
    const resultPath = input(step.result_path ?? "");
    const error = input(step.error_message ?? "");
    const pairs = (line) => t("pairs_invalid", { line });
    return {
      nodes: [field(t("api_endpoint"), endpoint, t("api_endpoint_hint")),
        field(t("path_params"), pathParams, t("templates_hint")),
        field(t("query_templates"), query, t("templates_hint")),
        field(t("request_body"), body, t("request_body_hint")),
        field(t("result_variable"), result), field(t("result_path"), resultPath, t("result_path_hint")),
        field(t("step_error_message"), error, t("default_when_empty"))],
      read: () => ({
        endpoint: endpoint.value.trim(),
        path_params: parsePairs(pathParams.value, pairs),
        query: parsePairs(query.value, pairs),
        body: parseJson(body.value, null,
          (detail) => t("invalid_json", { what: t("request_body"), detail })),
        result_variable: orDefault(result.value),
        result_path: resultPath.value.trim() || null,
        error_message: orDefault(error.value),
      }),
    };
  },
  handoff: (t, step) => {
    const desk = input(step.help_desk, { required: true });
    return {
      nodes: [field(t("handoff_desk"), desk, t("handoff_desk_hint"))],
      read: () => ({ help_desk: desk.value.trim() }),
    };
  },
};

export function stepEditor(t, step) {
  const kind = select(step.kind ?? "say", KINDS.map((key) => [key, t(`step_${key}`)]),
    { class: "step-kind" });
  const id = input(step.id, { pattern: "[A-Za-z0-9_\\-]{1,64}", spellcheck: "false" });
  const body = h("div", { class: "step-fields" });
  let fields;
  const show = () => {
    fields = FIELDS[kind.value](t, kind.value === step.kind ? step : {});
    body.replaceChildren(...fields.nodes);
  };
  kind.addEventListener("change", show);
  show();
  return {
    node: [field(t("step_kind"), kind), field(t("step_id"), id, t("step_id_hint")), body],
    read: () => merged(kind.value === step.kind ? step : {}, {
      kind: kind.value,
      id: orDefault(id.value),
      ...fields.read(),
    }),
  };
}
