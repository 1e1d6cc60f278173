// The inbox stays true on its own: a question the server withdraws leaves with
// a note saying so, and a dashboard that lost its connection reconnects by
// itself and shows what was asked while it was away.

import { strict as assert } from "node:assert";
import { after, before, test } from "node:test";
import { abortCalls, env, launch, newContext, openInbox, signInByApi, startCall, waitForCard } from "./lib.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { abortCalls(); await browser?.close(); });

test("a question the server withdraws disappears with a note saying why", { timeout: 60_000 }, async () => {
  assert.ok(env.legacyServer, "run.sh registers a legacy-only demo server");
  const context = await newContext(browser);
  await signInByApi(context);
  const page = await openInbox(context);
  const call = startCall("ask_then_withdraw", { seconds: 3 }, { server: env.legacyServer });
  const { card } = await waitForCard(page, "Still there? This question is withdrawn if it is not answered within 3 s.");
  await card.getByRole("note").filter({ hasText: "The server withdrew this question." }).waitFor();
  await card.waitFor({ state: "detached" });
  assert.equal((await call.text()).text, "The question was withdrawn");
  await context.close();
});

test("a dashboard that lost its connection reconnects by itself and shows what was asked meanwhile", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  const page = await openInbox(context);
  // Herald becomes unreachable for this page: the socket drops and reconnects fail.
  await page.evaluate(() => {
    window.__heraldTest.blocked = true;
    window.__heraldTest.sockets.forEach((s) => s.close());
  });
  const lost = page.getByText(/^Connection lost; reconnecting in \d+ s…$/);
  await lost.waitFor();

  const call = startCall("deploy", { service: "while-away", environment: "staging" });
  // The question is pending, and this page cannot have heard of it.
  await page.waitForFunction(() => window.__heraldTest.sockets.length >= 2);
  assert.equal(await page.locator("article.question").filter({ hasText: "Deploy while-away to staging?" }).count(), 0);

  const opened = await page.evaluate(() => window.__heraldTest.socketsOpened);
  await page.evaluate(() => { window.__heraldTest.blocked = false; });
  await page.waitForFunction((n) => window.__heraldTest.socketsOpened > n, opened, { timeout: 40_000 });
  const { card } = await waitForCard(page, "Deploy while-away to staging?");
  await lost.waitFor({ state: "hidden" });
  await card.getByRole("checkbox").check();
  await card.getByRole("button", { name: "Submit" }).click();
  const { text } = await call.text();
  assert.match(text, /while-away/);
  await context.close();
});
