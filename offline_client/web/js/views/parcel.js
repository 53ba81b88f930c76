// One parcel: who and where, its history, open violations and notices (kept from the
// last pull), this tablet's inspections of it, and the button to start one.
import * as db from "../db.js";
import { dueDate, h, humanize, isoLocal, shortDate, uuid4 } from "../dom.js";
import { LABELS, save } from "../outbox.js";
import { parcelFeature } from "./today.js";
import { correctionCard, mayCorrect, networkOf } from "./corrections.js";
import { Offline, call } from "../api.js";

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

/**
 * Answers the assignment already knows: a reinspection's notice and the rule it cites
 * (the first of the notice's rules the checklist offers), so nobody types them.
 */
export function prefilled(template, assignment) {
  const notice = assignment && assignment.notice;
  if (!notice) return {};
  const answers = {};
  const ruleItems = new Set(template.items.filter((i) => i.rule_from).map((i) => i.rule_from));
  for (const item of template.items) {
    if (ruleItems.has(item.id) && item.type === "choice") {
      const rule = (notice.rules || []).find((r) => item.options.includes(r));
      if (rule) answers[item.id] = rule;
    } else if (item.id === "notice_reference" && item.type === "text") {
      answers[item.id] = notice.article_number ? `Notice ${notice.id} (article ${notice.article_number})` : `Notice ${notice.id}`;
    }
  }
  return answers;
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
    answers: prefilled(template, assignment),
    notice: (assignment && assignment.notice) || null,
    location: centroid(parcel),
    location_source: "parcel",
  };
  await save(row);
  location.hash = `#/inspection/${row.uuid}`;
}

/**
 * A parcel whose details (violations, history, notices) are not on this tablet: it says
 * so, and with signal fetches them (GET /api/v1/survey/parcels/<id>) and draws the page
 * again with them. Never "none" for what the tablet simply does not know.
 */
function notHere(view, parcelId, featureHere) {
  const said = h("p", {}, featureHere
    ? "This parcel's violations, history and notices are not on this tablet (it is not assigned to you)."
    : "This parcel is not on this tablet.");
  const button = h("button", { type: "button", class: "btn primary", id: "fetch-parcel", onclick: async () => {
    button.disabled = true;
    try {
      const { data } = await call("GET", `/survey/parcels/${parcelId}`);
      await db.kv.set(`parcel:${parcelId}`, {
        parcel: { parcel_number: data.parcel_number, site_address: data.site_address, owner_name: data.owner_name,
          user_class: data.user_class },
        violations: data.violations.filter((v) => v.status === "open").map((v) => ({ ...v, rule_title: v.rule_id })),
        inspections: data.inspections.map((i) => ({ template_id: i.template_title, result: i.result, finished_at: i.finished_at })),
        notices: data.notices.map((n) => ({ id: n.id, title: n.kind, state: n.state, deadline: n.deadline })),
        fetched_at: new Date().toISOString(),
        fetched_online: true,
      });
      view.replaceChildren();
      await renderParcel(view, parcelId);
    } catch (err) {
      button.disabled = false;
      said.after(h("p", { class: "muted" }, err instanceof Offline ? "No signal: try again with signal." : err.message));
    }
  } }, "Fetch it from the server");
  return h("section", { class: "card not-here", id: "not-here" }, h("h2", {}, "Not on this tablet"), said, button);
}

function list(title, items, render, emptyText, id) {
  return h("section", { class: "card", id },
    h("h2", {}, title),
    items === null ? h("p", { class: "muted" }, "Not on this tablet.")
      : items.length ? h("ul", { class: "plain" }, items.map(render)) : h("p", { class: "muted" }, emptyText));
}

/** "Fail · 1 violation opened": what the server made of a sent inspection. */
export function resultChip(result) {
  if (!result) return null;
  return h("span", { class: `chip ${result.result === "fail" ? "bad" : "good"}`, dataset: { result: result.result } },
    result.result === "fail" ? "Fail" : "Pass");
}

function violationLine(v) {
  return h("li", { dataset: { violation: v.id } },
    h("strong", {}, v.rule_title || v.rule_id || "Violation"), " ", h("span", { class: "muted" }, v.section || ""),
    h("div", {}, v.message || ""));
}

