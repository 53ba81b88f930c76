// Filling in a checklist: large touch targets, photos from the camera with
// thumbnails, a draft saved on every change, and "Finish" that queues the record.
import * as db from "../db.js";
import { h, humanize, isoLocal } from "../dom.js";
import { refreshCounts, save } from "../outbox.js";
import { addPhoto, thumbUrl } from "../photos.js";
import { active, cleaned, photoRefs, problems } from "./checklist.js";
import { parcelFeature } from "./today.js";

export async function renderInspection(view, uuid) {
  const row = await db.get("inspections", uuid);
  if (!row) {
    view.append(h("p", { class: "empty" }, "This inspection is not on this tablet."));
    return;
  }
  if (row.status !== "draft") {
    location.replace("#/outbox");
    return;
  }
  const template = (await db.all("templates")).find((t) => t.id === row.template_id && t.version === row.template_version)
    || (await db.kv.get(`template:${row.template_id}:${row.template_version}`));
  if (!template) {
    view.append(h("p", { class: "empty" }, "The checklist of this draft is no longer on this tablet. Sync, then try again."));
    return;
  }
  // Keep the version this draft uses even if a pull replaces it with a newer one.
  await db.kv.set(`template:${template.id}:${template.version}`, template);
  const parcel = await parcelFeature(row.parcel_id);
  const address = (parcel && parcel.properties.site_address) || `Parcel ${row.parcel_id}`;
  let errors = {};
  let checked = false; // after the first Finish, the marks follow every answer
  const formEl = h("div", { class: "checklist" });
  const summary = h("div", { class: "form-error", role: "alert", hidden: true });
  const savedNote = h("span", { class: "muted small", "aria-live": "polite" }, "Draft saved on this tablet");

  locate(row);

  async function persist() {
    await save(row);
    savedNote.textContent = `Draft saved ${new Date().toLocaleTimeString()}`;
  }

  function rerender() {
    const y = window.scrollY;
    formEl.replaceChildren(...items(template.items, row.answers, ""));
    window.scrollTo(0, y);
  }

  function showSummary() {
    const count = Object.keys(errors).length;
    summary.textContent = count
      ? `${count} answer${count === 1 ? " is" : "s are"} missing or out of range; they are marked below.`
      : "";
    summary.hidden = !count;
  }

  /** Once Finish has been tapped, re-check on every answer: marks clear as items are answered. */
  function recheck() {
    if (!checked) return;
    errors = problems(template.items, row.answers);
    for (const el of formEl.querySelectorAll(".field[data-path]")) {
      const message = errors[el.dataset.path];
      el.classList.toggle("invalid", Boolean(message));
      const old = el.querySelector(":scope > .field-error");
      if (old && !message) old.remove();
      else if (old) old.textContent = message;
      else if (message) el.append(h("p", { class: "field-error", id: `err-${el.dataset.path}` }, message));
      const input = el.querySelector(":scope > .big-input, :scope > .choices");
      if (!input) continue;
      if (input.classList.contains("big-input")) input.setAttribute("aria-invalid", String(Boolean(message)));
      const ids = [el.querySelector(":scope > .hint"), el.querySelector(":scope > .field-error")].filter(Boolean).map((n) => n.id);
      if (ids.length) input.setAttribute("aria-describedby", ids.join(" "));
      else input.removeAttribute("aria-describedby");
    }
    showSummary();
  }

  function items(list, answers, prefix, group = null) {
    return list.filter((item) => active(item, answers)).map((item) => field(item, answers, prefix, group));
  }

  function field(item, answers, prefix, group) {
    const path = prefix + item.id;
    const required = item.required !== false && item.type !== "group";
    const labelled = item.type === "number" || item.type === "text";
    // An input is labelled by its prompt; a choice group is named by it (aria-labelledby).
    const label = h(labelled ? "label" : "div", { class: "prompt", id: `prompt-${path}`, for: labelled ? `input-${path}` : null },
      item.prompt, item.unit ? ` (${item.unit})` : "",
      required ? null : h("span", { class: "optional" }, "optional"));
    // The limit the ordinance sets, shown before the answer (from the checklist's definition).
    const hint = item.requirement ? h("p", { class: "hint", id: `hint-${path}` }, item.requirement) : null;
    const error = errors[path] ? h("p", { class: "field-error", id: `err-${path}` }, errors[path]) : null;
    return h("div", { class: `field type-${item.type}${error ? " invalid" : ""}`, dataset: { path } },
      label, hint, control(item, answers, path, group), error);
  }

  function describedBy(item, path) {
    return [item.requirement ? `hint-${path}` : null, errors[path] ? `err-${path}` : null].filter(Boolean).join(" ") || null;
  }

  function setAnswer(answers, id, value, redraw) {
    if (value === undefined) delete answers[id];
    else answers[id] = value;
    persist();
    if (redraw && checked) errors = problems(template.items, row.answers);
    if (redraw) rerender();
    else recheck();
    if (redraw) showSummary();
  }

  function choices(item, answers, options, path) {
    const labels = item.option_labels || {};
    const named = Object.keys(labels).length > 0;
    return h("div", { class: `choices${named ? " stacked" : ""}`, role: "radiogroup", "aria-labelledby": `prompt-${path}`,
      "aria-describedby": describedBy(item, path) }, options.map((opt) =>
      h("button", {
        type: "button", role: "radio", class: "choice", "aria-checked": String(answers[item.id] === opt), dataset: { value: opt },
        // Choosing the chosen answer again keeps it: an answer changes only by choosing another.
        onclick: () => { if (answers[item.id] !== opt) setAnswer(answers, item.id, opt, true); },
      }, labels[opt] || ANSWER_WORDS[opt] || humanize(opt))));
  }

  function control(item, answers, path, group) {
    const common = { id: `input-${path}`, class: "big-input", "aria-describedby": describedBy(item, path),
      "aria-invalid": errors[path] ? "true" : null };
    switch (item.type) {
      case "choice":
        return choices(item, answers, item.options, path);
      case "yes_no":
        return choices(item, answers, item.allow_na ? ["yes", "no", "na"] : ["yes", "no"], path);
      case "number":
        return h("input", {
          ...common, type: "number", inputmode: "decimal", step: "any", value: answers[item.id] ?? "",
          min: item.min, max: item.max,
          // input, not change: the marks follow the answer as it is typed
          oninput: (e) => setAnswer(answers, item.id, e.target.value === "" ? undefined : Number(e.target.value), false),
        });
      case "text":
        // A short answer (a permit number) is one line; the checklist says which (`short`).
        if (item.short) {
          return h("input", {
            ...common, type: "text", maxlength: 200, autocomplete: "off", autocapitalize: "characters", value: answers[item.id] || "",
            oninput: (e) => setAnswer(answers, item.id, e.target.value || undefined, false),
          });
        }
        return h("textarea", {
          ...common, rows: 3, maxlength: 2000,
          oninput: (e) => setAnswer(answers, item.id, e.target.value || undefined, false),
        }, answers[item.id] || "");
      case "location":
        return locationControl(item, answers);
      case "photo":
        return photoControl(item, answers, path, group);
      case "group":
        return groupControl(item, answers, path);
      default:
        return h("p", { class: "muted" }, `(${item.type} is not supported on this tablet)`);
    }
  }

  function locationControl(item, answers) {
    const value = answers[item.id];
    // Why there is no position, said in the page (role=alert reads it out), never in an alert() box.
    const said = h("p", { class: "position-help", role: "alert", id: `position-help-${item.id}` });
    const wrap = h("div", { class: "stack" }, h("div", { class: "row" },
      h("button", { type: "button", class: "btn", onclick: () => {
        said.textContent = "";
        if (!navigator.geolocation) {
          said.textContent = "This browser gives no position. Leave the position empty, or use another browser.";
          return;
        }
        navigator.geolocation.getCurrentPosition(
          (pos) => setAnswer(answers, item.id, { type: "Point", coordinates: [round(pos.coords.longitude), round(pos.coords.latitude)] }, true),
          (err) => {
            said.textContent = err && err.code === 1
              ? "Location is not allowed for this app. Allow it in the browser's settings (the lock or site-settings icon beside the address, then Location: Allow), then tap “Use my position” again."
              : "No position from the tablet. Step outside, or wait a moment, and try again.";
          },
          { enableHighAccuracy: true, timeout: 15000 });
      } }, value ? "Update position" : "Use my position"),
      value ? h("span", { class: "muted" }, value.coordinates.map((c) => c.toFixed(6)).join(", ")) : null,
      value ? h("button", { type: "button", class: "btn link", onclick: () => setAnswer(answers, item.id, undefined, true) }, "Clear") : null),
    said);
    return wrap;
  }

  function photoControl(item, answers, path, group) {
    const digests = answers[item.id] || [];
    const thumbs = h("div", { class: "thumbs" });
    (async () => {
      for (const sha256 of digests) {
        const photo = await db.get("photos", sha256);
        if (!photo) continue;
        thumbs.append(h("figure", { class: "thumb", dataset: { sha256 } },
          h("img", { src: thumbUrl(photo), alt: photo.filename, onerror: (e) => e.target.replaceWith(h("span", { class: "no-preview" }, "No preview")) }),
          h("figcaption", {}, photo.filename),
          h("button", { type: "button", class: "remove", "aria-label": `Remove ${photo.filename}`, onclick: async () => {
            setAnswer(answers, item.id, digests.filter((d) => d !== sha256), true);
          } }, "×")));
      }
    })();
    const input = h("input", {
      type: "file", accept: "image/*", capture: "environment", multiple: true, class: "visually-hidden", id: `photo-${path}`,
      dataset: { path },
      onchange: async (e) => {
        const files = Array.from(e.target.files || []);
        const list = [...digests];
        for (const file of files) {
          const photo = await addPhoto(file, row.uuid, group ? `${group}.${item.id}` : item.id);
          if (!list.includes(photo.sha256)) list.push(photo.sha256);
        }
        setAnswer(answers, item.id, list, true);
      },
    });
    return h("div", { class: "photos" },
      thumbs,
      input,
      h("label", { for: `photo-${path}`, class: "btn camera" }, cameraIcon(), digests.length ? "Take another photo" : "Take photo"));
  }

  function groupControl(item, answers, path) {
    const entries = answers[item.id] || [];
    const noun = humanize(item.items[0] && item.items[0].id === "source" ? "source" : "entry");
    return h("div", { class: "group" },
      entries.map((entry, i) => h("div", { class: "entry card", dataset: { path: `${path}.${i}` } },
        h("div", { class: "entry-head" },
          h("h3", {}, `${noun} ${i + 1}`),
          h("button", { type: "button", class: "btn link danger", onclick: () => {
            if (confirm(`Remove ${noun.toLowerCase()} ${i + 1}?`)) setAnswer(answers, item.id, entries.filter((_, j) => j !== i), true);
          } }, "Remove")),
        items(item.items, entry, `${path}.${i}.`, item.id))),
      h("button", { type: "button", class: "btn add", dataset: { add: path }, onclick: () => setAnswer(answers, item.id, [...entries, {}], true) },
        `+ Add ${noun.toLowerCase()}`));
  }

  async function finish() {
    checked = true;
    errors = problems(template.items, row.answers);
    rerender();
    showSummary();
    const count = Object.keys(errors).length;
    if (count) {
      const first = formEl.querySelector(".invalid");
      if (first) first.scrollIntoView({ block: "center" });
      return;
    }
    const answers = cleaned(template.items, row.answers);
    const refs = photoRefs(template.items, answers);
    const photos = [];
    for (const ref of refs) {
      const photo = await db.get("photos", ref.sha256);
      photos.push({ sha256: ref.sha256, item_id: ref.item_id, filename: photo ? photo.filename : null });
    }
    // Photos taken and then removed from the answers are not part of the record.
    const keep = new Set(refs.map((r) => r.sha256));
    for (const photo of await db.all("photos", "inspection_uuid", row.uuid)) if (!keep.has(photo.sha256)) await db.del("photos", photo.sha256);
    row.finished_at = isoLocal();
    // The record exactly as it will be sent, every time: a resend must hash the same.
    row.data = {
      template_id: row.template_id, template_version: row.template_version, parcel_id: row.parcel_id,
      location: row.location, started_at: row.started_at, finished_at: row.finished_at,
      answers, photos, replaces: null,
    };
    row.status = "queued";
    await save(row);
    document.dispatchEvent(new CustomEvent("lateral:changed"));
    location.hash = `#/parcel/${row.parcel_id}`;
  }

  async function discard() {
    if (!confirm("Delete this draft and its photos?")) return;
    for (const photo of await db.all("photos", "inspection_uuid", row.uuid)) await db.del("photos", photo.sha256);
    await db.del("inspections", row.uuid);
    await refreshCounts();
    location.hash = `#/parcel/${row.parcel_id}`;
  }

  rerender();
  view.append(h("section", { class: "inspection" },
    h("a", { class: "back", href: `#/parcel/${row.parcel_id}` }, `‹ ${address}`),
    h("header", { class: "form-head" },
      h("h1", {}, template.title),
      h("p", { class: "muted" }, address, " · started ", new Date(row.started_at).toLocaleTimeString()),
      template.description ? h("p", { class: "description" }, template.description) : null,
      row.notice ? h("p", { class: "notice-ref" }, `Checks notice ${row.notice.id}: ${row.notice.title}`,
        row.notice.deadline ? ` · deadline ${row.notice.deadline}` : "") : null),
    summary,
    formEl,
    h("footer", { class: "actionbar" },
      savedNote,
      h("div", { class: "actions" },
        h("button", { type: "button", class: "btn link danger", onclick: discard }, "Delete draft"),
        h("button", { type: "button", class: "btn big", id: "save-draft", onclick: async () => { await persist(); location.hash = `#/parcel/${row.parcel_id}`; } }, "Save draft"),
        h("button", { type: "button", class: "btn primary big", id: "finish", onclick: finish }, "Finish")))));
}

