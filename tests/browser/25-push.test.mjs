// Browser push, in real Chromium: the dashboard's service worker (sw.js)
// showing a push about a real waiting question, an ending with the same tag
// replacing it quietly, a click opening the inbox at that question, and the
// answer given there recorded as answered through push; the
// Notifications page's "Notify me on this device" switch (an error sentence
// when the browser cannot subscribe, the explanation when notifications are
// blocked, and, with a stand-in push service, the device added, marked "this
// browser", turned off, and removed after asking once more; Herald refusing
// it said as text and the subscription undone; a subscription made with
// another server key replaced; signing out removing it); the preferences'
// Browser push choice saved and still there after a reload.
//
// Push messages reach the worker through the DevTools protocol
// (ServiceWorker.deliverPushMessage): no push service is involved.

import { strict as assert } from "node:assert";
import { createECDH, createHash } from "node:crypto";
import { after, before, test } from "node:test";
import {
  abortCalls, description, elicitation, env, escapeRegExp, launch, newContext, openInbox, screenshot, signInByApi, startCall, waitForCard,
} from "./lib.mjs";

let browser;
let ownBefore;
const stamp = Date.now().toString(36);
/** Where the stand-in push service's endpoints point (nothing listens on port 9). */
const STUB_PREFIX = "http://127.0.0.1:9/push/";
const SWITCH = "Notify me on this device";
/** Endpoint hashes of the subscriptions the stand-in made (their rows are removed in `after`). */
const made = new Set();

/** The REST API as the signed-in person of `context` (a session, not the agent's token). */
async function asPerson(context, method, path, data) {
  const response = await context.request.fetch(`${env.url}/api/v1${path}`, {
    method, data, headers: { origin: env.url },
  });
  const text = await response.text();
  return { status: response.status(), body: text ? JSON.parse(text) : null };
}

const sha256 = (text) => createHash("sha256").update(text).digest("hex");

before(async () => {
  browser = await launch();
  const context = await newContext(browser);
  await signInByApi(context);
  const own = await asPerson(context, "GET", "/me/notifications");
  assert.equal(own.status, 200, JSON.stringify(own.body));
  ownBefore = own.body.own;
  await context.close();
});

after(async () => {
  abortCalls();
  if (browser) {
    const context = await newContext(browser);
    await signInByApi(context);
    if (ownBefore) await asPerson(context, "PUT", "/me/notifications", ownBefore);
    // Every device row this file's browsers made.
    const { body } = await asPerson(context, "GET", "/me/push");
    for (const device of body?.devices ?? []) {
      if (made.has(device.endpoint_hash)) await asPerson(context, "DELETE", `/me/push/devices/${device.id}`);
    }
    await context.close();
  }
  await browser?.close();
});

/** Collects what the browser reports as going wrong on `page`: console errors, page errors. */
function watchForErrors(page) {
  const errors = [];
  page.on("console", (message) => { if (message.type() === "error") errors.push(`console: ${message.text()}`); });
  page.on("pageerror", (error) => errors.push(`page error: ${error.message}`));
  return errors;
}

/** The notifications the service worker shows, as the page's registration lists them. */
const shownNotifications = (page) => page.evaluate(async () => {
  const registration = await navigator.serviceWorker.ready;
  return (await registration.getNotifications()).map((n) => ({
    title: n.title, body: n.body, tag: n.tag, data: n.data, renotify: n.renotify, silent: n.silent,
  }));
});

