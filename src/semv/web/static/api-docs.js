// Starts Swagger UI on /docs (semv.web._docs): a file, not an inline script, so the page runs
// under the server's Content-Security-Policy (script-src 'self').
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
