// Swagger UI over this server's OpenAPI document. A file of its own rather than an inline
// script, so the page's Content-Security-Policy allows scripts from this origin only.
"use strict";
window.ui = SwaggerUIBundle({
  url: new URL("openapi.json", document.baseURI).href,
  dom_id: "#swagger-ui",
  layout: "BaseLayout",
  deepLinking: true,
  showExtensions: true,
  showCommonExtensions: true,
  // No badge from validator.swagger.io: the page never reaches beyond this server.
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
});
