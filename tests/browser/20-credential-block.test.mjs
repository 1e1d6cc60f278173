// Runs last: it cuts the demo server off (and restores it afterwards).
//
// A server that fishes for a password is declined by Herald's default policy
// without showing anything; the person gets a note saying what was blocked
// and why, naming the server, with a one-click cut-off (confirmed first) for
// admins. Cut off, the server takes no calls at all.

import { strict as assert } from "node:assert";
import { after, before, test } from "node:test";
import {
  abortCalls, cardByMessage, env, launch, newContext, openInbox, registeredServer, screenshot, signInByApi, startCall,
} from "./lib.mjs";

let browser;
let context;
before(async () => { browser = await launch(); });
after(async () => {
  abortCalls();
  // Restore the demo server with the dashboard's session, whatever happened.
  if (context) {
    const restored = await context.request.post(`${env.url}/api/v1/orgs/${env.org}/servers/${env.server}/restore`);
    if (!restored.ok()) console.error(`restoring the demo server: ${restored.status()} ${await restored.text()}`);
  }
  await browser?.close();
});

test("a blocked credential ask: no form, a note naming the server and what was found, and a confirmed cut-off", { timeout: 60_000 }, async () => {
  context = await newContext(browser);
  await signInByApi(context);
  const page = await openInbox(context);

  // The agent hears a plain decline, as if the person had said no.
  const { text, result } = await startCall("fish_for_password").text();
  assert.equal(text, "Password request declined by the user");
  assert.notEqual(result.isError, true);

  const note = page.locator(".note[data-rule=credential_ask]").filter({ hasText: "Demo Server" });
  await note.waitFor();
  assert.equal(await note.getByRole("heading").innerText(), "Declined for you: a request for a credential");
  const said = await note.locator("p").first().innerText();
  assert.match(said, /Demo Server/, said);
  assert.match(said, /password/i, `says what was asked for: ${said}`);
  assert.match(said, /Herald found: /, `names what the detector found: ${said}`);
  assert.match(await note.innerText(), /fish_for_password/, "names the tool");
  // Nothing of the question was shown.
  assert.equal(await cardByMessage(page, "Please enter your account password to continue.").count(), 0);
  assert.equal(await page.locator("input[type=password]").count(), 0);
  assert.equal(page.framesReceived.filter((m) => m.type === "elicitation.created").length, 0);
  // Notes of earlier files are resent on connect too (the admin suite's blocked ask among them,
  // grouped with this one): this call's note is the newest credential ask's.
  const sent = page.framesReceived.filter((m) => m.type === "elicitation.explained" && m.reason === "credential_ask").at(-1);
  assert.equal(sent.reason, "credential_ask");
  await screenshot(page, "inbox-credential-blocked.png");

  // Destructive, so it asks first; "Keep" changes nothing.
  await note.getByRole("button", { name: "Cut Demo Server off for everyone" }).click();
  await note.getByRole("button", { name: "Keep" }).click();
  assert.equal((await registeredServer()).cut_off, null, "kept");
  await note.getByRole("button", { name: "Cut Demo Server off for everyone" }).click();
  await note.getByRole("button", { name: "Cut off", exact: true }).click();
  await note.getByText("Demo Server is cut off for the organisation.").waitFor();
  assert.notEqual((await registeredServer()).cut_off, null, "the org shows it cut off");

  // Cut off: the server takes no calls, and the agent is told which server and why.
  const refused = await startCall("deploy", { service: "after-cut-off", environment: "staging" }).outcome();
  assert.equal(refused.status, 403, JSON.stringify(refused.messages));
  // Known gateway bug (reported): this refusal carries `"id": null` although
  // the request's id was readable (services/gateway/src/proxy/mod.rs, admit()).
  assert.equal(refused.messages.length, 1);
  assert.equal(refused.final.error.code, -32600);
  assert.match(refused.final.error.message, /\bdemo\b|Demo Server/, refused.final.error.message);

  // Dismissing the note removes it, for good (the record says so; a reload resends only notes still standing).
  await note.getByRole("button", { name: /^Dismiss (note|these notes)$/ }).click();
  await note.waitFor({ state: "detached" });
  const record = await (await context.request.get(`${env.url}/api/v1/orgs/${env.org}/elicitations/${sent.id}`)).json();
  assert.equal(typeof record.note_dismissed_at, "string", JSON.stringify(record));
});

test("restored, the server takes calls again", { timeout: 30_000 }, async () => {
  if (!context) {
    context = await newContext(browser);
    await signInByApi(context);
  }
  const restored = await context.request.post(`${env.url}/api/v1/orgs/${env.org}/servers/${env.server}/restore`);
  assert.ok(restored.ok(), `${restored.status()} ${await restored.text()}`);
  assert.equal((await registeredServer()).cut_off, null);
  const { text } = await startCall("echo", { text: "back again" }).text();
  assert.equal(text, "back again");
});
