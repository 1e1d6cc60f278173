// Saying no: Decline is a deliberate no the server hears as `decline`;
// Dismiss (the button, or Escape anywhere in the card) is `cancel`. Neither is
// an error for the agent. Muting a server declines and keeps it quiet.

import { strict as assert } from "node:assert";
import { after, before, test } from "node:test";
import {
  abortCalls, apiAsToken, cardByMessage, elicitation, env, launch, newContext, openInbox, signInByApi, startCall, waitForCard,
} from "./lib.mjs";

let browser;
let context;
let page;
before(async () => {
  browser = await launch();
  context = await newContext(browser);
  await signInByApi(context);
  page = await openInbox(context);
});
after(async () => { abortCalls(); await browser?.close(); });

// Each test deploys a different service: a declined question asked again is
// declined by Herald's decline memory without being shown.
async function ask(service, environment = "staging") {
  const call = startCall("deploy", { service, environment });
  const { id, card } = await waitForCard(page, `Deploy ${service} to ${environment}?`);
  assert.equal(await card.getByRole("heading", { level: 2 }).innerText(), "Demo Server");
  return { call, id, card };
}

// What the card says once Herald has the person's answer: a decline is
// remembered (and says so), a dismissal is not.
const SAID = {
  decline: /^Declined\. Herald will decline this question for you if Demo Server asks it again within 1 day\.$/,
  cancel: /^Dismissed, without an answer\.$/,
};

async function assertEnded(id, card, expected) {
  // The card leaves a note (it is removed a few seconds later: see the book_table test).
  await card.getByRole("note").filter({ hasText: SAID[expected.action] }).waitFor();
  const record = await elicitation(id);
  assert.equal(record.status, "resolved");
  assert.deepEqual({ action: record.action, decided_by: record.decided_by, reason: record.reason }, expected);
}

test("Decline: the agent hears the person declined", { timeout: 60_000 }, async () => {
  const { call, id, card } = await ask("ledger", "production");
  await card.getByRole("button", { name: "Decline" }).click();
  const { text, result } = await call.text();
  assert.equal(text, "Deployment declined by the user");
  assert.notEqual(result.isError, true, "a decline is not an error");
  await assertEnded(id, card, { action: "decline", decided_by: "user", reason: "declined" });
});

test("Dismiss button: the agent hears the question was cancelled", { timeout: 60_000 }, async () => {
  const { call, id, card } = await ask("payroll");
  await card.getByRole("button", { name: "Dismiss" }).click();
  const { text, result } = await call.text();
  assert.equal(text, "Deployment cancelled by the user");
  assert.notEqual(result.isError, true);
  await assertEnded(id, card, { action: "cancel", decided_by: "user", reason: "dismissed" });
});

test("Escape in the card dismisses it", { timeout: 60_000 }, async () => {
  const { call, id, card } = await ask("inventory");
  const note = card.getByLabel("Note");
  await note.fill("typed something, then changed my mind");
  await note.press("Escape");
  const { text } = await call.text();
  assert.equal(text, "Deployment cancelled by the user");
  await assertEnded(id, card, { action: "cancel", decided_by: "user", reason: "dismissed" });
});

test("Escape outside a card dismisses nothing", { timeout: 60_000 }, async () => {
  const { call, id, card } = await ask("reports");
  await page.getByRole("heading", { name: "Inbox", level: 1 }).click();
  await page.keyboard.press("Escape");
  // Had Escape sent a cancel, it would have gone first on the socket and won.
  await card.getByRole("button", { name: "Decline" }).click();
  assert.equal((await call.text()).text, "Deployment declined by the user");
  assert.deepEqual(page.framesSent.filter((m) => m.id === id).map((m) => m.action), ["decline"]);
  await assertEnded(id, card, { action: "decline", decided_by: "user", reason: "declined" });
});

test("Mute declines the question and keeps the server quiet until unmuted", { timeout: 60_000 }, async () => {
  const { call, id, card } = await ask("billing");
  try {
    await card.getByRole("button", { name: "Mute Demo Server" }).click();
    assert.equal((await call.text()).text, "Deployment declined by the user");
    await card.getByRole("note").waitFor();
    assert.equal((await elicitation(id)).action, "decline");
    const mutes = await apiAsToken("GET", `/orgs/${env.org}/mutes`);
    assert.deepEqual(mutes.body.mutes.map((m) => m.server.slug), [env.server]);

    // Muted: the next question is declined without being shown.
    const quiet = startCall("deploy", { service: "muted-service", environment: "staging" });
    assert.equal((await quiet.text()).text, "Deployment declined by the user");
    assert.equal(await cardByMessage(page, "Deploy muted-service to staging?").count(), 0, "nothing was shown");
    assert.equal(page.framesReceived.filter((m) => m.type === "elicitation.created" && m.message.includes("muted-service")).length, 0);
  } finally {
    const removed = await apiAsToken("DELETE", `/orgs/${env.org}/mutes/${env.server}`);
    assert.equal(removed.status, 204);
  }
  // Unmuted: questions are shown again.
  const again = await ask("analytics");
  await again.card.getByRole("button", { name: "Dismiss" }).click();
  assert.equal((await again.call.text()).text, "Deployment cancelled by the user");
});
