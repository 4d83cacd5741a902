// The API catalog of an assistant: base URL, endpoints, and a write-only credential.
import { h } from "../dom.js";
import {
  field, formatPairs, input, itemList, merged, parseJson, parsePairs, select, textarea, words,
} from "./form_fields.js";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

function endpointEditor(t, endpoint) {
  const name = input(endpoint.name, { required: true, pattern: "[A-Za-z0-9_.\\-]{1,64}" });
  const method = select(endpoint.method ?? "GET", METHODS.map((key) => [key, key]));
  const path = input(endpoint.path, { required: true, spellcheck: "false" });
  const description = input(endpoint.description);
  const query = input((endpoint.query_params ?? []).join(", "));
  const pathParams = textarea(formatPairs(endpoint.path_params), { rows: 2, class: "code" });
  const schema = textarea(endpoint.body_schema ? JSON.stringify(endpoint.body_schema, null, 2) : "",
    { rows: 3, class: "code", spellcheck: "false" });
  return {
    node: [field(t("endpoint_name"), name), field(t("endpoint_method"), method),
      field(t("endpoint_path"), path, t("endpoint_path_hint")),
      field(t("endpoint_description"), description),
      field(t("endpoint_query_params"), query, t("comma_separated")),
      field(t("endpoint_path_params"), pathParams, t("endpoint_path_params_hint")),
      field(t("endpoint_body_schema"), schema, t("endpoint_body_schema_hint"))],
    read: () => merged(endpoint, {
      name: name.value.trim(),
      method: method.value,
      path: path.value.trim(),
      description: description.value.trim(),
      query_params: words(query.value),
      path_params: parsePairs(pathParams.value, (line) => t("pairs_invalid", { line })),
      body_schema: parseJson(schema.value, null,
        (detail) => t("invalid_json", { what: t("endpoint_body_schema"), detail })),
    }),
  };
}

export function catalogEditor(t, catalog) {
  const baseUrl = input(catalog?.base_url, { type: "url", class: "catalog-base-url" });
  const endpoints = itemList({
    legend: t("endpoints"),
    addLabel: t("add_endpoint"),
    removeLabel: t("remove_endpoint"),
    items: catalog?.endpoints,
    build: (endpoint) => endpointEditor(t, endpoint),
  });
  const kind = select(catalog?.credential?.kind ?? "bearer",
    ["bearer", "header", "query"].map((key) => [key, t(`credential_${key}`)]));
  const name = input("Authorization");
  const secret = h("input", { type: "password", autocomplete: "new-password" });
  const stored = catalog?.has_credential ? t("credential_stored") : t("credential_none");
  const node = h("fieldset", { class: "item-group" }, h("legend", {}, t("api_catalog")),
    field(t("base_url"), baseUrl, t("base_url_hint")), endpoints.node,
    field(t("credential_kind"), kind), field(t("credential_name"), name),
    field(t("credential_value"), secret, stored));
  return {
    node,
    // No base URL: no catalog. An empty secret keeps the stored one (it is write-only).
    read: () => (baseUrl.value.trim() ? {
      base_url: baseUrl.value.trim(),
      endpoints: endpoints.read(),
      credential: secret.value
        ? { kind: kind.value, name: name.value.trim(), value: secret.value } : null,
    } : null),
  };
}
