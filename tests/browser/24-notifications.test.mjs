// Notifications and webhooks: the person's own notification choices (delay,
// reminder, quiet hours in a time zone) saved and still there after a reload,
// field errors next to their fields, the values that apply in each
// organisation, an org's defaults for its admins only; the inbox telling
// Herald whether it is being looked at, and a notification's link
// (`/?question=<id>`) focusing its card or saying it has ended; an admin's
// webhook added with its secret shown once, a test ping in the delivery log,
// Redeliver on a failed delivery, and deleting it asked once more first.

import { strict as assert } from "node:assert";
import { after, before, test } from "node:test";
import {
  abortCalls, apiAsToken, env, launch, newContext, openInbox, screenshot, signInByApi, startCall, waitForCard,
} from "./lib.mjs";

let browser;
let ownBefore;
let defaultsBefore;
const stamp = Date.now().toString(36);
const HOOK_URL = "http://127.0.0.1:9/hook";

/** The REST API as the signed-in person of `context` (a session, not the agent's token). */
async function asPerson(context, method, path, data) {
  const response = await context.request.fetch(`${env.url}/api/v1${path}`, {
    method, data, headers: { origin: env.url },
  });
  const text = await response.text();
  return { status: response.status(), body: text ? JSON.parse(text) : null };
}

before(async () => {
  browser = await launch();
  const context = await newContext(browser);
  await signInByApi(context);
  const own = await asPerson(context, "GET", "/me/notifications");
  assert.equal(own.status, 200, JSON.stringify(own.body));
  ownBefore = own.body.own;
  const defaults = await asPerson(context, "GET", `/orgs/${env.org}/notifications/defaults`);
  assert.equal(defaults.status, 200, JSON.stringify(defaults.body));
  defaultsBefore = defaults.body.defaults;
  await context.close();
});
after(async () => {
  abortCalls();
  // Whatever happened, the demo account's choices and the org's defaults are as they were.
  if (browser && (ownBefore || defaultsBefore)) {
    const context = await newContext(browser);
    await signInByApi(context);
    if (ownBefore) await asPerson(context, "PUT", "/me/notifications", ownBefore);
    if (defaultsBefore) await asPerson(context, "PUT", `/orgs/${env.org}/notifications/defaults`, defaultsBefore);
    const { body } = await apiAsToken("GET", `/orgs/${env.org}/webhooks`);
    for (const w of body?.webhooks ?? []) {
      if (w.url === HOOK_URL) await apiAsToken("DELETE", `/orgs/${env.org}/webhooks/${w.id}`);
    }
    await context.close();
  }
  await browser?.close();
});

async function openNotifications(context) {
  const page = await context.newPage();
  await page.goto(`${env.url}/notifications`);
  await page.getByRole("heading", { name: "Notifications", level: 1 }).waitFor();
  await page.getByRole("form", { name: "Your choices" }).waitFor();
  return page;
}

