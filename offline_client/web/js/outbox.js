// The outbox: finished inspections (and edits) until the server has acknowledged
// them and every photo. Statuses of an inspection row:
//   draft          being filled in; never sent
//   queued         finished; waiting to be pushed
//   pushed         the server stored the record; photos still missing
//   sent           acknowledged with all its photos (the only "sent")
//   rejected       the server refused the record (reason in `message`); kept
//   photo_rejected a photo was refused (reason in `message`); kept
//   conflict       a shared feature changed on the server; kept for the superintendent
import * as db from "./db.js";
import { update } from "./state.js";

export const WAITING = ["queued", "pushed"];
export const PROBLEMS = ["rejected", "photo_rejected", "conflict"];

export const LABELS = {
  draft: "Draft",
  queued: "Waiting to send",
  pushed: "Record sent · photos waiting",
  sent: "Sent",
  rejected: "Not accepted",
  photo_rejected: "Photo refused",
  conflict: "Conflict",
};

export async function records() {
  const rows = await db.all("inspections");
  return rows.sort((a, b) => (b.updated_at || "").localeCompare(a.updated_at || ""));
}

/** Recount the waiting and problem rows into the sync state. */
export async function refreshCounts() {
  const rows = await db.all("inspections");
  update({
    waiting: rows.filter((r) => WAITING.includes(r.status)).length,
    drafts: rows.filter((r) => r.status === "draft").length,
    problems: rows
      .filter((r) => PROBLEMS.includes(r.status) && !r.acknowledged)
      .map((r) => ({ uuid: r.uuid, kind: r.status === "conflict" ? "conflict" : r.status, message: r.message })),
  });
}

export async function save(row) {
  row.updated_at = new Date().toISOString();
  if (!row.username) row.username = ((await db.kv.get("user")) || {}).username || null;
  await db.put("inspections", row);
  await refreshCounts();
  return row;
}

/** The inspector has read a problem: keep the row, stop raising the alarm. */
export async function acknowledge(uuid) {
  const row = await db.get("inspections", uuid);
  if (!row) return;
  row.acknowledged = true;
  await save(row);
}
