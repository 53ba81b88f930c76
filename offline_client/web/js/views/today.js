// Today: the inspector's assigned parcels as a list and on a map.
import * as db from "../db.js";
import { dueDate, h, humanize } from "../dom.js";
import { drawMap } from "./map.js";
import { searchForm } from "./search.js";

export async function parcelFeature(id) {
  const row = await db.get("features", `parcels:${id}`);
  return row ? row.feature : null;
}

export async function renderToday(view) {
  const [assignments, templates, inspections, pulledAt] = await Promise.all([
    db.all("assignments"), db.all("templates"), db.all("inspections"), db.kv.get("pulled_at"),
  ]);
  const titles = Object.fromEntries(templates.map((t) => [t.id, t.title]));
  assignments.sort((a, b) => (a.due_on || "9999").localeCompare(b.due_on || "9999") || a.parcel_id - b.parcel_id);
  const state = new Map();
  const list = h("ol", { class: "parcel-list", "aria-label": "Parcels to inspect" });
  for (const a of assignments) {
    const parcel = await parcelFeature(a.parcel_id);
    const p = (parcel && parcel.properties) || {};
    const mine = inspections.filter((i) => i.parcel_id === a.parcel_id && i.template_id === a.template_id);
    const finished = mine.find((i) => i.status !== "draft");
    const draft = mine.find((i) => i.status === "draft");
    state.set(a.parcel_id, finished ? "done" : "assigned");
    const chip = finished
      ? h("span", { class: `chip ${finished.status === "sent" ? "good" : "warn"}` }, finished.status === "sent" ? "Sent" : "Waiting to send")
      : draft ? h("span", { class: "chip info" }, "Draft") : h("span", { class: "chip" }, "To do");
    list.append(h("li", {},
      h("a", { class: "parcel-card", href: `#/parcel/${a.parcel_id}`, dataset: { parcel: a.parcel_id } },
        h("div", { class: "parcel-main" },
          h("strong", { class: "address" }, p.site_address || `Parcel ${a.parcel_id}`),
          h("span", { class: "muted" }, [p.parcel_number, p.owner_name].filter(Boolean).join(" · ")),
          h("span", { class: "template" }, titles[a.template_id] || humanize(a.template_id), a.reason ? ` — ${a.reason}` : "")),
        h("div", { class: "parcel-side" }, chip, a.due_on ? h("span", { class: "due" }, `Due ${dueDate(a.due_on)}`) : null))));
  }
  const empty = !assignments.length
    ? h("div", { class: "empty" },
      h("p", {}, pulledAt ? "No parcels are assigned to you. Find any parcel above." : "Nothing pulled yet."),
      h("button", { class: "btn primary", type: "button", onclick: () => window.lateralField.syncNow() }, "Sync now"))
    : null;
  const mapEl = h("div", { class: "map", id: "map", role: "region", "aria-label": "Map of today's parcels" });
  view.append(h("section", { class: "today" },
    h("div", { class: "today-list", dataset: { keep: "today-list" } },
      h("div", { class: "section-head" },
        h("h1", {}, "Today"),
        h("span", { class: "muted" }, `${assignments.length} parcel${assignments.length === 1 ? "" : "s"}`)),
      pulledAt ? h("p", { class: "muted small" }, `Updated ${new Date(pulledAt).toLocaleString()}`) : null,
      searchForm(),
      empty || list),
    mapEl));
  const drawn = await drawMap(mapEl, state, (id) => { location.hash = `#/parcel/${id}`; });
  // The screen is drawn off the page (main.js): the map fits its parcels once shown.
  return drawn ? drawn.fit : null;
}