/** Polls `read()` until `ok(value)`, at most `ms`; returns the last value. */
async function eventually(read, ok, ms = 5_000) {
  const until = Date.now() + ms;
  let value = await read();
  while (!ok(value) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}

/** The Notifications page, once its "This device" part has read the browser and Herald. */
async function openNotifications(context) {
  const page = await context.newPage();
  await page.goto(`${env.url}/notifications`);
  await notificationsReady(page);
  return page;
}

/** Waits until the Notifications page has drawn "This device" from the browser's state. */
async function notificationsReady(page) {
  await page.getByRole("heading", { name: "Notifications", level: 1 }).waitFor();
  await page.getByRole("region", { name: "This device" }).getByRole("switch", { name: SWITCH }).waitFor();
  // Its help line says On or Off once the permission, the subscription and Herald's list are read.
  await page.waitForFunction(() => /^(On|Off)\b/.test(document.querySelector(".this-device .help")?.textContent ?? ""));
}

// ---------------------------------------------------------------------------------------------
// a. The service worker

test("Browser push: the service worker shows a question's push, an ending replaces it, a click opens the question, answered through push", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  const page = await openInbox(context);
  const errors = watchForErrors(page);

  // The dashboard registered the worker itself, for the whole origin, and it controls the page.
  const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
  assert.equal(scope, `${env.url}/`);
  await page.waitForFunction(() => navigator.serviceWorker.controller?.scriptURL.endsWith("/sw.js"));
  await context.grantPermissions(["notifications"], { origin: env.url });
  const worker = context.serviceWorkers().find((w) => w.url() === `${env.url}/sw.js`);
  assert.ok(worker, `the worker: ${context.serviceWorkers().map((w) => w.url())}`);

  const cdp = await context.newCDPSession(page);
  const registrations = [];
  cdp.on("ServiceWorker.workerRegistrationUpdated", (event) => registrations.push(...event.registrations));
  await cdp.send("ServiceWorker.enable");
  const ours = await eventually(() => registrations.find((r) => r.scopeURL === `${env.url}/` && !r.isDeleted), Boolean);
  assert.ok(ours, `a registration for ${env.url}/: ${JSON.stringify(registrations)}`);

  // Headless Chromium's getNotifications() can lose a notification that is being shown at that
  // very moment (about one push in ten when the page polled meanwhile): the worker's
  // showNotification is counted (wrapped, still called), and the page looks only once the push
  // event has shown its notification.
  await worker.evaluate(() => {
    self.__shown = 0;
    const show = self.registration.showNotification.bind(self.registration);
    self.registration.showNotification = (...args) => show(...args).finally(() => { self.__shown += 1; });
  });
  const shownCount = () => worker.evaluate(() => self.__shown);
  /** Delivers `message` (JSON, or a string as it is) as a push, and waits until the worker has shown it. */
  const push = async (message) => {
    const before = await shownCount();
    await cdp.send("ServiceWorker.deliverPushMessage", {
      origin: env.url, registrationId: ours.registrationId, data: typeof message === "string" ? message : JSON.stringify(message),
    });
    assert.equal(await eventually(shownCount, (n) => n > before), before + 1, "the push event showed a notification");
  };

  // A real waiting question, and the push Herald sends about it (the contract's shape).
  const call = startCall("deploy", { service: `push-${stamp}`, environment: "staging" });
  const { id } = await waitForCard(page, `Deploy push-${stamp} to staging?`);
  const record = await elicitation(id);
  const server = record.server?.name ?? env.server;
  const tag = `herald-question-${id}`;
  const url = `/?question=${id}&via=push`;
  await push({
    v: 1, kind: "question", question: id, org: env.org, title: `${server} is asking you something`,
    body: `deploy: ${record.message}`, url, tag,
  });
  assert.deepEqual(await shownNotifications(page), [{
    title: `${server} is asking you something`, body: `deploy: ${record.message}`, tag,
    data: { url }, renotify: true, silent: false,
  }]);

  // The question ended: the same tag replaces it, quietly.
  await push({
    v: 1, kind: "ended", question: id, org: env.org, title: `${server}'s question was answered`,
    body: "Nothing more to do.", url, tag, ended: "answered",
  });
  assert.deepEqual(await shownNotifications(page), [{
    title: `${server}'s question was answered`, body: "Nothing more to do.", tag,
    data: { url }, renotify: false, silent: true,
  }], "one notification with that tag: the ending replaced the question");

  // A click. No DevTools command clicks a notification, so the worker is handed a script-made
  // notificationclick for the one shown. Such an event cannot be waited on: the worker's
  // event.waitUntil throws InvalidStateError after its handler has started the work, which is
  // reported (and kept from the console) here. The question is in fact still waiting (only the
  // worker was told it ended), so the inbox has its card to focus.
  const navigations = [];
  page.on("framenavigated", (frame) => { if (frame === page.mainFrame()) navigations.push(frame.url()); });
  const reported = await worker.evaluate(async () => {
    const uncaught = [];
    const keep = (event) => { uncaught.push(event.message); event.preventDefault(); };
    self.addEventListener("error", keep);
    const [notification] = await self.registration.getNotifications();
    self.dispatchEvent(new NotificationEvent("notificationclick", { notification }));
    self.removeEventListener("error", keep);
    return uncaught;
  });
  assert.ok(reported.every((m) => /waitUntil.*script constructed/i.test(m)), reported.join(" | "));
  // The dashboard tab went to the question, and the inbox focuses its card.
  await page.waitForFunction((qid) => document.activeElement?.getAttribute("aria-labelledby") === `q-${qid}-title`, id);
  assert.ok(navigations.includes(`${env.url}${url}`), navigations.join(" | "));
  assert.equal(new URL(page.url()).search, "", "the link's parameters leave the address");
  assert.equal(context.pages().length, 1, "no new window: the open dashboard was used");
  assert.deepEqual(await eventually(() => shownNotifications(page), (list) => !list.length), [], "the clicked notification is closed");

  // What a push without readable data shows: Herald's generic words, leading to the inbox.
  await push("not json");
  assert.deepEqual((await shownNotifications(page)).map((n) => [n.title, n.data]), [["Herald: something needs you", { url: "/" }]]);
  // And a url elsewhere is not followed.
  await push({ v: 1, kind: "test", title: "Elsewhere", body: "", url: "https://example.com/", tag: "herald-test" });
  assert.deepEqual((await shownNotifications(page)).find((n) => n.tag === "herald-test")?.data, { url: "/" });

  // Answered in the tab the notification opened: recorded as answered through push.
  const card = page.locator(`[aria-labelledby="q-${id}-title"]`);
  await card.getByLabel("Confirm deploy").check();
  await card.getByRole("button", { name: "Submit" }).click();
  assert.equal((await call.text()).text, `Deployed push-${stamp} to staging`);
  assert.deepEqual(page.framesSent.filter((m) => m.type === "respond").map((m) => [m.id, m.via]), [[id, "push"]]);
  assert.equal((await elicitation(id)).answered_via, "push");
  assert.deepEqual(errors, [], "no console errors on the page");
  await context.close();
});

