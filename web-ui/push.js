// Browser push for the dashboard: registering the service worker (sw.js) for a
// signed-in person, the pieces the Notifications page needs to turn push on
// and off for this browser (its subscription, the server's key, a name for
// the device), and forgetting this browser when the person signs out.
// Nothing here draws anything.

import { api } from "./dom.js";

const SCRIPT = "/sw.js";
/** How long the browser may take to subscribe before the page says its push service did not answer. */
export const SUBSCRIBE_TIMEOUT_MS = 30_000;
/** How long the service worker may take to become active. */
const READY_TIMEOUT_MS = 10_000;

/** Whether this browser can receive push notifications at all (service workers, Push API, notifications). */
export const pushSupported = () => "serviceWorker" in navigator && "PushManager" in window && "Notification" in window
  && Boolean(window.crypto?.subtle);

let registering = null;

/**
 * Registers the service worker (once per page). Quiet: a browser without service workers is
 * skipped, and a failure (a private window, an old browser) is only logged at debug level.
 * Resolves to the registration, or null.
 */
export function registerWorker() {
  if (!("serviceWorker" in navigator)) return Promise.resolve(null);
  registering ??= navigator.serviceWorker.register(SCRIPT, { scope: "/" }).catch((error) => {
    console.debug("Herald: the service worker was not registered:", error?.message ?? error);
    registering = null; // the next call tries again
    return null;
  });
  return registering;
}

/** `promise`, or a rejection with an Error named `name` (TimeoutError) after `ms`. */
function within(promise, ms, message, name = "TimeoutError") {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(message), { name })), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

/**
 * On signing out: this browser stops receiving the person's notifications (their device row is
 * deleted and the subscription undone), so whoever uses it next does not see them. Bounded:
 * signing out never waits more than a few seconds for it; failures are ignored.
 */
export async function forgetThisBrowser() {
  const work = (async () => {
    const subscription = await currentSubscription();
    if (!subscription) return;
    const hash = await sha256Hex(subscription.endpoint);
    const { devices = [] } = await api("GET", "/me/push");
    const row = devices.find((d) => d.endpoint_hash === hash);
    if (row) await api("DELETE", `/me/push/devices/${encodeURIComponent(row.id)}`);
    await subscription.unsubscribe();
  })();
  await within(work, 3000, "Forgetting this browser took too long.").catch((error) => {
    console.debug("Herald: this browser's push subscription was not removed:", error?.message ?? error);
  });
}

/** The active service worker registration (registering it if needed). */
export async function activeRegistration() {
  if (!(await registerWorker()) && !(await navigator.serviceWorker.getRegistration("/"))) {
    throw new Error("Herald's service worker could not be installed in this browser");
  }
  return within(navigator.serviceWorker.ready, READY_TIMEOUT_MS, "Herald's service worker did not start", "WorkerTimeoutError");
}

/** This browser's push subscription, or null (also when there is no registration yet). */
export async function currentSubscription() {
  if (!pushSupported()) return null;
  const registration = await navigator.serviceWorker.getRegistration("/");
  return (await registration?.pushManager.getSubscription()) ?? null;
}

/** Bytes of a base64url string (padding optional). */
export function fromBase64Url(text) {
  const b64 = String(text).replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** Whether two keys (ArrayBuffer or typed array) hold the same bytes. */
export function sameBytes(a, b) {
  if (!a || !b) return false;
  const bytes = (k) => (k instanceof ArrayBuffer ? new Uint8Array(k) : new Uint8Array(k.buffer, k.byteOffset, k.byteLength));
  const [x, y] = [bytes(a), bytes(b)];
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** SHA-256 of `text` (UTF-8), as lowercase hex: how Herald names an endpoint in its device list. */
export async function sha256Hex(text) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Subscribes this browser with Herald's public key: an existing subscription made with another
 * key is replaced (Herald could not send to it). Returns { subscription, created } (`created`:
 * made now, so the caller can undo it). A browser that does not answer in time is a TimeoutError;
 * a subscription that arrives after that is undone.
 */
export async function subscribe(publicKey) {
  const registration = await activeRegistration();
  const key = fromBase64Url(publicKey);
  const existing = await registration.pushManager.getSubscription();
  if (existing && sameBytes(existing.options?.applicationServerKey, key)) return { subscription: existing, created: false };
  if (existing) await existing.unsubscribe();
  const pending = registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  try {
    return { subscription: await within(pending, SUBSCRIBE_TIMEOUT_MS, "The browser's push service did not answer."), created: true };
  } catch (error) {
    // Too late: the person was told it failed, so a subscription arriving now is undone.
    if (error.name === "TimeoutError") pending.then((late) => late.unsubscribe()).catch(() => {});
    throw error;
  }
}

/** Whether `subscription` was made with `publicKey` (base64url). */
export function madeWith(subscription, publicKey) {
  try {
    return sameBytes(subscription?.options?.applicationServerKey, fromBase64Url(publicKey));
  } catch {
    return false;
  }
}

/** "Chrome on Linux", "Firefox on Android", "Safari on macOS": this browser, for the device list. */
export function deviceName() {
  const ua = navigator.userAgent;
  const hints = navigator.userAgentData;
  const brands = (hints?.brands ?? []).map((b) => b.brand);
  const browser = brands.find((b) => /^(Microsoft Edge|Opera|Brave|Vivaldi)$/.test(b))
    ?? (brands.includes("Google Chrome") ? "Chrome" : null)
    ?? (brands.includes("Chromium") ? "Chromium" : null)
    ?? (/Edg\//.test(ua) ? "Microsoft Edge"
      : /OPR\//.test(ua) ? "Opera"
        : /Firefox\//.test(ua) ? "Firefox"
          : /Chrome\//.test(ua) ? "Chrome"
            : /Safari\//.test(ua) ? "Safari" : "A browser");
  const platform = hints?.platform || (/Android/.test(ua) ? "Android"
    : /iPhone|iPad|iPod/.test(ua) ? "iOS"
      : /Mac OS X/.test(ua) ? "macOS"
        : /Windows/.test(ua) ? "Windows"
          : /CrOS/.test(ua) ? "ChromeOS"
            : /Linux/.test(ua) ? "Linux" : "");
  return (platform ? `${browser} on ${platform}` : browser).slice(0, 80);
}
