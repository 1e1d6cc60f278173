// Herald's service worker: shows the browser push notifications Herald sends
// (a question is waiting, a reminder, the question ended, a test) and opens
// the dashboard at the question when one is clicked. It has no fetch handler:
// the dashboard's requests never go through it. Served at /sw.js, scope "/".
//
// Push data (JSON, see the push contract): { v, kind, question?, org?, title,
// body, url, tag, ended? }. Title and body are plain text composed by the
// server; notifications render them as text.

"use strict";

/** What is shown when a push carries nothing readable (every push must show something). */
const FALLBACK = { title: "Herald: something needs you", body: "Open Herald to see what is waiting.", url: "/", kind: "" };
const MAX_TITLE = 200;
const MAX_BODY = 500;

// A new version takes over at once, and the open dashboards with it.
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

/** A short string, or `fallback` when `value` is not a non-empty string. */
function text(value, max, fallback) {
  return typeof value === "string" && value.trim() ? value.slice(0, max) : fallback;
}

/**
 * Only a path on this origin ("/?question=…"); anything else (another origin, "//host",
 * "javascript:", a backslash trick) becomes "/".
 */
function safeUrl(value) {
  if (typeof value !== "string" || !value.startsWith("/") || value.startsWith("//") || value.includes("\\")) return "/";
  try {
    const url = new URL(value, self.location.origin);
    return url.origin === self.location.origin ? `${url.pathname}${url.search}${url.hash}` : "/";
  } catch {
    return "/";
  }
}

/** The push's data as the notification to show; FALLBACK's when it is missing or not JSON. */
function readPush(data) {
  let message = null;
  try {
    message = data ? data.json() : null;
  } catch {
    message = null;
  }
  if (!message || typeof message !== "object" || Array.isArray(message)) return { ...FALLBACK, tag: "" };
  return {
    kind: typeof message.kind === "string" ? message.kind : "",
    title: text(message.title, MAX_TITLE, FALLBACK.title),
    body: text(message.body, MAX_BODY, ""),
    tag: text(message.tag, MAX_TITLE, ""),
    url: safeUrl(message.url),
  };
}

self.addEventListener("push", (event) => {
  const { kind, title, body, tag, url } = readPush(event.data);
  const ended = kind === "ended";
  event.waitUntil(self.registration.showNotification(title, {
    body,
    // Same tag: a later message about the same question (its ending) replaces this one.
    tag: tag || undefined,
    data: { url },
    // Renotify needs a tag; an ending replaces quietly.
    renotify: Boolean(tag) && !ended,
    silent: ended,
  }));
});

/** Opens `url` in one of the dashboard's windows (focused, then navigated), else in a new one. */
async function openDashboard(url) {
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const ours = windows.filter((client) => new URL(client.url).origin === self.location.origin);
  // The focused one first.
  ours.sort((a, b) => Number(b.focused) - Number(a.focused));
  for (const client of ours) {
    try {
      // First, while the click still allows it; it may be refused without a user activation.
      await client.focus();
    } catch {
      // The window gets the question all the same.
    }
    try {
      // Rejects for a window this worker does not control; then the next one, or a new window.
      await client.navigate(url);
      return;
    } catch {
      continue;
    }
  }
  await self.clients.openWindow(url);
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(openDashboard(safeUrl(event.notification.data?.url)));
});
