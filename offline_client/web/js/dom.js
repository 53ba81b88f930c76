// A few DOM helpers: build elements without HTML strings (server text is never markup).
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

export function humanize(text) {
  const s = String(text ?? "").replace(/_/g, " ");
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export function shortDate(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return d.toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

/** ISO 8601 with the device's offset, as the protocol asks (2026-11-30T14:02:11-06:00). */
export function isoLocal(date = new Date()) {
  const pad = (n) => String(Math.floor(Math.abs(n))).padStart(2, "0");
  const offset = -date.getTimezoneOffset();
  const sign = offset >= 0 ? "+" : "-";
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}` +
    `${sign}${pad(offset / 60)}:${pad(offset % 60)}`;
}

export function uuid4() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A due date ("2026-12-15") as the inspector reads it: "Tue, Dec 15". */
export function dueDate(isoDay) {
  if (!isoDay) return "";
  const [y, m, d] = isoDay.split("-").map(Number);
  const day = new Date(y, m - 1, d);
  return day.toLocaleDateString(undefined, { weekday: "short", month: "short", day: "numeric" });
}

// What a screen holds beyond its elements (a Leaflet map, a listener on window or
// document) is let go when the screen is taken off the page or dropped undrawn (main.js).
const releasers = new Set();

/** Call `fn` when the screen holding `node` is released; `node` must stay in that screen. */
export function onRelease(node, fn) {
  releasers.add({ node, fn });
}

/** Run and forget every release registered on `root` or inside it. */
export function release(root) {
  for (const entry of releasers) {
    if (!root.contains(entry.node)) continue;
    releasers.delete(entry);
    try {
      entry.fn();
    } catch (err) {
      console.error("releasing a screen:", err);
    }
  }
}