// ---------------------------------------------------------------------------------------------
// b. The switch

test("Browser push: when the browser cannot subscribe, the switch says so in a sentence and adds no device", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  await context.grantPermissions(["notifications"], { origin: env.url });
  const before = await asPerson(context, "GET", "/me/push");
  assert.equal(before.status, 200, JSON.stringify(before.body));
  assert.equal(before.body.available, true);
  assert.match(before.body.public_key, /^[A-Za-z0-9_-]{86,88}$/, "an uncompressed P-256 point, base64url");

  const page = await openNotifications(context);
  const errors = watchForErrors(page);
  let posts = 0;
  page.on("request", (r) => { if (r.method() === "POST" && r.url().endsWith("/api/v1/me/push/devices")) posts += 1; });
  const toggle = page.getByRole("switch", { name: SWITCH });
  assert.equal(await toggle.isChecked(), false);
  await toggle.click();
  // A browser context of this kind (Playwright's, like a private window) has no push service:
  // Chromium refuses with an AbortError at once.
  const said = page.locator(".this-device .error");
  await said.filter({ hasText: /could not subscribe to its push service/ }).waitFor();
  assert.match(await said.innerText(), /in private windows, which cannot receive push notifications/);
  assert.match(await description(toggle), /could not subscribe to its push service/, "the switch is described by the sentence");
  assert.equal(await toggle.isChecked(), false, "the switch is back off");
  assert.equal(await toggle.isDisabled(), false);
  assert.equal(await toggle.evaluate((n) => n === document.activeElement), true, "focus stays on the switch");
  assert.equal(posts, 0, "nothing was sent to Herald");
  const after = await asPerson(context, "GET", "/me/push");
  assert.equal(after.body.devices.length, before.body.devices.length, "no device row");
  // Chromium says why in the console itself; nothing else may.
  assert.deepEqual(errors.filter((e) => !/does not support the Push API in incognito mode/.test(e)), []);
  await context.close();

  // Notifications blocked for the site (headless Chromium denies an ungranted request): the
  // switch says how to allow them.
  const blocked = await newContext(browser);
  await signInByApi(blocked);
  const page2 = await openNotifications(blocked);
  const toggle2 = page2.getByRole("switch", { name: SWITCH });
  await toggle2.click();
  await page2.locator(".this-device .error").filter({ hasText: /blocks notifications from Herald/ }).waitFor();
  assert.match(await page2.locator(".this-device .error").innerText(), /site's settings .* set Notifications to Allow/);
  assert.equal(await toggle2.isChecked(), false);
  assert.equal(await page2.evaluate(() => Notification.permission), "denied");
  await blocked.close();
});

