// Photos from the camera: hashed in the browser (SHA-256, the server's key for them)
// and kept as blobs in IndexedDB until the server holds them.
import * as db from "./db.js";

export async function sha256Hex(buffer) {
  const digest = await crypto.subtle.digest("SHA-256", buffer);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Store a picked or captured file for an inspection item; returns the photo row. */
export async function addPhoto(file, inspectionUuid, itemId) {
  const buffer = await file.arrayBuffer();
  const sha256 = await sha256Hex(buffer);
  const existing = await db.get("photos", sha256);
  if (existing) return existing;
  const photo = {
    sha256,
    inspection_uuid: inspectionUuid,
    item_id: itemId,
    filename: file.name || `photo-${sha256.slice(0, 8)}.jpg`,
    type: file.type || "application/octet-stream",
    size: buffer.byteLength,
    blob: new Blob([buffer], { type: file.type || "application/octet-stream" }),
    state: "local", // local → stored (server holds it) | rejected (server refused it)
    upload_url: null,
    sent_bytes: 0,
    message: null,
    taken_at: new Date().toISOString(),
  };
  await db.put("photos", photo);
  return photo;
}

export async function photosOf(inspectionUuid) {
  return db.all("photos", "inspection_uuid", inspectionUuid);
}

const urls = new Map();

/** An object URL for a photo's thumbnail, made once per page. */
export function thumbUrl(photo) {
  if (!urls.has(photo.sha256)) urls.set(photo.sha256, URL.createObjectURL(photo.blob));
  return urls.get(photo.sha256);
}