test("Notifications: delay, reminder and quiet hours in a time zone are saved, and still there after a reload", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  const inbox = await context.newPage();
  await inbox.goto(`${env.url}/`);
  await inbox.getByRole("link", { name: "Notifications" }).click();
  await inbox.waitForURL(`${env.url}/notifications`);
  await inbox.getByRole("heading", { name: "Notifications", level: 1 }).waitFor();
  assert.equal(await inbox.getByRole("link", { name: "Notifications" }).getAttribute("aria-current"), "page");
  // What Herald does, in plain words, before any control.
  const intro = await inbox.locator(".explain-list").innerText();
  assert.match(intro, /only when you are not looking at the dashboard/);
  assert.match(intro, /quiet hours nothing is sent/i);
  await inbox.close();

  const page = await openNotifications(context);
  const form = page.getByRole("form", { name: "Your choices" });
  const delay = form.getByLabel("Delay before notifying (seconds)");
  const reminder = form.getByLabel("Reminder (% of the question's time)");
  const quiet = form.getByLabel("Set my own quiet hours");
  const from = form.getByLabel("Quiet from");
  const until = form.getByLabel("Quiet until");
  const zone = form.getByLabel("Time zone");
  const save = form.getByRole("button", { name: "Save", exact: true });

  // Out of range: said next to the field, and nothing is sent.
  let puts = 0;
  page.on("request", (r) => { if (r.method() === "PUT" && r.url().endsWith("/api/v1/me/notifications")) puts += 1; });
  await delay.fill("4000");
  await reminder.fill("5");
  await save.click();
  await form.getByText("Must be between 0 and 3600 seconds.").waitFor();
  await form.getByText("Must be 0 (no reminder) or between 10 and 95.").waitFor();
  assert.equal(await delay.getAttribute("aria-invalid"), "true");
  assert.equal(puts, 0, "nothing was sent");

  await delay.fill("45");
  await reminder.fill("70");
  if (!(await quiet.isChecked())) await quiet.check();
  await from.fill("22:00");
  await until.fill("07:00");
  await zone.selectOption("Europe/Berlin");
  await save.click();
  await form.getByRole("status").filter({ hasText: "Saved." }).waitFor();
  assert.equal(await delay.getAttribute("aria-invalid"), null, "the errors are gone");

  const stored = await asPerson(context, "GET", "/me/notifications");
  assert.equal(stored.body.own.delay_secs, 45);
  assert.equal(stored.body.own.reminder_percent, 70);
  assert.deepEqual(stored.body.own.quiet_hours, { start: "22:00", end: "07:00", time_zone: "Europe/Berlin" });

  await page.reload();
  await page.getByRole("form", { name: "Your choices" }).waitFor();
  assert.equal(await delay.inputValue(), "45");
  assert.equal(await reminder.inputValue(), "70");
  assert.equal(await quiet.isChecked(), true);
  assert.equal(await from.inputValue(), "22:00");
  assert.equal(await until.inputValue(), "07:00");
  assert.equal(await zone.inputValue(), "Europe/Berlin");

  // The table says what applies in the demo org: the person's own choices (after the E-mail and Browser push cells).
  const row = page.locator(`table.applied tr[data-org="${env.org}"]`);
  const cells = await row.locator("td").allInnerTexts();
  assert.deepEqual(cells.slice(2), ["45 seconds", "at 70%", "22:00–07:00 (Europe/Berlin)"], cells.join(" | "));

  // E-mail: either its address is shown, or why it cannot be chosen.
  const email = form.getByLabel("E-mail me about questions");
  if (stored.body.email_available) {
    assert.equal(await email.isDisabled(), false);
    await page.getByText(stored.body.address).first().waitFor();
  } else {
    assert.equal(await email.isDisabled(), true);
    await form.getByText("E-mail is not set up on this Herald; ask your operator.").waitFor();
  }
  await screenshot(page, "notifications.png");

  // Back to the organisation's default: empty fields, quiet hours off.
  await delay.fill("");
  await reminder.fill("");
  await quiet.uncheck();
  assert.equal(await from.isVisible(), false, "the quiet-hours fields fold away");
  await save.click();
  await form.getByRole("status").filter({ hasText: "Saved." }).waitFor();
  const cleared = await asPerson(context, "GET", "/me/notifications");
  assert.equal(cleared.body.own.delay_secs, null);
  assert.equal(cleared.body.own.reminder_percent, null);
  assert.equal(cleared.body.own.quiet_hours, null);
  await context.close();
});

