// One parcel: who and where, its history, open violations and notices (kept from the
// last pull), this tablet's inspections of it, and the button to start one.
import * as db from "../db.js";
import { dueDate, h, humanize, isoLocal, shortDate, uuid4 } from "../dom.js";
import { LABELS, save } from "../outbox.js";
import { parcelFeature } from "./today.js";
import { EDITORS, correctionCard, networkOf } from "./corrections.js";

function centroid(feature) {
  // Mean of the outer ring's vertices: a fine fallback position for a house lot.
  const geom = feature && feature.geometry;
  if (!geom) return null;
  const ring = geom.type === "Polygon" ? geom.coordinates[0] : geom.type === "MultiPolygon" ? geom.coordinates[0][0] : null;
  if (!ring || !ring.length) return null;
  const pts = ring.slice(0, -1);
  const lon = pts.reduce((s, c) => s + c[0], 0) / pts.length;
  const lat = pts.reduce((s, c) => s + c[1], 0) / pts.length;
  return { type: "Point", coordinates: [Number(lon.toFixed(7)), Number(lat.toFixed(7))] };
}

export async function startInspection(parcelId, template, assignment) {
  const parcel = await parcelFeature(parcelId);
  const row = {
    uuid: uuid4(), // one per inspection, never reused
    kind: "inspection",
    parcel_id: parcelId,
    template_id: template.id,
    template_version: template.version,
    assignment_id: assignment ? assignment.id : null,
    status: "draft",
    started_at: isoLocal(),
    answers: {},
    location: centroid(parcel),
    location_source: "parcel",
  };
  await save(row);
  location.hash = `#/inspection/${row.uuid}`;
}

function list(title, items, render, emptyText) {
  return h("section", { class: "card" },
    h("h2", {}, title),
    items === null ? h("p", { class: "muted" }, "Not available from this server.")
      : items.length ? h("ul", { class: "plain" }, items.map(render)) : h("p", { class: "muted" }, emptyText));
}

export async function renderParcel(view, parcelId) {
  const [parcel, assignments, templates, details, local, network, user] = await Promise.all([
    parcelFeature(parcelId), db.all("assignments"), db.all("templates"),
    db.kv.get(`parcel:${parcelId}`), db.all("inspections", "parcel_id", parcelId),
    networkOf(parcelId), db.kv.get("user"),
  ]);
  const p = (parcel && parcel.properties) || {};
  const assignment = assignments.find((a) => a.parcel_id === parcelId);
  const byId = Object.fromEntries(templates.map((t) => [t.id, t]));
  const main = assignment && byId[assignment.template_id];
  const others = templates.filter((t) => t !== main).sort((a, b) => a.title.localeCompare(b.title));
  const d = details || {};

  const startButtons = h("div", { class: "start" },
    main ? h("button", { class: "btn primary big", type: "button", dataset: { template: main.id }, onclick: () => startInspection(parcelId, main, assignment) },
      `Start ${main.title.toLowerCase()}`) : null,
    h("details", { class: "other-templates" },
      h("summary", {}, "Another checklist"),
      h("div", { class: "button-grid" }, others.map((t) =>
        h("button", { class: "btn", type: "button", dataset: { template: t.id }, onclick: () => startInspection(parcelId, t, null) }, t.title)))));

  local.sort((a, b) => (b.started_at || "").localeCompare(a.started_at || ""));
  view.append(h("section", { class: "parcel" },
    h("a", { class: "back", href: "#/today" }, "‹ Today"),
    h("header", { class: "parcel-head" },
      h("div", {},
        h("h1", {}, p.site_address || `Parcel ${parcelId}`),
        h("p", { class: "muted" }, [p.parcel_number && `Parcel ${p.parcel_number}`, p.owner_name, humanize(p.user_class)].filter(Boolean).join(" · "))),
      assignment ? h("div", { class: "assignment" },
        h("span", { class: "chip" }, (byId[assignment.template_id] || {}).title || humanize(assignment.template_id)),
        assignment.due_on ? h("span", { class: "due" }, `Due ${dueDate(assignment.due_on)}`) : null,
        assignment.reason ? h("p", { class: "muted" }, assignment.reason) : null) : null),
    startButtons,
    h("div", { class: "parcel-grid" },
      correctionCard(parcelId, network, Boolean(user && EDITORS.includes(user.role))),
      list("On this tablet", local, (i) => h("li", {},
        h("a", { class: "row-link", href: i.status === "draft" ? `#/inspection/${i.uuid}` : "#/outbox" },
          h("span", {}, i.title || (byId[i.template_id] || {}).title || humanize(i.template_id)),
          h("span", { class: `chip ${i.status === "sent" ? "good" : i.status === "draft" ? "info" : "warn"}` }, LABELS[i.status]),
          h("span", { class: "muted" }, shortDate(i.finished_at || i.started_at)))), "No inspections started here yet."),
      list("Open violations", (details ? d.violations : []), (v) => h("li", {},
        h("strong", {}, v.rule_id || "Violation"), " ", h("span", { class: "muted" }, v.section || ""),
        h("div", {}, v.message || "")), "None open."),
      list("History", (details ? d.inspections : []), (i) => h("li", {},
        h("span", {}, humanize(i.template_id)), " ",
        h("span", { class: `chip ${i.result === "fail" ? "bad" : "good"}` }, i.result || ""), " ",
        h("span", { class: "muted" }, shortDate(i.finished_at || i.received_at))), "No earlier inspections."),
      list("Notices", (details ? d.notices : []), (n) => h("li", {},
        h("strong", {}, humanize(n.kind || "notice")), " ", h("span", { class: "muted" }, n.status || ""),
        n.deadline ? h("div", {}, `Deadline ${n.deadline}`) : null), "No notices.")),
    d.fetched_at ? h("p", { class: "muted small" }, `Details from ${new Date(d.fetched_at).toLocaleString()}`) : null));
}