// Stands in for the browser's push service: subscribe and getSubscription hand out a
// subscription-like object with a loopback endpoint and real keys (a fresh P-256 public key and
// 16 random bytes), kept in localStorage so every page of the context sees the same one.
// `previousKey` (base64url) seeds a subscription made with another server key.
const PUSH_STUB = ({ prefix, previousKey }) => {
  const KEY = "herald-test.push-subscription";
  const b64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const bytes = (text) => Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
  const calls = { subscribe: 0, unsubscribe: 0 };
  window.__pushStub = calls;
  const wrap = (stored) => ({
    endpoint: stored.json.endpoint,
    expirationTime: null,
    options: { userVisibleOnly: true, applicationServerKey: bytes(stored.serverKey).buffer },
    getKey: (name) => bytes(stored.json.keys[name]).buffer,
    toJSON: () => structuredClone(stored.json),
    unsubscribe: async () => { calls.unsubscribe += 1; localStorage.removeItem(KEY); return true; },
  });
  const make = async (serverKey, kind = "") => {
    const pair = await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"]);
    const raw = await crypto.subtle.exportKey("raw", pair.publicKey); // 65 bytes, uncompressed
    const stored = {
      serverKey,
      json: {
        endpoint: `${prefix}${kind}${crypto.randomUUID()}`,
        expirationTime: null,
        keys: { p256dh: b64url(raw), auth: b64url(crypto.getRandomValues(new Uint8Array(16))) },
      },
    };
    localStorage.setItem(KEY, JSON.stringify(stored));
    return stored;
  };
  const stored = () => JSON.parse(localStorage.getItem(KEY) ?? "null");
  PushManager.prototype.getSubscription = async function getSubscription() {
    const s = stored();
    return s ? wrap(s) : null;
  };
  PushManager.prototype.subscribe = async function subscribe(options) {
    if (Notification.permission !== "granted") throw new DOMException("Registration failed - permission denied", "NotAllowedError");
    calls.subscribe += 1;
    const key = b64url(options.applicationServerKey);
    const s = stored();
    if (s && s.serverKey !== key) throw new DOMException("A subscription with a different applicationServerKey already exists.", "InvalidStateError");
    return wrap(s ?? await make(key));
  };
  if (previousKey && !localStorage.getItem(`${KEY}.seeded`)) {
    // Once per context; the test awaits this before opening the page that reads it.
    localStorage.setItem(`${KEY}.seeded`, "yes");
    window.__pushStubSeeded = make(previousKey, "old-");
  }
};