// How an answer reads on its button ("na" is not a word).
const ANSWER_WORDS = { yes: "Yes", no: "No", na: "N/A" };

function round(x) {
  return Number(x.toFixed(7));
}

/** Where the inspection was taken: the tablet's position if it answers soon, else the parcel. */
function locate(row) {
  if (row.location_source === "gps" || !navigator.geolocation) return;
  navigator.geolocation.getCurrentPosition(async (pos) => {
    const fresh = await db.get("inspections", row.uuid);
    if (!fresh || fresh.status !== "draft") return;
    row.location = { type: "Point", coordinates: [round(pos.coords.longitude), round(pos.coords.latitude)] };
    row.location_source = "gps";
    await save(row);
  }, () => {}, { enableHighAccuracy: true, timeout: 20000, maximumAge: 60000 });
}

function cameraIcon() {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("width", "26");
  svg.setAttribute("height", "26");
  svg.setAttribute("aria-hidden", "true");
  const path = document.createElementNS(ns, "path");
  path.setAttribute("fill", "currentColor");
  path.setAttribute("d", "M9 3 7.2 5H4a2 2 0 0 0-2 2v11a2 2 0 0 0 2 2h16a2 2 0 0 0 2-2V7a2 2 0 0 0-2-2h-3.2L15 3H9zm3 5a5 5 0 1 1 0 10 5 5 0 0 1 0-10zm0 2a3 3 0 1 0 0 6 3 3 0 0 0 0-6z");
  svg.append(path);
  return svg;
}
