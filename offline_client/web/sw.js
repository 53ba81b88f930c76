// The field app's service worker. The server fills in BUILD (a digest of every app
// file) and SHELL (their URLs), so any change to the app is a new worker that
// precaches the new shell; the old cache is dropped when it takes over.
//
// - App shell (same origin, GET, not /api/): cache first — the app opens with no signal.
// - /field/config.json: network first, the cached copy offline.
// - Basemap tiles (other origins): cache first, kept as viewed, so the last map seen works
//   offline. The pulled data itself lives in IndexedDB, where the app reads it.
// - /api/: never cached here; the app keeps what it pulled in IndexedDB.
const BUILD = "__BUILD__";
const SHELL = ["__SHELL__"];
const SHELL_CACHE = `lateral-field-shell-${BUILD}`;
const TILE_CACHE = "lateral-field-tiles";
const TILE_LIMIT = 2000;

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(SHELL_CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(
        keys.filter((k) => k.startsWith("lateral-field-shell-") && k !== SHELL_CACHE).map((k) => caches.delete(k)),
      ))
      .then(() => self.clients.claim()),
  );
});

// A page that opened while this worker was taking over (or by a reload that bypassed it)
// is not controlled, and would stay so until it is opened again: it asks to be claimed.
self.addEventListener("message", (event) => {
  if (event.data === "claim") event.waitUntil(self.clients.claim());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) {
    if (request.destination === "image") event.respondWith(tile(request));
    return;
  }
  if (url.pathname.startsWith("/api/")) return;
  if (url.pathname === "/field/config.json") {
    event.respondWith(networkFirst(request));
    return;
  }
  if (request.mode === "navigate" && url.pathname.startsWith("/field")) {
    event.respondWith(caches.match("/field/", { cacheName: SHELL_CACHE }).then((hit) => hit || fetch(request)));
    return;
  }
  event.respondWith(
    caches.match(request, { cacheName: SHELL_CACHE, ignoreSearch: true }).then((hit) => hit || fetch(request)),
  );
});

async function networkFirst(request) {
  const cache = await caches.open(SHELL_CACHE);
  try {
    const response = await fetch(request);
    if (response.ok) cache.put(request, response.clone());
    return response;
  } catch (err) {
    const hit = await cache.match(request);
    if (hit) return hit;
    throw err;
  }
}

async function tile(request) {
  const cache = await caches.open(TILE_CACHE);
  const hit = await cache.match(request);
  if (hit) return hit;
  const response = await fetch(request);
  if (response.ok || response.type === "opaque") {
    await cache.put(request, response.clone());
    const keys = await cache.keys();
    for (const old of keys.slice(0, Math.max(0, keys.length - TILE_LIMIT))) await cache.delete(old);
  }
  return response;
}
