// Log in once: the token is kept on the device (IndexedDB) until it expires or is revoked.
import * as db from "../db.js";
import { ApiError, Offline, login } from "../api.js";
import { update } from "../state.js";
import { h } from "../dom.js";

export async function renderLogin(view, { onLoggedIn }) {
  const user = await db.kv.get("user");
  const message = h("p", { class: "form-error", role: "alert", hidden: true });
  const username = h("input", { id: "username", name: "username", autocomplete: "username", autocapitalize: "none", required: true, value: user ? user.username : "" });
  const password = h("input", { id: "password", name: "password", type: "password", autocomplete: "current-password", required: true });
  const button = h("button", { class: "btn primary big", type: "submit" }, "Log in");
  const form = h("form", { class: "login-card card", onsubmit: submit },
    h("img", { src: "/field/icons/icon-192.png", alt: "", width: 72, height: 72 }),
    h("h1", {}, "Lateral Field"),
    h("p", { class: "muted" }, "Log in once with signal. The tablet keeps you logged in and works offline all day."),
    h("label", { for: "username" }, "User name"), username,
    h("label", { for: "password" }, "Password"), password,
    message, button);
  view.append(h("section", { class: "login-page" }, form));

  async function submit(event) {
    event.preventDefault();
    button.disabled = true;
    message.hidden = true;
    try {
      await db.kv.del("token");
      const device = `Field tablet (${navigator.platform || "browser"})`;
      const data = await login(username.value.trim(), password.value, device);
      const previous = await db.kv.get("user");
      if (previous && previous.username !== data.user.username) await db.kv.del("pull_cursor");
      await db.kv.set("token", data.token);
      // The token ends on this day however often it is used (TOKEN_MAX_AGE_DAYS): the
      // top bar warns a week ahead, so the inspector logs in again where there is signal.
      await db.kv.set("token_expires_at", data.expires_at || null);
      update({ loginEndsAt: data.expires_at || null });
      await db.kv.set("user", { ...data.user, username: username.value.trim() });
      update({ authExpired: false });
      await onLoggedIn();
    } catch (err) {
      message.textContent = err instanceof Offline
        ? "No connection to the server. Logging in needs signal once; try again where you have it."
        : err instanceof ApiError ? err.message : `Could not log in: ${err.message}`;
      message.hidden = false;
    } finally {
      button.disabled = false;
    }
  }
}
