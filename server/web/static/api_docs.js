// Swagger UI over the OpenAPI document the page names (data-definition); the session
// cookie authorises "Try it out". A file, not an inline script: the pages' CSP allows no inline script.
window.addEventListener("load", () => {
  const root = document.getElementById("swagger");
  SwaggerUIBundle({ url: root.dataset.definition, dom_id: "#swagger", deepLinking: true });
});