test("Notifications: the server's field errors land next to their fields; an unknown time zone is refused", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  // The page offers only the zones the browser knows, so an unknown one goes through the API.
  const refused = await asPerson(context, "PUT", "/me/notifications",
    { email: null, delay_secs: null, reminder_percent: null, quiet_hours: { start: "22:00", end: "07:00", time_zone: "Mars/Olympus_Mons" } });
  assert.equal(refused.status, 422, JSON.stringify(refused.body));
  assert.ok(refused.body.errors.some((e) => e.field === "quiet_hours.time_zone"), JSON.stringify(refused.body));

  // The page puts each message by its field (the server's answer is stood in for here).
  const page = await openNotifications(context);
  await page.route((url) => url.pathname === "/api/v1/me/notifications", (route) => (route.request().method() === "PUT"
    ? route.fulfill({
      status: 422,
      contentType: "application/problem+json",
      body: JSON.stringify({
        type: "https://herald.dev/problems/validation", title: "Invalid request", status: 422, detail: "Some fields are invalid",
        errors: [{ field: "quiet_hours.time_zone", message: "not a time zone Herald knows" }, { field: "delay_secs", message: "too long" }],
      }),
    })
    : route.fallback()));
  const form = page.getByRole("form", { name: "Your choices" });
  const quiet = form.getByLabel("Set my own quiet hours");
  if (!(await quiet.isChecked())) await quiet.check();
  await form.getByLabel("Delay before notifying (seconds)").fill("30");
  await form.getByRole("button", { name: "Save", exact: true }).click();
  const zone = form.getByLabel("Time zone");
  await form.getByText("not a time zone Herald knows").waitFor();
  assert.equal(await zone.getAttribute("aria-invalid"), "true");
  assert.match(await zone.evaluate((n) => n.getAttribute("aria-describedby").split(" ").map((id) => document.getElementById(id).textContent).join(" ")),
    /not a time zone Herald knows/);
  assert.equal(await form.getByLabel("Delay before notifying (seconds)").getAttribute("aria-invalid"), "true");
  await form.getByText("too long").waitFor();
  await context.close();
});

test("Notifications: a mail that did not get through is shown with the mail server's reason, as text", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  // This demo Herald has no SMTP server: the answer of one that has, whose last mail failed, is stood in for.
  await context.route((url) => url.pathname === "/api/v1/me/notifications", async (route) => {
    if (route.request().method() !== "GET") return route.continue();
    const real = await (await route.fetch()).json();
    await route.fulfill({
      json: {
        ...real,
        email_available: true,
        last_email: { status: "retrying", at: new Date().toISOString(), error: "the mail server refused the recipient <b>x</b>", attempts: 2 },
      },
    });
  });
  const page = await openNotifications(context);
  const warning = page.locator(".card .warning").filter({ hasText: "did not get through" });
  await warning.waitFor();
  const text = await warning.innerText();
  assert.match(text, /the mail server refused the recipient <b>x<\/b>/, "the reason as text, never markup");
  assert.match(text, /Herald will try again/);
  assert.equal(await warning.locator("b").count(), 0);
  await context.close();
});

