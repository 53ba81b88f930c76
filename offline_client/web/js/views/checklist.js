// Checklist logic shared by the form: which items are asked, what is missing, and the
// answers as the server wants them (docs/sync.md, "inspection data").

/** Is the item asked, given the answers at its level? */
export function active(item, answers) {
  return !item.when || answers[item.when.item] === item.when.equals;
}

function blank(value) {
  return value === undefined || value === null || value === "";
}

/** Problems by dotted path (sources.0.photo) — the same paths the server reports. */
export function problems(items, answers, prefix = "", out = {}) {
  for (const item of items) {
    const path = prefix + item.id;
    if (!active(item, answers)) continue;
    const value = answers[item.id];
    if (blank(value)) {
      if (item.required !== false && item.type !== "group") out[path] = "Required";
      continue;
    }
    if (item.type === "number") {
      if (typeof value !== "number" || !Number.isFinite(value)) out[path] = "Enter a number";
      else if ((item.min !== undefined && value < item.min) || (item.max !== undefined && value > item.max)) {
        out[path] = `Between ${item.min} and ${item.max} ${item.unit || ""}`.trim();
      }
    } else if (item.type === "photo") {
      const min = item.min_count || 0;
      if (value.length < min) out[path] = `Take at least ${min} photo${min === 1 ? "" : "s"}`;
    } else if (item.type === "text" && value.length > 2000) {
      out[path] = "At most 2000 characters";
    } else if (item.type === "group") {
      value.forEach((entry, i) => problems(item.items, entry, `${path}.${i}.`, out));
    }
  }
  return out;
}

/** The answers to send: only asked items, no empty values. */
export function cleaned(items, answers) {
  const out = {};
  for (const item of items) {
    if (!active(item, answers)) continue;
    const value = answers[item.id];
    if (value === undefined || value === null || value === "") continue;
    out[item.id] = item.type === "group" ? value.map((entry) => cleaned(item.items, entry)) : value;
  }
  return out;
}

/** [{sha256, item_id}] of every photo answer, item_id as "group.item" inside groups. */
export function photoRefs(items, answers, group = null, out = []) {
  for (const item of items) {
    const value = answers[item.id];
    if (!active(item, answers) || value === undefined || value === null) continue;
    if (item.type === "photo") for (const sha256 of value) out.push({ sha256, item_id: group ? `${group}.${item.id}` : item.id });
    if (item.type === "group") for (const entry of value) photoRefs(item.items, entry, item.id, out);
  }
  return out;
}
