// Every automatic answer explained where the person looks (issue 15.3): what
// Decline and Dismiss mean, said on the card before a click; a note in the
// inbox for each answer the policy gave (naming the server, the tool, the
// rule and what it went by) with the way back; the warn-mode banner naming
// what the detector found. Each test restores the policy it changed.

import { strict as assert } from "node:assert";
import { after, before, beforeEach, test } from "node:test";
import {
  abortCalls, apiAsToken, env, launch, newContext, openInbox, screenshot, signInByApi, startCall, waitForCard,
} from "./lib.mjs";

let browser;
let page;
let original;
before(async () => {
  browser = await launch();
  original = (await apiAsToken("GET", `/orgs/${env.org}/policy`)).body;
  const context = await newContext(browser);
  await signInByApi(context);
  page = await openInbox(context);
});
after(async () => {
  abortCalls();
  if (original) await apiAsToken("PUT", `/orgs/${env.org}/policy`, original);
  await apiAsToken("DELETE", `/orgs/${env.org}/mutes/${env.server}`);
  await browser?.close();
});

/** Earlier files leave notes behind: start each test with none standing. */
async function dismissStandingNotes() {
  const { body } = await apiAsToken("GET", `/orgs/${env.org}/elicitations?status=resolved&limit=200`);
  const standing = body.elicitations.filter((e) => e.decided_by === "policy" && e.note_dismissed_at === null);
  for (const e of standing) {
    const { status } = await apiAsToken("POST", `/orgs/${env.org}/elicitations/${e.id}/dismiss-note`);
    assert.equal(status, 204);
  }
  await page.locator(".note").first().waitFor({ state: "detached" });
}
beforeEach(dismissStandingNotes);

async function withPolicy(change, work) {
  const policy = structuredClone(original);
  change(policy);
  assert.equal((await apiAsToken("PUT", `/orgs/${env.org}/policy`, policy)).status, 200);
  try {
    await work();
  } finally {
    assert.equal((await apiAsToken("PUT", `/orgs/${env.org}/policy`, original)).status, 200);
  }
}

const noteWith = (title) => page.locator(".note").filter({ has: page.getByRole("heading", { name: title, exact: true }) });

test("the card says what Decline and Dismiss mean before a click, and Decline says what it did", { timeout: 60_000 }, async () => {
  const call = startCall("deploy", { service: "notes-ledger", environment: "production" });
  const { card } = await waitForCard(page, "Deploy notes-ledger to production?");
  const meaning = card.locator(".meaning");
  assert.equal(await meaning.innerText(),
    "Decline says no, and Herald remembers it for 1 day: if Demo Server asks this again, Herald declines for you. " +
    "Dismiss closes the question without an answer; the server may ask again.");
  const meaningId = await meaning.getAttribute("id");
  for (const name of ["Decline", "Dismiss"]) {
    assert.equal(await card.getByRole("button", { name, exact: true }).getAttribute("aria-describedby"), meaningId);
  }
  await card.getByRole("button", { name: "Decline" }).click();
  await card.getByRole("note").filter({
    hasText: "Declined. Herald will decline this question for you if Demo Server asks it again within 1 day.",
  }).waitFor();
  assert.equal((await call.text()).text, "Deployment declined by the user");
});

test("a remembered decline is a note saying when, and Ask me again shows the next asking", { timeout: 60_000 }, async () => {
  const again = startCall("deploy", { service: "notes-ledger", environment: "production" });
  assert.equal((await again.text()).text, "Deployment declined by the user");
  const note = noteWith("Declined again for you");
  await note.waitFor();
  const text = await note.innerText();
  assert.match(text, /Demo Server asked “Deploy notes-ledger to production\?” again \(tool deploy\)\./, text);
  assert.match(text, /You declined this question (just now|1 minute ago|\d+ minutes ago)/, text);
  assert.match(text, /Herald remembers a decline for 1 day/, text);
  await screenshot(page, "inbox-note-declined-again.png");

  await note.getByRole("button", { name: "Ask me again" }).click();
  await note.waitFor({ state: "detached" });
  const shown = startCall("deploy", { service: "notes-ledger", environment: "production" });
  const { card } = await waitForCard(page, "Deploy notes-ledger to production?");
  await card.getByRole("button", { name: "Dismiss" }).click();
  assert.equal((await shown.text()).text, "Deployment cancelled by the user");
});