test("Notifications: an admin sets the organisation's defaults there; a member sees none of it", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  const page = await openNotifications(context);
  const defaults = page.getByRole("form", { name: /^Defaults for / });
  await defaults.getByLabel("Delay before notifying (seconds)").waitFor();
  await defaults.getByLabel("Delay before notifying (seconds)").fill("30");
  await defaults.getByLabel("Reminder (% of the question's time)").fill("60");
  await defaults.getByRole("button", { name: "Save defaults" }).click();
  await defaults.getByRole("status").filter({ hasText: "Saved." }).waitFor();
  const stored = await apiAsToken("GET", `/orgs/${env.org}/notifications/defaults`);
  assert.equal(stored.body.defaults.delay_secs, 30);
  assert.equal(stored.body.defaults.reminder_percent, 60);
  await page.reload();
  const again = page.getByRole("form", { name: /^Defaults for / });
  await again.getByLabel("Delay before notifying (seconds)").waitFor();
  assert.equal(await again.getByLabel("Delay before notifying (seconds)").inputValue(), "30");
  assert.match(await page.locator(".org-defaults").innerText(), /Last changed .+ by /);
  // The person left theirs at the default: the org's now applies to them.
  const cells = await page.locator(`table.applied tr[data-org="${env.org}"] td`).allInnerTexts();
  assert.deepEqual(cells.slice(2, 4), ["30 seconds", "at 60%"], cells.join(" | "));
  await context.close();

  // A member: their own choices, no org defaults, no Webhooks page.
  const email = `notify-member-${stamp}@example.com`;
  const invite = await apiAsToken("POST", `/orgs/${env.org}/invites`, { email, role: "member" });
  assert.equal(invite.status, 201, JSON.stringify(invite.body));
  const member = await newContext(browser);
  const accepted = await member.request.post(`${env.url}/api/v1/invites/accept`, {
    data: { token: new URL(invite.body.link).hash.replace(/^#token=/, ""), name: "Nova Notified", password: "a long enough passphrase" },
    headers: { origin: env.url },
  });
  assert.equal(accepted.status(), 201, await accepted.text());
  const mine = await openNotifications(member);
  assert.equal(await mine.getByRole("form", { name: /^Defaults for / }).count(), 0);
  assert.equal(await mine.getByRole("link", { name: "Webhooks" }).count(), 0);
  const forbidden = await asPerson(member, "PUT", `/orgs/${env.org}/notifications/defaults`, { delay_secs: 1 });
  assert.equal(forbidden.status, 403, JSON.stringify(forbidden.body));
  await mine.goto(`${env.url}/admin/webhooks`);
  await mine.getByRole("heading", { name: "For admins" }).waitFor();
  await member.close();
  const { body } = await apiAsToken("GET", `/orgs/${env.org}/members`);
  const nova = body.members.find((m) => m.user.email === email);
  if (nova) await apiAsToken("DELETE", `/orgs/${env.org}/members/${nova.user.id}`);
});

test("Inbox: it tells Herald whether it is being looked at, and Herald does not answer", { timeout: 30_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  const page = await openInbox(context);
  const sent = () => page.framesSent.filter((m) => m.type === "presence");
  for (let i = 0; i < 50 && !sent().length; i++) await page.waitForTimeout(100);
  assert.deepEqual(sent()[0], { type: "presence", visible: true }, "the first word after the socket opens");
  // The tab goes into the background, and comes back.
  await page.evaluate(() => {
    Object.defineProperty(document, "visibilityState", { value: "hidden", configurable: true });
    document.dispatchEvent(new Event("visibilitychange"));
  });
  await page.evaluate(() => {
    Object.defineProperty(document, "visibilityState", { value: "visible", configurable: true });
    document.dispatchEvent(new Event("visibilitychange"));
  });
  for (let i = 0; i < 50 && sent().length < 3; i++) await page.waitForTimeout(100);
  assert.deepEqual(sent().map((m) => m.visible), [true, false, true]);
  await page.waitForTimeout(300);
  assert.deepEqual(page.framesReceived.filter((m) => m.type === "error"), [], "no reply to presence");
  await context.close();
});

test("Inbox: a notification's link focuses its question, or says it has ended, with the way to the history", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  const first = await openInbox(context);
  const call = startCall("book_table", { restaurant: `Deep link ${stamp}` });
  const { id } = await waitForCard(first, `Book a table at Deep link ${stamp}`);

  const linked = await context.newPage();
  await linked.goto(`${env.url}/?question=${id}`);
  await linked.waitForFunction((qid) => document.activeElement?.getAttribute("aria-labelledby") === `q-${qid}-title`, id);
  assert.equal(new URL(linked.url()).search, "", "the link's parameter leaves the address");
  const inView = await linked.evaluate((qid) => {
    const box = document.querySelector(`[aria-labelledby="q-${qid}-title"]`).getBoundingClientRect();
    return box.top < innerHeight && box.bottom > 0;
  }, id);
  assert.ok(inView, "the card is scrolled into view");

  await linked.locator(`[aria-labelledby="q-${id}-title"]`).getByRole("button", { name: "Dismiss" }).click();
  await call.outcome();
  await linked.close();
  await first.close();

  const late = await context.newPage();
  await late.goto(`${env.url}/?question=${id}`);
  await late.getByText("This question has already ended.").waitFor();
  const history = late.getByRole("link", { name: "See your history" });
  await history.click();
  await late.waitForURL(`${env.url}/history`);
  await late.getByRole("heading", { name: "History", level: 1 }).waitFor();

  const unknown = await context.newPage();
  await unknown.goto(`${env.url}/?question=00000000-0000-4000-8000-000000000000`);
  await unknown.getByText(/^This question was not found/).waitFor();
  await context.close();
});

