// One person, two tabs: the question shows in both; the first answer wins, the
// other tab withdraws the form with a note, and the agent gets one result.

import { strict as assert } from "node:assert";
import { after, before, test } from "node:test";
import { abortCalls, elicitation, launch, newContext, openInbox, signInByApi, startCall, waitForCard } from "./lib.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { abortCalls(); await browser?.close(); });

test("answering in one tab removes the question from the other", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  const first = await openInbox(context);
  const second = await openInbox(context);

  const call = startCall("deploy", { service: "search", environment: "production" });
  const a = await waitForCard(first, "Deploy search to production?");
  const b = await waitForCard(second, "Deploy search to production?");
  assert.equal(a.id, b.id, "the same question");

  await first.bringToFront(); // the person switches to the first tab
  await a.card.getByLabel("Confirm deploy").check();
  await a.card.getByLabel("Note").fill("from the first tab");
  await a.card.getByRole("button", { name: "Submit" }).click();

  await a.card.getByRole("note").filter({ hasText: "Sent." }).waitFor();
  await b.card.getByRole("note").filter({ hasText: "Answered in another tab." }).waitFor();
  await b.card.waitFor({ state: "detached" });

  const outcome = await call.outcome();
  assert.equal(outcome.status, 200);
  assert.equal(outcome.finals.length, 1, `exactly one result: ${JSON.stringify(outcome.messages)}`);
  assert.equal(outcome.final.result.content[0].text, "Deployed search to production");

  const record = await elicitation(a.id);
  assert.equal(record.action, "accept");
  assert.deepEqual(record.content, { confirm: true, note: "from the first tab" });
  assert.equal(second.framesSent.filter((m) => m.type === "respond").length, 0, "the second tab sent nothing");
  // Both tabs were told it ended, once each.
  for (const page of [first, second]) {
    assert.equal(page.framesReceived.filter((m) => m.type === "elicitation.resolved" && m.id === a.id).length, 1);
  }
  await context.close();
});

test("answers from two tabs at once: one wins, the other is told it ended", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  const first = await openInbox(context);
  const second = await openInbox(context);

  const call = startCall("deploy", { service: "indexer", environment: "staging" });
  const a = await waitForCard(first, "Deploy indexer to staging?");
  const b = await waitForCard(second, "Deploy indexer to staging?");
  // Both tabs answer, each before it can hear of the other's answer: the
  // buttons are clicked from script, so a card already withdrawn still sends.
  const dismiss = await a.card.getByRole("button", { name: "Dismiss" }).elementHandle();
  const decline = await b.card.getByRole("button", { name: "Decline" }).elementHandle();
  await Promise.all([dismiss.evaluate((button) => button.click()), decline.evaluate((button) => button.click())]);

  const outcome = await call.outcome();
  assert.equal(outcome.finals.length, 1, `exactly one result: ${JSON.stringify(outcome.messages)}`);
  const record = await elicitation(a.id);
  const texts = { cancel: "Deployment cancelled by the user", decline: "Deployment declined by the user" };
  assert.equal(outcome.final.result.content[0].text, texts[record.action], "the agent got the answer that was recorded");
  const [winner, loser] = record.action === "cancel" ? [[first, a], [second, b]] : [[second, b], [first, a]];

  // Each tab sent its answer; the winner's was acknowledged, the loser's refused as ended.
  for (const page of [first, second]) {
    assert.equal(page.framesSent.filter((m) => m.type === "respond" && m.id === a.id).length, 1);
  }
  await winner[1].card.getByRole("note").filter({ hasText: record.action === "cancel" ? /^Dismissed/ : /^Declined\./ }).waitFor();
  await loser[1].card.getByRole("note").filter({ hasText: "Answered in another tab." }).waitFor();
  assert.equal(winner[0].framesReceived.filter((m) => m.type === "ack" && m.id === a.id).length, 1);
  assert.deepEqual(loser[0].framesReceived.filter((m) => m.id === a.id && (m.type === "ack" || m.type === "error"))
    .map((m) => [m.type, m.code]), [["error", "ended"]]);
  await context.close();
});
