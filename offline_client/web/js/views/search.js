// Finding any parcel by its address or number: first in what this tablet holds (a
// superintendent's holds the whole city, an inspector's their blocks and a margin), then,
// with signal, on the server. A parcel found only on the server opens all the same: its
// page says its data is not on the tablet and fetches it.
import * as db from "../db.js";
import { h } from "../dom.js";
import { Offline, call } from "../api.js";

const LIMIT = 20;

/** Parcels on this tablet whose number starts with, or whose site address contains, `query`. */
export async function searchOffline(query) {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const rows = await db.all("features", "layer", "parcels");
  return rows.map((r) => r.feature).filter((f) => {
    const p = f.properties || {};
    return (p.parcel_number || "").toLowerCase().startsWith(q) || (p.site_address || "").toLowerCase().includes(q);
  }).sort((a, b) => (a.properties.site_address || "").localeCompare(b.properties.site_address || "")).slice(0, LIMIT)
    .map((f) => ({ id: f.id, parcel_number: f.properties.parcel_number, site_address: f.properties.site_address, here: true }));
}

function hit(r) {
  return h("li", {},
    h("a", { class: "row-link search-hit", href: `#/parcel/${r.id}`, dataset: { parcel: r.id } },
      h("strong", {}, r.site_address || "(no site address)"), " ",
      h("span", { class: "muted" }, r.parcel_number || ""),
      r.here ? null : h("span", { class: "chip info" }, "not on this tablet")));
}

export function searchForm() {
  const results = h("ul", { class: "plain search-results", id: "search-results", "aria-live": "polite" });
  const input = h("input", { type: "search", id: "field-search", class: "big-input", autocomplete: "off",
    placeholder: "Address or parcel number", enterkeyhint: "search" });
  const form = h("form", { class: "field-search", role: "search", onsubmit: async (event) => {
    event.preventDefault();
    const q = input.value.trim();
    results.replaceChildren();
    if (!q) return;
    const here = await searchOffline(q);
    if (here.length) {
      results.append(...here.map(hit));
      return;
    }
    try {
      const { data } = await call("GET", `/search?q=${encodeURIComponent(q)}&limit=${LIMIT}`);
      const found = data.results.map((r) => ({ ...r, here: false }));
      results.append(...(found.length ? found.map(hit) : [h("li", { class: "muted" }, `No parcel matches \u201c${q}\u201d.`)]));
    } catch (err) {
      results.append(h("li", { class: "muted" }, err instanceof Offline
        ? `No parcel on this tablet matches \u201c${q}\u201d; with signal, the server is searched too.`
        : `The search failed: ${err.message}`));
    }
  } },
  h("label", { for: "field-search" }, "Find a parcel"),
  h("div", { class: "row" }, input, h("button", { type: "submit", class: "btn" }, "Find")));
  return h("div", { class: "search-box", dataset: { keep: "search" } }, form, results);
}