test("Webhooks: an admin adds one, sees its secret once, sends a test ping into the log, and deletes it after confirming", { timeout: 90_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  const page = await context.newPage();
  await page.goto(`${env.url}/`);
  await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Webhooks" }).click();
  await page.waitForURL(`${env.url}/admin/webhooks`);
  await page.getByRole("heading", { name: "Webhooks", level: 1 }).waitFor();

  const add = page.getByRole("form", { name: "Add a webhook" });
  for (const label of ["Question asked", "Reminder", "Question ended"]) {
    assert.equal(await add.getByLabel(label, { exact: true }).isChecked(), true, `${label} is checked by default`);
  }
  // Refused in the page: no address, no event.
  let posts = 0;
  page.on("request", (r) => { if (r.method() === "POST" && r.url().endsWith(`/orgs/${env.org}/webhooks`)) posts += 1; });
  await add.getByLabel("URL").fill("not an address");
  await add.getByRole("button", { name: "Add webhook" }).click();
  await add.getByText(/^Not a URL/).waitFor();
  assert.equal(posts, 0);

  const description = `Browser test ${stamp}`;
  await add.getByLabel("URL").fill(HOOK_URL);
  await add.getByLabel("Description (optional)").fill(description);
  await add.getByRole("button", { name: "Add webhook" }).click();
  const once = page.locator(".card.once");
  await once.waitFor();
  assert.equal(await once.locator("p").first().innerText(),
    "Copy it now: Herald will not show it again. Verify each request's Herald-Signature header with it (docs/api.md, Webhooks).");
  const secret = await once.locator("code.secret").innerText();
  assert.match(secret, /^whsec_/);
  await once.getByRole("button", { name: "Copy secret" }).waitFor();

  const row = page.locator("li.webhook").filter({ hasText: description });
  await row.waitFor();
  assert.equal(await row.locator(".webhook-url").innerText(), HOOK_URL);
  assert.deepEqual(await row.locator(".tag").allInnerTexts(), ["Question asked", "Reminder", "Question ended"]);

  // The secret is shown once: not after a reload, and never by the API.
  await page.reload();
  await row.waitFor();
  assert.equal(await page.locator(".card.once").count(), 0);
  assert.equal((await page.locator("body").innerText()).includes(secret), false);
  const listed = await apiAsToken("GET", `/orgs/${env.org}/webhooks`);
  assert.equal(JSON.stringify(listed.body).includes(secret), false);
  const hook = listed.body.webhooks.find((w) => w.description === description);
  assert.ok(hook, JSON.stringify(listed.body));

  // A test ping lands in the delivery log (nothing listens on port 9: pending or failed).
  await row.getByRole("button", { name: `Send a test ping to ${description}` }).click();
  const ping = page.locator("table.deliveries tbody tr").filter({ hasText: "Test ping" });
  await ping.first().waitFor();
  assert.match(await ping.first().locator("td").first().innerText(), /^(Pending|Failed)$/);
  assert.equal(await page.getByLabel("Show deliveries of").inputValue(), hook.id);
  await page.getByRole("button", { name: "Refresh" }).click();
  await ping.first().waitFor();
  await screenshot(page, "admin-webhooks.png");

  // No sideways scrolling at 360 px, with a webhook and its log.
  const narrow = await newContext(browser, { viewport: { width: 360, height: 740 } });
  await signInByApi(narrow);
  const small = await narrow.newPage();
  await small.goto(`${env.url}/admin/webhooks`);
  await small.locator("li.webhook").filter({ hasText: description }).waitFor();
  await small.locator("table.deliveries").waitFor();
  assert.equal(await small.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0);
  await narrow.close();

  // Rotating asks first, then shows the new secret once.
  await row.getByRole("button", { name: `Rotate the secret of ${description}` }).click();
  const ask = row.getByRole("group", { name: /^Really rotate the secret of / });
  await ask.getByRole("button", { name: "Rotate secret", exact: true }).click();
  await page.locator(".card.once").getByRole("heading", { name: `New secret for ${description}` }).waitFor();
  const rotated = await page.locator(".card.once code.secret").innerText();
  assert.match(rotated, /^whsec_/);
  assert.notEqual(rotated, secret);
  await page.locator(".card.once").getByRole("button", { name: "Done" }).click();

  // Deleting asks in the page; Keep keeps it.
  const remove = row.getByRole("button", { name: `Delete the webhook to ${description}` });
  await remove.click();
  const really = row.getByRole("group", { name: `Really delete the webhook to ${HOOK_URL}? Herald stops sending to it at once, and its delivery log goes with it.` });
  await really.waitFor();
  assert.equal(await really.getByRole("button", { name: "Keep" }).evaluate((b) => b === document.activeElement), true);
  await really.getByRole("button", { name: "Keep" }).click();
  await remove.click();
  await really.getByRole("button", { name: "Delete", exact: true }).click();
  await page.getByText(`Webhook to ${HOOK_URL} deleted.`).waitFor();
  await row.waitFor({ state: "detached" });
  const gone = await apiAsToken("GET", `/orgs/${env.org}/webhooks`);
  assert.equal(gone.body.webhooks.some((w) => w.id === hook.id), false);
  await context.close();
});

