// IndexedDB: everything the app knows lives here first, so a reload, a dead battery
// or a closed tab loses nothing. One database per device; stores:
//   kv          settings and small values (token, user, cursor, config, results by
//               inspection uuid, parcel details as "parcel:<id>")
//   features    pulled network features, key "layer:id"
//   assignments the inspector's open assignments (replaced on every pull)
//   templates   checklist templates, key "id" (latest version; replaced on every pull)
//   inspections drafts and finished inspections, key uuid
//   photos      photo blobs, key sha256

const NAME = "lateral-field";
const VERSION = 1;
let opening = null;

export function open() {
  if (!opening) {
    opening = new Promise((resolve, reject) => {
      const req = indexedDB.open(NAME, VERSION);
      req.onupgradeneeded = () => {
        const db = req.result;
        db.createObjectStore("kv");
        const features = db.createObjectStore("features", { keyPath: "key" });
        features.createIndex("layer", "layer");
        db.createObjectStore("assignments", { keyPath: "id" });
        db.createObjectStore("templates", { keyPath: "id" });
        const inspections = db.createObjectStore("inspections", { keyPath: "uuid" });
        inspections.createIndex("parcel_id", "parcel_id");
        const photos = db.createObjectStore("photos", { keyPath: "sha256" });
        photos.createIndex("inspection_uuid", "inspection_uuid");
      };
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
  }
  return opening;
}

function done(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function finished(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error || new Error("transaction aborted"));
  });
}

export async function get(store, key) {
  const db = await open();
  return done(db.transaction(store).objectStore(store).get(key));
}

export async function all(store, index, value) {
  const db = await open();
  const source = db.transaction(store).objectStore(store);
  return done(index ? source.index(index).getAll(value) : source.getAll());
}

export async function put(store, value, key) {
  const db = await open();
  const tx = db.transaction(store, "readwrite");
  tx.objectStore(store).put(value, key);
  return finished(tx);
}

export async function del(store, key) {
  const db = await open();
  const tx = db.transaction(store, "readwrite");
  tx.objectStore(store).delete(key);
  return finished(tx);
}

/** Replace a store's whole content in one transaction (assignments, templates). */
export async function replaceAll(store, values) {
  const db = await open();
  const tx = db.transaction(store, "readwrite");
  const os = tx.objectStore(store);
  os.clear();
  for (const value of values) os.put(value);
  return finished(tx);
}

/** Apply one pull page: upserts, deletes and the cursor, atomically. */
export async function applyPull(page, cursorKey) {
  const db = await open();
  const tx = db.transaction(["features", "assignments", "templates", "kv"], "readwrite");
  const features = tx.objectStore("features");
  if (page.reset) features.clear();
  for (const [layer, list] of Object.entries(page.features || {})) {
    for (const feature of list) features.put({ key: `${layer}:${feature.id}`, layer, id: feature.id, feature });
  }
  for (const t of page.tombstones || []) features.delete(`${t.layer}:${t.id}`);
  const assignments = tx.objectStore("assignments");
  assignments.clear();
  for (const a of page.assignments || []) assignments.put(a);
  const templates = tx.objectStore("templates");
  templates.clear();
  for (const t of page.templates || []) templates.put(t);
  const kv = tx.objectStore("kv");
  kv.put(page.cursor, cursorKey);
  // The last page says what the inspector's work led to: each inspection's result (by
  // uuid) and each parcel's page (its open violations, notices and history).
  if (page.results) kv.put(Object.fromEntries(page.results.map((r) => [r.uuid, r])), "results");
  const fetchedAt = new Date().toISOString();
  for (const [parcelId, details] of Object.entries(page.parcels || {})) kv.put({ ...details, fetched_at: fetchedAt }, `parcel:${parcelId}`);
  return finished(tx);
}

export const kv = {
  get: (key) => get("kv", key),
  set: (key, value) => put("kv", value, key),
  del: (key) => del("kv", key),
};
