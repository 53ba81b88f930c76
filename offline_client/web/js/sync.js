// Sync over the protocol of docs/sync.md, in three steps, each leaving IndexedDB
// consistent before it talks to the network:
//   1. push finished records (the record is kept exactly as first sent, so a resend
//      is recognised by the server as a duplicate, never stored twice);
//   2. upload each photo the server lacks over tus, resuming from the server's offset;
//   3. confirm: push again (a harmless duplicate) until the server answers that no
//      photo is missing — only then is the record "sent";
//   then pull assignments, templates and the network around them, and what the
//   inspector's work led to (results, open violations, notices: db.applyPull).
import * as db from "./db.js";
import { AuthExpired, Offline, call, token } from "./api.js";
import { PhotoRejected, abortCurrent, upload } from "./uploads.js";
import { refreshCounts, save } from "./outbox.js";
import { syncState, update } from "./state.js";

const PUSH_BATCH = 50;
const CURSOR_KEY = "pull_cursor";
let running = null;
let failures = 0;
let retryTimer = null;
let config = { tus_chunk_bytes: 1024 * 1024 };

export function configure(cfg) {
  config = { ...config, ...cfg };
}

/** Sync now (or join the sync in progress). Never throws; the state says how it went. */
export function syncNow({ pull = true } = {}) {
  if (!running) {
    running = run(pull).finally(() => {
      running = null;
    });
  }
  return running;
}

async function run(pull) {
  clearTimeout(retryTimer);
  if (!navigator.onLine) {
    update({ online: false, phase: "idle" });
    return;
  }
  update({ online: true, phase: "syncing", progress: null, lastError: null });
  try {
    const sent = await sendOutbox();
    // A record just sent is followed by a pull: it brings back the server's result.
    if (pull || sent) await pullAll();
    await reportReadiness();
    failures = 0;
    update({ phase: "idle", progress: null, authExpired: false, lastSyncAt: new Date().toISOString() });
  } catch (err) {
    if (err instanceof AuthExpired) {
      update({ phase: "error", progress: null, authExpired: true, lastError: err.message });
    } else {
      failures += 1;
      update({ phase: "error", progress: null, online: navigator.onLine, lastError: err.message });
      scheduleRetry();
      if (!(err instanceof Offline)) console.warn("sync failed", err);
    }
  }
  await refreshCounts();
}

/** Tell the server whether the app opens here without signal (the superintendent sees it per tablet). */
async function reportReadiness() {
  const readiness = await db.kv.get("offline_readiness");
  if (!readiness) return; // not known yet: the service worker is still being installed
  await call("POST", "/sync/device", { offline_ready: readiness.ready, reason: readiness.reason || null });
}

function scheduleRetry() {
  // Exponential back-off with jitter, capped at 5 minutes, so a crew of tablets coming
  // back into signal together do not retry in step.
  const ceiling = Math.min(300, 2 ** failures) * 1000;
  retryTimer = setTimeout(() => syncNow(), ceiling * (0.5 + Math.random() / 2));
}

export function wentOffline() {
  abortCurrent();
  update({ online: false });
}

/** Send what waits; how many records became "sent". */
async function sendOutbox() {
  // A shared tablet: each record goes with the token of the inspector who made it.
  const me = ((await db.kv.get("user")) || {}).username;
  const rows = (await db.all("inspections"))
    .filter((r) => (r.status === "queued" || r.status === "pushed") && (!r.username || r.username === me));
  rows.sort((a, b) => (a.finished_at || "").localeCompare(b.finished_at || ""));
  const total = rows.length;
  let done = 0;
  update({ progress: { done, total } });
  const queued = rows.filter((r) => r.status === "queued");
  for (let i = 0; i < queued.length; i += PUSH_BATCH) await push(queued.slice(i, i + PUSH_BATCH));
  for (const row of rows) {
    update({ progress: { done, total } });
    const fresh = await db.get("inspections", row.uuid);
    if (fresh.status === "pushed") await completePhotos(fresh, (photo) => update({ progress: { done, total, photo } }));
    done += 1;
  }
  update({ progress: { done, total } });
  const after = await Promise.all(rows.map((r) => db.get("inspections", r.uuid)));
  return after.filter((r) => r && r.status === "sent").length;
}

/** Push records; settle each by its own result. */
async function push(rows) {
  const body = { records: rows.map((r) => ({ uuid: r.uuid, kind: r.kind || "inspection", data: r.data })) };
  const { data } = await call("POST", "/sync/push", body);
  for (const result of data.results) {
    const row = rows.find((r) => r.uuid === result.uuid);
    if (row) await settle(row, result);
  }
}

