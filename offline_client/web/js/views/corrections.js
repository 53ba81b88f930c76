// Corrections to shared network features (a tap's clock position, a lateral's size or
// backflow valve), sent as `feature_edit` records with the version they were based on.
// If someone changed the feature meanwhile, the server keeps the edit as a conflict
// for the superintendent and applies nothing; the outbox says so.
import * as db from "../db.js";
import { h, isoLocal, uuid4 } from "../dom.js";
import { save } from "../outbox.js";
import { Offline, call } from "../api.js";

/** Whether `role` may correct features of `layer`, as the server decides a field edit
 * (server/field/sync.py): the layer's writers, and inspectors for the layers they edit from
 * the field. Read from the layer registry kept at each pull (GET /api/v1/layers). */
export async function mayCorrect(role, layer) {
  const entry = ((await db.kv.get("layers")) || []).find((d) => d.name === layer);
  if (!entry || !role) return false;
  return (entry.write_roles || []).includes(role) || (entry.field_editable && role === "inspector");
}

/** The inputs a correction of `layer` offers: the registry's `field_inputs`
 * (GET /api/v1/layers, kept in kv "layers" at each pull). */
async function inputsOf(layer) {
  const entry = ((await db.kv.get("layers")) || []).find((d) => d.name === layer);
  return (entry && entry.field_inputs) || [];
}

/** The lateral(s) of a parcel and their taps, from the pulled features; null when the
 * parcel itself is not on this tablet (then nothing is known of its network here). */
export async function networkOf(parcelId) {
  if (!(await db.get("features", `parcels:${parcelId}`))) return null;
  const laterals = (await db.all("features", "layer", "laterals")).map((r) => r.feature)
    .filter((f) => f.properties.parcel_id === parcelId);
  const ids = new Set(laterals.map((f) => f.id));
  const taps = (await db.all("features", "layer", "taps")).map((r) => r.feature)
    .filter((f) => ids.has(f.properties.lateral_id));
  return [...laterals.map((f) => ["laterals", f]), ...taps.map((f) => ["taps", f])];
}

function describe(layer, f) {
  const p = f.properties;
  if (layer === "taps") return `Tap ${f.id} · ${p.method || "method unknown"} · clock ${p.clock_position ?? "?"}`;
  return `Lateral ${f.id} · ${p.material || "material unknown"} · ${p.diameter_in ?? "?"} in · backflow valve ${p.backflow_valve === true ? "yes" : p.backflow_valve === false ? "no" : "?"}`;
}

/** The online copy of a parcel's lateral(s) and taps, for a parcel not on this tablet. */
export async function fetchNetworkOf(parcelId) {
  const { data: laterals } = await call("GET", `/laterals?parcel_id=${parcelId}&limit=50`);
  const out = laterals.features.map((f) => ["laterals", f]);
  for (const lateral of laterals.features) {
    const { data: taps } = await call("GET", `/taps?lateral_id=${lateral.id}&limit=50`);
    out.push(...taps.features.map((f) => ["taps", f]));
  }
  return out;
}

/**
 * The parcel's lateral and tap, each with Correct for a role that may correct it.
 * @param {Array|null} features pulled [layer, feature] pairs; null: not on this tablet
 * @param {Set<string>} editable the layers the user may correct
 * @param {boolean} fetched the features came from the server just now, not the tablet
 */
export function correctionCard(parcelId, features, editable, fetched = false) {
  const card = h("section", { class: "card", id: "network" }, h("h2", {}, "Lateral and tap"));
  if (features === null) {
    // Unknown is not "none": the parcel's network was never pulled to this tablet.
    card.append(h("p", { class: "muted not-here" }, "This parcel's lateral and tap are not on this tablet."),
      h("button", { type: "button", class: "btn", onclick: async (event) => {
        const button = event.currentTarget;
        button.disabled = true;
        try {
          card.replaceWith(correctionCard(parcelId, await fetchNetworkOf(parcelId), editable, true));
        } catch (err) {
          button.disabled = false;
          button.after(h("p", { class: "muted" }, err instanceof Offline ? "No signal: try again with signal." : err.message));
        }
      } }, "Fetch them from the server"));
    return card;
  }
  const list = h("ul", { class: "plain" });
  for (const [layer, f] of features) {
    const li = h("li", { dataset: { feature: `${layer}:${f.id}` } },
      h("div", { class: "row spread" }, h("span", {}, describe(layer, f)),
        editable.has(layer) ? h("button", { type: "button", class: "btn", onclick: async () => li.append(await form(parcelId, layer, f, li)) }, "Correct") : null));
    list.append(li);
  }
  card.append(features.length ? list : h("p", { class: "muted" }, "No lateral recorded for this parcel."));
  if (fetched) card.append(h("p", { class: "muted small" }, "From the server just now."));
  return card;
}

async function form(parcelId, layer, feature, li) {
  const existing = li.querySelector("form");
  if (existing) return existing;
  const inputs = {};
  const rows = (await inputsOf(layer)).map((field) => {
    const value = feature.properties[field.id];
    const input = field.type === "bool"
      ? h("select", { class: "big-input", name: field.id },
        h("option", { value: "", selected: value == null }, "—"),
        h("option", { value: "true", selected: value === true }, "Yes"),
        h("option", { value: "false", selected: value === false }, "No"))
      : h("input", { class: "big-input", name: field.id, type: "number", inputmode: "decimal", min: field.min, max: field.max, step: field.step, value: value ?? "" });
    inputs[field.id] = [field, input];
    return h("label", { class: "stack" }, field.prompt, input);
  });
  const el = h("form", { class: "correction", onsubmit: async (event) => {
    event.preventDefault();
    const properties = {};
    for (const [id, [field, input]] of Object.entries(inputs)) {
      if (input.value === "") continue;
      const value = field.type === "bool" ? input.value === "true" : Number(input.value);
      if (value !== feature.properties[id]) properties[id] = value;
    }
    if (!Object.keys(properties).length) {
      el.remove();
      return;
    }
    const now = isoLocal();
    await save({
      uuid: uuid4(), kind: "feature_edit", parcel_id: parcelId, status: "queued", started_at: now, finished_at: now,
      title: `Correction to ${layer === "taps" ? "tap" : "lateral"} ${feature.id}`,
      data: { layer, id: feature.id, base_version: feature.properties.version, properties },
    });
    document.dispatchEvent(new CustomEvent("lateral:changed"));
    el.replaceWith(h("p", { class: "chip warn" }, "Correction saved; it goes with the next sync."));
  } }, rows, h("div", { class: "row" },
    h("button", { type: "submit", class: "btn primary" }, "Save correction"),
    h("button", { type: "button", class: "btn link", onclick: () => el.remove() }, "Cancel")));
  return el;
}
