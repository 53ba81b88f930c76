// Swagger UI over the OpenAPI document the page names (data-definition); the session
// cookie authorises "Try it out", and writes carry the session's CSRF token from the page
// (server/core/web/csrf.py). A file, not an inline script: the pages' CSP allows no inline script.
window.addEventListener("load", () => {
  const root = document.getElementById("swagger");
  const meta = document.querySelector('meta[name="csrf-token"]');
  SwaggerUIBundle({
    url: root.dataset.definition,
    dom_id: "#swagger",
    deepLinking: true,
    requestInterceptor: (req) => {
      if (meta) req.headers["X-CSRF-Token"] = meta.content;
      return req;
    },
  });
});