async function settle(row, result) {
  row.last_result = { status: result.status, code: result.code, message: result.message };
  if (result.status === 201 || result.status === 200) {
    const outcome = result.outcome || result.code;
    row.server_id = result.server_id ?? row.server_id ?? null;
    row.missing_photos = result.missing_photos || [];
    if (outcome === "stale_version" || outcome === "proposed") return conflict(row, result);
    row.status = row.missing_photos.length ? "pushed" : "sent";
    await markHeld(row);
    row.message = null;
    if (row.status === "sent") row.sent_at = new Date().toISOString();
  } else if ((result.status === 409 && result.code === "stale_version") || result.code === "proposed") {
    return conflict(row, result);
  } else if (result.status >= 500) {
    row.message = result.message; // stays queued: retried later
  } else {
    row.status = result.code === "already_replaced" ? "conflict" : "rejected";
    const fields = (result.details && result.details.fields) || {};
    const where = Object.keys(fields).length
      ? ` (${Object.entries(fields).map(([k, v]) => `${k}: ${[].concat(v).join(", ")}`).join("; ")})`
      : "";
    row.message = `${result.message}${where}`;
  }
  await save(row);
}

/**
 * Photos of the record the server did not list as missing are on the server already
 * (sent now, or before with another inspection): say so, never "waiting".
 */
async function markHeld(row) {
  const missing = new Set(row.missing_photos || []);
  for (const ref of (row.data && row.data.photos) || []) {
    if (missing.has(ref.sha256)) continue;
    const photo = await db.get("photos", ref.sha256);
    if (photo && photo.state !== "stored") {
      photo.state = "stored";
      photo.upload_url = null;
      await db.put("photos", photo);
    }
  }
}

async function conflict(row, result) {
  // The edit is recorded on the server as a conflict for the superintendent; nothing
  // was applied. Keep the row visible with the reason.
  row.status = "conflict";
  row.conflict_id = result.conflict_id ?? null;
  row.message = result.message || "the feature changed on the server; the superintendent decides";
  await save(row);
}

/** Upload what the server lacks, then confirm with a resend of the record. */
async function completePhotos(row, onPhoto) {
  const missing = row.missing_photos || [];
  for (const [index, sha256] of missing.entries()) {
    const photo = await db.get("photos", sha256);
    if (!photo) {
      row.status = "photo_rejected";
      row.message = `photo ${sha256.slice(0, 12)}… is no longer on this tablet`;
      await save(row);
      return;
    }
    if (photo.state === "stored") continue;
    onPhoto({ index: index + 1, count: missing.length, percent: 0 });
    // The server just listed it as missing, so upload (a photo it already holds from
    // another inspection is accepted again without storing anything new).
    try {
      await upload(photo, {
        chunkSize: config.tus_chunk_bytes,
        onProgress: (sent, total) =>
          onPhoto({ index: index + 1, count: missing.length, percent: Math.floor((100 * sent) / total) }),
      });
    } catch (err) {
      if (!(err instanceof PhotoRejected)) throw err;
      photo.state = "rejected";
      photo.message = `${err.message} (${err.code})`;
      await db.put("photos", photo);
      row.status = "photo_rejected";
      row.message = `the server refused photo ${photo.filename}: ${err.message} (${err.code}). The inspection reached the server without it.`;
      await save(row);
      return;
    }
    photo.state = "stored";
    photo.upload_url = null;
    await db.put("photos", photo);
  }
  await push([row]); // the server's answer decides: sent only when nothing is missing
}

/** Pull pages until `more` is false; a reset replaces the cached features. */
export async function pullAll() {
  // The layer registry (map styles, the fields a correction offers), kept for offline.
  const { data: layers } = await call("GET", "/layers");
  await db.kv.set("layers", layers);
  let cursor = await db.kv.get(CURSOR_KEY);
  for (let page = 0; page < 1000; page += 1) {
    const query = cursor ? `?cursor=${encodeURIComponent(cursor)}` : "";
    const { data } = await call("GET", `/sync/pull${query}`);
    await db.applyPull(data, CURSOR_KEY);
    cursor = data.cursor;
    if (!data.more) break;
  }
  await db.kv.set("pulled_at", new Date().toISOString());
  await keepBasemap();
}

/** The city's basemap file (LATERAL_BASEMAP_PMTILES), kept whole on the tablet so the map
 * has its background offline: fetched once, and again only when the server's copy changed. */
async function keepBasemap() {
  const cfg = window.lateralConfig || {};
  if (!cfg.basemap_pmtiles) return;
  const kept = await db.kv.get("basemap");
  const headers = { Authorization: `Bearer ${await token()}` };
  if (kept && kept.etag) headers["If-None-Match"] = kept.etag;
  try {
    const response = await fetch(cfg.basemap_pmtiles, { headers, credentials: "omit" });
    if (response.status !== 200) return; // 304: the kept one is current
    await db.kv.set("basemap", { etag: response.headers.get("ETag"), blob: await response.blob() });
  } catch (_) { /* no signal: keep what the tablet has */ }
}

export { syncState };
