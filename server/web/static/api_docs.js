// Swagger UI over our own OpenAPI document; the session cookie authorises "Try it out".
window.addEventListener("load", () => {
  SwaggerUIBundle({ url: "/api/v1/openapi.json", dom_id: "#swagger", deepLinking: true });
});