test("Webhooks: a failed delivery offers Redeliver, and the log says what went wrong in words", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  const page = await context.newPage();
  // One webhook and one failed delivery, stood in for: Herald's own retries take longer than a test.
  const webhook = {
    id: "0b6c3c1e-0000-4000-8000-000000000001", url: "https://hooks.example.com/<b>x</b>", description: "",
    events: ["question.ended"], created_at: new Date().toISOString(), created_by: { name: "Dee Mo", email: "demo@example.com" },
    last_delivery: { status: "failed", at: new Date().toISOString() },
  };
  const failed = {
    id: "0b6c3c1e-0000-4000-8000-0000000000d1", webhook_id: webhook.id, event: "question.ended", question_id: null,
    status: "failed", attempts: 5, last_status: 500, last_error: "<img src=x onerror=alert(1)>", created_at: new Date().toISOString(),
    next_attempt_at: null, delivered_at: null,
  };
  let redelivered = 0;
  const base = `/api/v1/orgs/${env.org}/webhooks`;
  await page.route((url) => url.pathname === base, (route) => (route.request().method() === "GET"
    ? route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ webhooks: [webhook] }) })
    : route.fallback()));
  await page.route((url) => url.pathname === `${base}/deliveries`, (route) =>
    route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ deliveries: [failed] }) }));
  await page.route((url) => url.pathname === `${base}/deliveries/${failed.id}/redeliver`, (route) => {
    redelivered += 1;
    return route.fulfill({ status: 202, contentType: "application/json", body: JSON.stringify({ delivery: { ...failed, status: "pending" } }) });
  });
  await page.goto(`${env.url}/admin/webhooks`);
  const line = page.locator("table.deliveries tbody tr").first();
  await line.waitFor();
  const cells = await line.locator("th, td").allInnerTexts();
  assert.match(cells[0], /^Question ended/);
  assert.equal(cells[1], "Failed", "the status in words, not only in colour");
  assert.equal(cells[2], "5");
  assert.equal(cells[3], "HTTP 500: <img src=x onerror=alert(1)>", "an error is shown as text");
  assert.equal(await page.locator("table.deliveries img, li.webhook b").count(), 0, "no markup from the server");
  await line.getByRole("button", { name: /^Redeliver the Question ended of / }).click();
  await page.getByText("Question ended queued to be delivered again.").waitFor();
  assert.equal(redelivered, 1);
  await context.close();
});