test("Browser push: turning the switch on adds this browser to the devices; off and Remove (asked once more) take it away", { timeout: 90_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  await context.grantPermissions(["notifications"], { origin: env.url });
  await context.addInitScript(PUSH_STUB, { prefix: `${STUB_PREFIX}${stamp}-` });
  const page = await openNotifications(context);
  const errors = watchForErrors(page);
  const posted = [];
  page.on("request", (r) => {
    if (r.method() === "POST" && r.url().endsWith("/api/v1/me/push/devices")) posted.push(r.postDataJSON());
  });
  const toggle = page.getByRole("switch", { name: SWITCH });
  const devices = page.getByRole("region", { name: "Devices" });
  const mine = devices.locator("li[data-this-browser]");
  assert.equal(await toggle.isChecked(), false);
  assert.equal(await mine.count(), 0);

  // On: subscribed with Herald's key, and the subscription posted with a name for the browser.
  await toggle.click();
  await page.getByRole("status").filter({ hasText: "Notifications are on for this browser." }).waitFor();
  await mine.waitFor();
  assert.equal(await toggle.isChecked(), true);
  assert.equal(posted.length, 1);
  const [{ subscription, name }] = posted;
  made.add(sha256(subscription.endpoint));
  assert.ok(subscription.endpoint.startsWith(`${STUB_PREFIX}${stamp}-`), subscription.endpoint);
  assert.match(subscription.keys.p256dh, /^[A-Za-z0-9_-]{87}$/, "65 bytes, base64url");
  assert.match(subscription.keys.auth, /^[A-Za-z0-9_-]{22}$/, "16 bytes, base64url");
  assert.match(name, / on Linux$/, name);
  const row = await mine.innerText();
  assert.match(row, new RegExp(`^${escapeRegExp(name)}\\s*this browser`));
  assert.match(row, /Push service\s*127\.0\.0\.1/);
  assert.match(row, /Added\s*\S/);
  assert.match(row, /Last sent\s*never/);
  const listed = await asPerson(context, "GET", "/me/push");
  const device = listed.body.devices.find((d) => d.endpoint_hash === sha256(subscription.endpoint));
  assert.ok(device, JSON.stringify(listed.body));
  assert.equal(device.name, name);
  assert.equal(await page.evaluate(() => window.__pushStub.subscribe), 1);

  // The state is the browser's: after a reload the switch is still on, the row still this browser's.
  await page.reload();
  await notificationsReady(page);
  assert.equal(await toggle.isChecked(), true);
  await mine.waitFor();
  await screenshot(page, "notifications-push.png");

  // A test to it: nothing listens on port 9, so the page says the test did not get through.
  await mine.getByRole("button", { name: `Send a test to ${name} (this browser)` }).click();
  await page.getByRole("alert").filter({ hasText: new RegExp(`^The test did not reach ${escapeRegExp(name)} \\(this browser\\): `) }).waitFor();
  assert.equal(await mine.getByRole("button", { name: /^Send a test to / }).evaluate((b) => b === document.activeElement), true,
    "focus back on Send a test");

  // Off: the row is deleted and the browser unsubscribed.
  await toggle.click();
  await page.getByRole("status").filter({ hasText: "Notifications are off for this browser." }).waitFor();
  await mine.waitFor({ state: "detached" });
  assert.equal(await toggle.isChecked(), false);
  assert.equal(await page.evaluate(() => window.__pushStub.unsubscribe), 1);
  let now = await asPerson(context, "GET", "/me/push");
  assert.equal(now.body.devices.some((d) => d.id === device.id), false, "the row is gone from Herald");

  // On again (a new subscription), then Remove from the list: it asks once more, Keep keeps it.
  await toggle.click();
  await mine.waitFor();
  const again = posted.at(-1).subscription.endpoint;
  made.add(sha256(again));
  assert.notEqual(again, subscription.endpoint);
  const remove = mine.getByRole("button", { name: `Remove ${name} (this browser)` });
  assert.match(await remove.getAttribute("class"), /\bdanger\b/, "styled as destructive");
  await remove.click();
  const ask = mine.getByRole("group", { name: `Really remove ${name} (this browser)? Herald stops sending notifications to it at once.` });
  await ask.waitFor();
  assert.equal(await ask.getByRole("button", { name: "Keep" }).evaluate((b) => b === document.activeElement), true, "Keep has focus");
  await ask.getByRole("button", { name: "Keep" }).click();
  await remove.waitFor();
  assert.equal(await mine.count(), 1, "kept");
  await remove.click();
  await ask.getByRole("button", { name: "Remove", exact: true }).click();
  await page.getByRole("status").filter({ hasText: `${name} (this browser) removed.` }).waitFor();
  await mine.waitFor({ state: "detached" });
  assert.equal(await toggle.isChecked(), false, "removing this browser turns it off here");
  assert.equal(await page.evaluate(() => localStorage.getItem("herald-test.push-subscription")), null, "unsubscribed");
  now = await asPerson(context, "GET", "/me/push");
  assert.equal(now.body.devices.some((d) => d.endpoint_hash === sha256(again)), false);
  assert.deepEqual(errors, [], "no console errors on the page");
  await context.close();
});

test("Browser push: a subscription made with another server key is replaced when the switch is turned on; signing out removes it", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  await context.grantPermissions(["notifications"], { origin: env.url });
  // A key of another Herald (any valid P-256 point will do: a fresh one).
  const otherKey = createECDH("prime256v1").generateKeys().toString("base64url");
  await context.addInitScript(PUSH_STUB, { prefix: `${STUB_PREFIX}${stamp}-`, previousKey: otherKey });
  const page = await context.newPage();
  await page.goto(`${env.url}/`);
  await page.waitForFunction(() => window.__pushStubSeeded !== undefined);
  await page.evaluate(() => window.__pushStubSeeded);
  await page.close();
  const notifications = await openNotifications(context);
  const toggle = notifications.getByRole("switch", { name: SWITCH });
  assert.equal(await toggle.isChecked(), false, "a subscription Herald cannot send to is off");
  const posted = [];
  notifications.on("request", (r) => {
    if (r.method() === "POST" && r.url().endsWith("/api/v1/me/push/devices")) posted.push(r.postDataJSON());
  });
  await toggle.click();
  await notifications.locator("li[data-this-browser]").waitFor();
  assert.equal(await toggle.isChecked(), true);
  assert.deepEqual(await notifications.evaluate(() => window.__pushStub), { subscribe: 1, unsubscribe: 1 }, "unsubscribed, then subscribed again");
  assert.equal(posted.length, 1);
  made.add(sha256(posted[0].subscription.endpoint));
  assert.ok(posted[0].subscription.endpoint.startsWith(`${STUB_PREFIX}${stamp}-`) && !posted[0].subscription.endpoint.includes("-old-"),
    `a new subscription, not the old one: ${posted[0].subscription.endpoint}`);

  // Signing out ends this browser's notifications with the session: its row goes, and the subscription.
  await notifications.getByRole("button", { name: "Sign out" }).click();
  await notifications.waitForURL(`${env.url}/login`);
  assert.equal(await notifications.evaluate(() => localStorage.getItem("herald-test.push-subscription")), null, "unsubscribed");
  const other = await newContext(browser);
  await signInByApi(other);
  const { body } = await asPerson(other, "GET", "/me/push");
  assert.equal(body.devices.some((d) => d.endpoint_hash === sha256(posted[0].subscription.endpoint)), false, JSON.stringify(body));
  await other.close();
  await context.close();
});