export async function renderParcel(view, parcelId) {
  const [parcel, assignments, templates, details, local, network, user, results] = await Promise.all([
    parcelFeature(parcelId), db.all("assignments"), db.all("templates"),
    db.kv.get(`parcel:${parcelId}`), db.all("inspections", "parcel_id", parcelId),
    networkOf(parcelId), db.kv.get("user"), db.kv.get("results"),
  ]);
  const editable = new Set();
  for (const layer of ["laterals", "taps"]) if (await mayCorrect(user && user.role, layer)) editable.add(layer);
  const d = details || {};
  const p = (parcel && parcel.properties) || d.parcel || {};
  const byUuid = results || {};
  const assignment = assignments.find((a) => a.parcel_id === parcelId);
  const byId = Object.fromEntries(templates.map((t) => [t.id, t]));
  local.sort((a, b) => (b.started_at || "").localeCompare(a.started_at || ""));
  // Once the finished survey is sent, the server completes the assignment and the next
  // pull drops it from the open ones; the survey finished on this tablet still names its
  // checklist, so the page goes on showing it as finished (and no big start button).
  const lastFinished = local.find((i) => i.status !== "draft" && byId[i.template_id]);
  const main = (assignment && byId[assignment.template_id]) || (lastFinished && byId[lastFinished.template_id]);
  const others = templates.filter((t) => t !== main).sort((a, b) => a.title.localeCompare(b.title));
  const titleOf = (templateId) => (byId[templateId] || {}).title || humanize(templateId);

  // The assignment's own checklist, already on this tablet: finished (queued or sent) or a draft.
  const mine = main ? local.filter((i) => i.template_id === main.id) : [];
  const finished = mine.find((i) => i.status !== "draft");
  const draft = mine.find((i) => i.status === "draft");

  let primary = null;
  if (finished) {
    primary = h("div", { class: "card finished", id: "finished" },
      h("p", { class: "finished-line" }, h("strong", {}, `${main.title} finished`), " ",
        h("span", { class: "muted" }, shortDate(finished.finished_at)), " ",
        h("span", { class: `chip ${finished.status === "sent" ? "good" : "warn"}` }, LABELS[finished.status]), " ",
        resultChip(byUuid[finished.uuid])),
      h("a", { class: "btn", href: "#/outbox" }, "See it in the outbox"));
  } else if (draft) {
    primary = h("a", { class: "btn primary big", href: `#/inspection/${draft.uuid}`, dataset: { template: main.id } },
      `Continue ${main.title.toLowerCase()} draft`);
  } else if (main) {
    primary = h("button", { class: "btn primary big", type: "button", dataset: { template: main.id }, onclick: () => startInspection(parcelId, main, assignment) },
      `Start ${main.title.toLowerCase()}`);
  }
  // A second inspection with the same checklist is a deliberate choice, never the big button.
  const again = finished ? h("button", { class: "btn", type: "button", id: "start-again", dataset: { template: main.id },
    onclick: () => { if (confirm(`Start a second ${main.title.toLowerCase()} of this parcel? The finished one stays as it is.`)) startInspection(parcelId, main, assignment); } },
  `Start a second ${main.title.toLowerCase()}`) : null;
  const startButtons = h("div", { class: "start" },
    primary,
    h("details", { class: "other-templates", dataset: { keep: "other-templates" } }, // stays open across a sync's redraw (main.js)
      h("summary", {}, "Another checklist"),
      h("div", { class: "button-grid" }, again, others.map((t) =>
        h("button", { class: "btn", type: "button", dataset: { template: t.id }, onclick: () => startInspection(parcelId, t, null) }, t.title)))));

  view.append(h("section", { class: "parcel" },
    h("a", { class: "back", href: "#/today" }, "‹ Today"),
    h("header", { class: "parcel-head" },
      h("div", {},
        h("h1", {}, p.site_address || `Parcel ${parcelId}`),
        h("p", { class: "key-facts" }, [p.parcel_number && `Parcel ${p.parcel_number}`, p.owner_name, humanize(p.user_class)].filter(Boolean).join(" · "))),
      assignment ? h("div", { class: "assignment" },
        h("span", { class: "chip" }, titleOf(assignment.template_id)),
        assignment.due_on ? h("span", { class: "due" }, `Due ${dueDate(assignment.due_on)}`) : null,
        assignment.notice ? h("p", { class: "notice-ref" }, `Notice ${assignment.notice.id}: ${assignment.notice.title}`) : null,
        assignment.reason ? h("p", { class: "muted" }, assignment.reason) : null) : null),
    startButtons,
    h("div", { class: "parcel-grid" },
      correctionCard(parcelId, network, editable),
      list("On this tablet", local, (i) => h("li", {},
        h("a", { class: "row-link", href: i.status === "draft" ? `#/inspection/${i.uuid}` : "#/outbox" },
          h("span", {}, i.title || titleOf(i.template_id)),
          h("span", { class: "chips" },
            h("span", { class: `chip ${i.status === "sent" ? "good" : i.status === "draft" ? "info" : "warn"}` }, LABELS[i.status]),
            resultChip(byUuid[i.uuid])),
          h("span", { class: "muted" }, shortDate(i.finished_at || i.started_at)))), "No inspections started here yet.", "on-tablet"),
      details ? null : notHere(view, parcelId, Boolean(parcel)),
      list("Open violations", (details ? d.violations || [] : null), violationLine, "None open.", "violations"),
      list("History", (details ? d.inspections || [] : null), (i) => h("li", {},
        h("span", {}, titleOf(i.template_id)), " ",
        h("span", { class: `chip ${i.result === "fail" ? "bad" : "good"}` }, i.result === "fail" ? "Fail" : "Pass"), " ",
        h("span", { class: "muted" }, shortDate(i.finished_at || i.received_at))), "No earlier inspections.", "history"),
      list("Notices", (details ? d.notices || [] : null), (n) => h("li", { dataset: { notice: n.id } },
        h("strong", {}, n.title || humanize(n.kind || "notice")), " ",
        h("span", { class: "chip notice-state", dataset: { state: n.state } }, humanize(n.state || "")),
        n.deadline ? h("div", {}, `Deadline ${dueDate(n.deadline)}`) : null), "No notices.", "notices")),
    d.fetched_at ? h("p", { class: "muted small" }, `Details from ${new Date(d.fetched_at).toLocaleString()}`) : null));
}
