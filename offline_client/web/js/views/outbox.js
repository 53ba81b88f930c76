// The outbox: every finished record until the server has it and all its photos,
// with the reason whenever the server said no.
import * as db from "../db.js";
import { h, humanize, shortDate } from "../dom.js";
import { LABELS, PROBLEMS, acknowledge, records } from "../outbox.js";
import { describe, syncState } from "../state.js";
import { thumbUrl } from "../photos.js";
import { resultChip } from "./parcel.js";

const TONE = { sent: "good", draft: "info", queued: "warn", pushed: "warn", rejected: "bad", photo_rejected: "bad", conflict: "bad" };

export async function renderOutbox(view) {
  const rows = (await records()).filter((r) => r.status !== "draft");
  const templates = Object.fromEntries((await db.all("templates")).map((t) => [t.id, t.title]));
  const results = (await db.kv.get("results")) || {};
  const settled = (r) => r.status === "sent" || (PROBLEMS.includes(r.status) && r.acknowledged);
  const waiting = rows.filter((r) => !settled(r));
  const sent = rows.filter(settled);
  const state = describe(syncState);

  async function card(r) {
    const parcel = await db.get("features", `parcels:${r.parcel_id}`);
    const address = parcel ? parcel.feature.properties.site_address : `Parcel ${r.parcel_id}`;
    const photos = await photosOfRecord(r);
    const result = results[r.uuid];
    return h("li", { class: `outbox-item card status-${r.status}`, dataset: { uuid: r.uuid, status: r.status } },
      h("div", { class: "outbox-head" },
        h("div", {},
          h("strong", {}, r.title || templates[r.template_id] || humanize(r.template_id)),
          h("div", { class: "muted" }, address, " · finished ", shortDate(r.finished_at))),
        h("span", { class: "chips" },
          h("span", { class: `chip ${TONE[r.status] || ""}` }, LABELS[r.status] || r.status),
          resultChip(result))),
      result ? outcome(r, result) : null,
      r.message ? h("p", { class: `reason ${TONE[r.status] === "bad" ? "bad" : ""}` }, r.message) : null,
      PROBLEMS.includes(r.status) && !r.acknowledged
        ? h("button", { type: "button", class: "btn acknowledge", onclick: async () => { await acknowledge(r.uuid); window.lateralField.route(); } },
          r.status === "conflict" ? "Understood — the superintendent decides" : "Understood")
        : null,
      photos.length ? h("div", { class: "thumbs small" }, photos.map((p) => h("figure", { class: `thumb photo-${p.state}`, dataset: { sha256: p.sha256 } },
        h("img", { src: thumbUrl(p), alt: p.filename, onerror: (e) => e.target.replaceWith(h("span", { class: "no-preview" }, "No preview")) }),
        h("figcaption", {}, caption(r, p))))) : null);
  }

  view.append(h("section", { class: "outbox" },
    h("div", { class: "section-head" },
      h("h1", {}, "Outbox"),
      h("button", { class: "btn primary", type: "button", id: "sync-now", disabled: !navigator.onLine, onclick: () => window.lateralField.syncNow() },
        navigator.onLine ? "Sync now" : "Offline — will send when there is signal")),
    h("p", { class: `state-line tone-${state.tone}` }, state.text),
    syncState.lastError && syncState.phase === "error" ? h("p", { class: "muted" }, `Last attempt: ${syncState.lastError}`) : null,
    h("h2", {}, `Waiting (${waiting.length})`),
    waiting.length ? h("ul", { class: "plain outbox-list", id: "outbox-waiting" }, await Promise.all(waiting.map(card)))
      : h("p", { class: "muted" }, "Nothing waiting. Every finished inspection and photo is on the server."),
    h("h2", {}, `Sent or settled (${sent.length})`),
    sent.length ? h("ul", { class: "plain outbox-list", id: "outbox-sent" }, await Promise.all(sent.map(card)))
      : h("p", { class: "muted" }, "Nothing sent yet.")));
}

/** The record's photos: those its answers name (one photo may serve two inspections). */
async function photosOfRecord(r) {
  const refs = (r.data && r.data.photos) || [];
  if (!refs.length) return db.all("photos", "inspection_uuid", r.uuid);
  const out = [];
  for (const sha256 of new Set(refs.map((p) => p.sha256))) {
    const photo = await db.get("photos", sha256);
    if (photo) out.push(photo);
  }
  return out;
}

function caption(r, p) {
  // "Sent" means the server acknowledged the record with every photo: none is waiting.
  if (p.state === "stored" || r.status === "sent") return "✓ stored";
  if (p.state === "rejected") return "refused";
  return p.sent_bytes ? `${Math.round((100 * p.sent_bytes) / p.size)}% sent` : "waiting";
}

/** What the server made of a sent inspection: what failed, the violations opened and resolved. */
function outcome(r, result) {
  const opened = result.violations_opened || [];
  const resolved = result.violations_resolved || [];
  const failures = result.failures || [];
  return h("div", { class: "outcome", dataset: { result: result.result } },
    failures.length ? h("ul", { class: "failures" }, failures.map((f) => h("li", {}, f.message))) : null,
    h("p", { class: "opened" }, opened.length
      ? `${opened.length} violation${opened.length === 1 ? "" : "s"} opened: ${opened.map((v) => `${v.rule_title || v.rule_id} (${v.section})`).join("; ")}`
      : "No violation opened."),
    resolved.length ? h("p", { class: "resolved" }, `${resolved.length} violation${resolved.length === 1 ? "" : "s"} resolved: ${resolved.map((v) => `${v.rule_title || v.rule_id} (${v.section})`).join("; ")}`) : null,
    r.parcel_id ? h("a", { href: `#/parcel/${r.parcel_id}` }, "Open the parcel") : null);
}