test("Browser push: when Herald refuses the browser (too many devices), the switch says why and the subscription is undone", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  await context.grantPermissions(["notifications"], { origin: env.url });
  await context.addInitScript(PUSH_STUB, { prefix: `${STUB_PREFIX}${stamp}-refused-` });
  const page = await openNotifications(context);
  // Herald's answer is stood in for: making ten devices for real would only test the count.
  await page.route((url) => url.pathname === "/api/v1/me/push/devices", (route) => (route.request().method() === "POST"
    ? route.fulfill({
      status: 409,
      contentType: "application/problem+json",
      body: JSON.stringify({ type: "https://herald.dev/problems/too-many-devices", title: "Conflict", status: 409, detail: "<b>10 devices</b> is the most a person can have" }),
    })
    : route.fallback()));
  const toggle = page.getByRole("switch", { name: SWITCH });
  await toggle.click();
  const said = page.locator(".this-device .error");
  await said.filter({ hasText: "Herald could not add this browser: <b>10 devices</b> is the most a person can have" }).waitFor();
  assert.equal(await page.locator(".this-device b").count(), 0, "the server's words as text");
  assert.equal(await toggle.isChecked(), false);
  assert.deepEqual(await page.evaluate(() => window.__pushStub), { subscribe: 1, unsubscribe: 1 }, "the new subscription was undone");
  assert.equal(await page.locator("li[data-this-browser]").count(), 0);
  await context.close();
});

// ---------------------------------------------------------------------------------------------
// c. The preference

test("Browser push: the choice in Your choices is saved, and still there after a reload", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  const page = await openNotifications(context);
  const form = page.getByRole("form", { name: "Your choices" });
  const choice = form.getByLabel("Browser push notifications to my devices");
  assert.equal(await choice.isDisabled(), false, "push is available on this Herald");
  assert.deepEqual(await choice.locator("option").allInnerTexts(), ["Organisation's default", "On", "Off"]);

  await choice.selectOption("off");
  await form.getByRole("button", { name: "Save", exact: true }).click();
  await form.getByRole("status").filter({ hasText: "Saved." }).waitFor();
  let stored = await asPerson(context, "GET", "/me/notifications");
  assert.equal(stored.body.own.push, false);
  const cell = page.locator(`table.applied tr[data-org="${env.org}"] td[data-label="Browser push"]`);
  assert.equal(await cell.innerText(), "off", "what applies says so");
  assert.equal(stored.body.by_org.find((o) => o.org === env.org)?.effective.push, false);

  await page.reload();
  await form.waitFor();
  assert.equal(await choice.inputValue(), "off");
  assert.equal(await cell.innerText(), "off");

  // Back to the default (null), which is on.
  await choice.selectOption("");
  await form.getByRole("button", { name: "Save", exact: true }).click();
  await form.getByRole("status").filter({ hasText: "Saved." }).waitFor();
  stored = await asPerson(context, "GET", "/me/notifications");
  assert.equal(stored.body.own.push, null);
  await page.reload();
  await form.waitFor();
  assert.equal(await choice.inputValue(), "");
  assert.equal(await cell.innerText(), stored.body.by_org.find((o) => o.org === env.org)?.effective.push === false ? "off" : "on");
  await context.close();
});
