// The field app: routes, the top bar's sync state, online/offline and the first load.
import * as db from "./db.js";
import { configure, syncNow, wentOffline } from "./sync.js";
import { refreshCounts } from "./outbox.js";
import { describe, loginEndsSoon, subscribe, syncState, update } from "./state.js";
import { clear, h, release } from "./dom.js";
import { renderLogin } from "./views/login.js";
import { renderToday } from "./views/today.js";
import { renderParcel } from "./views/parcel.js";
import { renderInspection } from "./views/inspection.js";
import { renderOutbox } from "./views/outbox.js";

const view = document.getElementById("view");
const pill = document.getElementById("sync-pill");
const banner = document.getElementById("banner");
const outboxCount = document.getElementById("outbox-count");
const offlineNote = document.getElementById("offline-note");

const ROUTES = [
  [/^#\/login$/, (el) => renderLogin(el, { onLoggedIn })],
  [/^#\/today$/, (el) => renderToday(el)],
  [/^#\/parcel\/(\d+)$/, (el, m) => renderParcel(el, Number(m[1]))],
  [/^#\/inspection\/([0-9a-f-]{36})$/, (el, m) => renderInspection(el, m[1])],
  [/^#\/outbox$/, (el) => renderOutbox(el)],
];

let turn = 0; // the latest route(); an older one still drawing is dropped
let shownHash = null; // the route of the screen on show

/**
 * Draw the screen of the current hash. `background`: a redraw nobody asked for (a sync
 * brought fresh data); it waits while the person is filling something in on the screen
 * on show, and is done when they finish (see `waitForThePerson`).
 */
async function route({ background = false } = {}) {
  if (background && deferred()) return;
  const mine = ++turn;
  const token = await db.kv.get("token");
  if (mine !== turn) return;
  const hash = location.hash || "#/today";
  if (!token && hash !== "#/login") {
    location.replace("#/login");
    return;
  }
  for (const link of document.querySelectorAll(".tabs a")) {
    link.classList.toggle("active", hash.startsWith(`#/${link.dataset.tab}`));
  }
  document.body.dataset.route = hash.split("/")[1] || "today";
  for (const [pattern, render] of ROUTES) {
    const match = hash.match(pattern);
    if (match) {
      // Double-buffered: each render draws into its own container off the page, and that
      // replaces the screen on show only once it is whole, so a redraw (a sync finishing,
      // a tap on a link) never blanks the screen. A render overtaken by a newer route()
      // is dropped. A render may return a function to call once its container is on the
      // page and laid out (the map measures its element), told whether it was a redraw.
      const container = h("div", { class: "screen" });
      let shown = null;
      let failure = null;
      try {
        shown = await render(container, match);
      } catch (err) {
        failure = err;
      }
      // Overtaken, or the render sent the tablet elsewhere (its hashchange routes again).
      if (mine !== turn || (location.hash || "#/today") !== hash) {
        release(container);
        if (failure) throw failure;
        return;
      }
      // The person started filling something in while this was drawn: it waits too.
      if (background && deferred()) {
        release(container);
        return;
      }
      if (failure) {
        // Never leave the old screen up as if nothing happened: show what was drawn and say so.
        container.prepend(h("p", { class: "form-error", role: "alert" }, `This screen could not be drawn: ${failure.message || failure}`));
      }
      const redraw = show(container, hash);
      if (typeof shown === "function") shown({ redraw });
      if (failure) throw failure; // and on the console, as any uncaught error
      return;
    }
  }
  location.replace("#/today");
}

/**
 * Put a whole screen on show: a new route starts fresh, at the top; a redraw of the same
 * route keeps what the person made of the screen on show (`kept`). Says whether it was a
 * redraw.
 */
function show(container, hash) {
  const redraw = hash === shownHash;
  const old = view.firstElementChild;
  const state = redraw && old ? kept(old) : null;
  stopWaiting();
  // Opened before the swap, so the page never lays out at the closed height (which
  // would pull its scroll up).
  if (state) for (const [el, s] of keyed(container, state.elements)) if (typeof s.open === "boolean") el.open = s.open;
  view.replaceChildren(container);
  shownHash = hash;
  if (old) release(old); // its map and whatever else it held on window or document
  if (!state) {
    window.scrollTo(0, 0);
    view.focus({ preventScroll: true });
    return redraw;
  }
  for (const [el, s] of keyed(container, state.elements)) {
    el.scrollTop = s.top;
    el.scrollLeft = s.left;
  }
  window.scrollTo(state.scrollX, state.scrollY);
  const focus = state.focus && container.querySelector(keySelector(state.focus.key));
  const target = focus && (state.focus.summary ? focus.querySelector(":scope > summary") : focus);
  (target || view).focus({ preventScroll: true });
  return redraw;
}

// What a redraw keeps of the screen on show. A view names each element whose state is
// the person's with a `data-keep` key, stable across redraws (never its position: the
// new data may add or drop elements before it): a <details> keeps open or closed, a
// scrolling box its scroll, and the focus stays on it (or on its <summary>) if it was
// there; the page keeps its scroll. Anything being typed holds the redraw instead (below).
function kept(screen) {
  const elements = new Map();
  for (const el of screen.querySelectorAll("[data-keep]")) {
    elements.set(el.dataset.keep, { open: el.open, top: el.scrollTop, left: el.scrollLeft });
  }
  const active = document.activeElement;
  const owner = active && screen.contains(active) ? active.closest("[data-keep]") : null;
  const summary = Boolean(owner) && active.matches("summary") && active.parentElement === owner;
  const focus = owner && (active === owner || summary) ? { key: owner.dataset.keep, summary } : null;
  return { elements, focus, scrollX: window.scrollX, scrollY: window.scrollY };
}

function keySelector(key) {
  return `[data-keep="${CSS.escape(key)}"]`;
}

/** [element of `screen`, its kept state] for each key `screen` still has. */
function keyed(screen, elements) {
  const out = [];
  for (const [key, s] of elements) {
    const el = screen.querySelector(keySelector(key));
    if (el) out.push([el, s]);
  }
  return out;
}

// A redraw nobody asked for never throws away what the person is typing: while a field
// of the screen on show is changed and not saved (its value is not the one drawn), or
// has the focus, the redraw waits; a quiet note says newer data is in; once they save,
// cancel or leave the field, the screen is redrawn. A tap to another screen goes at once.
const FIELD = "input:not([type=button]):not([type=submit]):not([type=reset]):not([type=hidden]):not([type=image]), textarea, select, [contenteditable]";
const redrawNote = document.getElementById("redraw-note");
let waiting = null; // { screen, stop } while a redraw waits for the person

function changed(field) {
  if (field.isContentEditable) return false; // no drawn value to compare with: its focus counts
  if (field instanceof HTMLSelectElement) {
    const options = Array.from(field.options);
    if (field.multiple) return options.some((o) => o.selected !== o.defaultSelected);
    let drawn = options.length ? 0 : -1; // without a `selected`, the first option
    options.forEach((o, i) => { if (o.defaultSelected) drawn = i; });
    return field.selectedIndex !== drawn;
  }
  if (field.type === "checkbox" || field.type === "radio") return field.checked !== field.defaultChecked;
  if (field.type === "file") return field.files.length > 0;
  return field.value !== field.defaultValue;
}

/** Is the person filling something in on `screen`? */
function editing(screen) {
  const active = document.activeElement;
  if (active && active !== screen && screen.contains(active) && (active.matches(FIELD) || active.closest("form"))) return true;
  return Array.from(screen.querySelectorAll(FIELD)).some(changed);
}

/** Should a background redraw of the screen on show wait? If so, wait for the person. */
function deferred() {
  const screen = view.firstElementChild;
  if (!screen || (location.hash || "#/today") !== shownHash || !editing(screen)) return false;
  waitForThePerson(screen);
  return true;
}

function waitForThePerson(screen) {
  if (waiting && waiting.screen === screen) return;
  stopWaiting();
  // After anything the person does on the screen (the focus moving, a change, a form
  // saved, cancelled or closed), look again once the page has settled.
  let queued = false;
  const look = () => {
    if (queued) return;
    queued = true;
    setTimeout(() => {
      queued = false;
      if (!waiting || waiting.screen !== screen) return;
      if (editing(screen)) return;
      stopWaiting();
      route({ background: true });
    });
  };
  const events = ["focusout", "change", "input", "submit", "reset", "click"];
  for (const type of events) screen.addEventListener(type, look);
  const observer = new MutationObserver(look);
  observer.observe(screen, { childList: true, subtree: true });
  waiting = {
    screen,
    stop: () => {
      for (const type of events) screen.removeEventListener(type, look);
      observer.disconnect();
    },
  };
  redrawNote.textContent = "Newer data has arrived. This screen updates when you finish.";
  redrawNote.hidden = false;
}

function stopWaiting() {
  if (!waiting) return;
  waiting.stop();
  waiting = null;
  redrawNote.hidden = true;
}

// The service worker keeps the app on the tablet for a day without signal. It installs by
// fetching every file of the app; one fetch lost to a weak signal (or a busy server) makes
// the browser drop that install and not try again until the app is next opened. So a
// failed install is tried again, after 2, 4, 8… seconds, until one takes over.
const WORKER_RETRIES = 6;

async function registerWorker(attempt = 0) {
  if (attempt === 0) {
    // The page may have opened while the worker was taking over (its claim came before
    // this page existed): once a worker is active, a page it does not control asks it to.
    navigator.serviceWorker.ready.then((registration) => {
      if (!navigator.serviceWorker.controller && registration.active) registration.active.postMessage("claim");
      if (registration.active) canWorkOffline();
    });
    navigator.serviceWorker.addEventListener("controllerchange", canWorkOffline);
  }
  const again = (reason) => {
    if (navigator.serviceWorker.controller) return;
    if (attempt < WORKER_RETRIES) setTimeout(() => registerWorker(attempt + 1), 2000 * 2 ** attempt);
    else cannotWorkOffline(reason); // the retries are spent: say so, and keep saying it
  };
  let registration;
  try {
    registration = await navigator.serviceWorker.register("/field/sw.js", { scope: "/field/" });
  } catch (err) {
    console.warn("no service worker yet", err);
    again((err && err.message) || String(err));
    return;
  }
  const worker = registration.installing || registration.waiting || registration.active;
  if (!worker || worker.state === "redundant") {
    again("the browser dropped the app's offline copy while installing it");
    return;
  }
  worker.addEventListener("statechange", () => {
    if (worker.state === "redundant") again("the browser dropped the app's offline copy while installing it");
  });
}

/**
 * The service worker could not be installed, so the app will not open without signal:
 * a lasting message (it stays until a worker takes over), and the next sync tells the
 * superintendent. The usual cause is a certificate the tablet's browser does not trust.
 */
async function cannotWorkOffline(reason) {
  const why = String(reason || "the browser would not install the app's offline copy").slice(0, 300);
  offlineNote.textContent = `This tablet cannot work offline: ${why}. Finished inspections still wait in the ` +
    "outbox and send when there is signal, but without signal the app will not open. Ask the city's IT to check " +
    "that this tablet trusts the server's certificate.";
  offlineNote.hidden = false;
  await db.kv.set("offline_readiness", { ready: false, reason: why });
}

async function canWorkOffline() {
  offlineNote.hidden = true;
  await db.kv.set("offline_readiness", { ready: true, reason: null });
}

async function onLoggedIn() {
  location.hash = "#/today";
  await syncNow(); // the screen redraws itself when the pull is in
}

function showState(s) {
  const { tone, text } = describe(s);
  pill.dataset.tone = tone;
  pill.textContent = text;
  pill.title = text;
  outboxCount.hidden = !(s.waiting + s.problems.length);
  outboxCount.textContent = String(s.waiting + s.problems.length);
  if (s.authExpired) {
    clear(banner).append(
      h("strong", {}, "Your login has expired. "),
      "Nothing is lost: finished inspections stay in the outbox. ",
      h("a", { href: "#/login" }, "Log in again"),
      " to send them.",
    );
    banner.dataset.tone = "bad";
    banner.hidden = false;
  } else if (s.problems.length) {
    const p = s.problems[0];
    const title = p.kind === "conflict" ? "Conflict on a shared feature. " : p.kind === "photo_rejected" ? "A photo was refused. " : "An inspection was not accepted. ";
    clear(banner).append(h("strong", {}, title), p.message || "", " ", h("a", { href: "#/outbox" }, "See the outbox"));
    banner.dataset.tone = "bad";
    banner.hidden = false;
  } else if (loginEndsSoon(s)) {
    clear(banner).append(
      h("strong", {}, `Your login ends on ${loginEndsSoon(s).toLocaleDateString()}. `),
      "Log in again where you have signal before then; finished inspections stay in the outbox. ",
      h("a", { href: "#/login" }, "Log in again"),
    );
    banner.dataset.tone = "warn";
    banner.hidden = false;
  } else {
    banner.hidden = true;
  }
}

async function loadConfig() {
  try {
    const response = await fetch("/field/config.json", { cache: "no-store" });
    const cfg = await response.json();
    await db.kv.set("config", cfg);
    return cfg;
  } catch (_) {
    return (await db.kv.get("config")) || {};
  }
}

async function start() {
  // The skip link focuses the screen without touching the hash the screens are routed by.
  document.querySelector(".skip-link").addEventListener("click", (event) => {
    event.preventDefault();
    document.getElementById("view").focus();
  });
  const cfg = await loadConfig();
  configure(cfg);
  window.lateralConfig = cfg;
  subscribe(showState);
  let phase = syncState.phase;
  subscribe((s) => {
    // Fresh data after a sync: redraw the screens showing pulled data, never the
    // checklist being filled in; a redraw waits for anything being typed (route()).
    if (phase === "syncing" && s.phase !== "syncing" && /^(today|outbox|parcel)$/.test(document.body.dataset.route)) route({ background: true });
    phase = s.phase;
  });
  pill.addEventListener("click", () => (syncState.online ? syncNow() : (location.hash = "#/outbox")));
  window.addEventListener("online", () => {
    update({ online: true });
    syncNow();
  });
  window.addEventListener("offline", wentOffline);
  window.addEventListener("hashchange", () => route());
  document.addEventListener("lateral:changed", () => syncNow({ pull: false }));
  update({ online: navigator.onLine, loginEndsAt: (await db.kv.get("token_expires_at")) || null });
  await refreshCounts();
  if ("serviceWorker" in navigator) registerWorker();
  else cannotWorkOffline("this browser offers no service workers here (the app must be served over HTTPS)");
  await route();
  if (await db.kv.get("token")) syncNow();
  // Keep trying while something waits: a tablet wakes up in signal without an event.
  setInterval(() => {
    if (navigator.onLine && syncState.phase !== "syncing" && syncState.waiting) syncNow({ pull: false });
  }, 60000);
}

window.lateralField = { syncNow, state: syncState, route: () => route() };
start();