test("a muted server's questions are one note with a count, and Unmute brings them back", { timeout: 60_000 }, async () => {
  assert.equal((await apiAsToken("POST", `/orgs/${env.org}/mutes`, { server: env.server })).status, 201);
  for (const service of ["muted-one", "muted-two"]) {
    const call = startCall("deploy", { service, environment: "staging" });
    assert.equal((await call.text()).text, "Deployment declined by the user");
  }
  const note = noteWith("Declined for you: Demo Server is muted");
  await note.filter({ hasText: "2 questions like this" }).waitFor();
  assert.equal(await note.count(), 1, "one note for the server and rule");
  assert.match(await note.innerText(), /“Deploy muted-two to staging\?”/, "the newest question is quoted");
  await note.getByRole("button", { name: "Unmute Demo Server" }).click();
  await note.getByText("Demo Server is unmuted.").waitFor();
  assert.deepEqual((await apiAsToken("GET", `/orgs/${env.org}/mutes`)).body.mutes, []);

  await note.getByRole("button", { name: "Dismiss these notes" }).click();
  await note.waitFor({ state: "detached" });
  const { body } = await apiAsToken("GET", `/orgs/${env.org}/elicitations?status=resolved&limit=10`);
  const muted = body.elicitations.filter((e) => e.reason === "muted" && /muted-(one|two)/.test(e.message));
  assert.equal(muted.length, 2);
  assert.ok(muted.every((e) => typeof e.note_dismissed_at === "string"), "both notes dismissed");
});

test("in warn mode the banner names what the detector found", { timeout: 60_000 }, async () => {
  // The admin suite declined this very question in warn mode: ask to be asked again.
  const { body } = await apiAsToken("GET", `/orgs/${env.org}/elicitations?status=resolved&limit=200`);
  for (const e of body.elicitations.filter((r) => r.tool === "fish_for_password" && r.action === "decline" && r.decided_by === "user")) {
    assert.equal((await apiAsToken("POST", `/orgs/${env.org}/elicitations/${e.id}/ask-again`)).status, 200);
  }
  await withPolicy((p) => { p.credential_ask.mode = "warn"; }, async () => {
    const call = startCall("fish_for_password");
    const { card } = await waitForCard(page, "Please enter your account password to continue.");
    const warning = card.locator(".warning");
    assert.match(await warning.innerText(), /Herald found:/);
    const found = await warning.locator("li").allInnerTexts();
    assert.ok(found.length >= 1, "at least one finding");
    assert.ok(found.some((f) => /password/i.test(f)), `the findings name the password: ${found.join(" | ")}`);
    await card.getByRole("button", { name: "Decline" }).click();
    assert.equal((await call.text()).text, "Password request declined by the user");
  });
});

test("a URL rule and a rate cap say which rule and which limit answered", { timeout: 60_000 }, async () => {
  // The URL rules come after the caps: refused by a rule while the caps still allow it.
  await withPolicy((p) => { p.url_mode.deny_domains = ["example.com"]; }, async () => {
    const refused = startCall("connect_account", { provider: "github" });
    assert.match((await refused.text()).text, /cancel/i);
    const url = noteWith("Cancelled for you: an address your organisation refuses");
    await url.waitFor();
    const said = await url.innerText();
    assert.match(said, /Demo Server asked you to open auth\.example\.com \(tool connect_account\)/, said);
    assert.match(said, /example\.com/, said);
  });
  await withPolicy((p) => { p.rate_caps.per_server_per_hour = 1; }, async () => {
    const capped = startCall("deploy", { service: "over-the-cap", environment: "staging" });
    assert.equal((await capped.text()).text, "Deployment cancelled by the user");
    const cap = noteWith("Cancelled for you: too many questions");
    await cap.waitFor();
    assert.match(await cap.innerText(), /Demo Server asked more than 1 question this hour across your organisation/);
    assert.equal(await cap.getByRole("link", { name: "Review the policy" }).getAttribute("href"), "/admin/policy",
      "the demo account is an owner: it gets the way to the policy");
  });
});
