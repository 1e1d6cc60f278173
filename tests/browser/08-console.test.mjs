// Try a tool: a newcomer with no agent picks the demo server and book_table in
// the console, fills the arguments, calls it; the booking form arrives in the
// inbox on the same page; they answer it there and see the tool's result. While
// the call waits, the admins' pending view counts it (and shows no question).

import { strict as assert } from "node:assert";
import { after, before, test } from "node:test";
import { abortCalls, env, launch, newContext, screenshot, signInByApi, waitForCard } from "./lib.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { abortCalls(); await browser?.close(); });

/** Picks the demo server and `tool` in the console, once the server's tools have loaded. */
async function chooseTool(page, tool) {
  await page.getByLabel("Server", { exact: true }).selectOption(env.server);
  const select = page.getByLabel("Tool");
  await page.waitForFunction((el) => !el.disabled, await select.elementHandle());
  await select.selectOption(tool);
}

async function openConsole(context) {
  const page = await context.newPage();
  await page.goto(`${env.url}/console`);
  await page.getByRole("heading", { name: "Try a tool", level: 1 }).waitFor();
  await page.waitForFunction(() => window.__heraldTest?.socketsOpened > 0);
  return page;
}

test("the console calls book_table, the question arrives in the inbox on the page, and the result is shown", { timeout: 90_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  const page = await openConsole(context);
  assert.equal(await page.getByRole("link", { name: "Try a tool" }).getAttribute("aria-current"), "page");

  await chooseTool(page, "book_table");
  // The tool's flat input schema is drawn as the inbox draws a form.
  const restaurant = page.getByLabel(/^restaurant( \*)?$/);
  assert.equal(await restaurant.getAttribute("required"), "");
  await page.getByRole("button", { name: "Call the tool" }).click();
  await page.waitForFunction((el) => el.validity.valueMissing && document.activeElement === el, await restaurant.elementHandle());
  await restaurant.fill("Chez Console");
  await page.getByRole("button", { name: "Call the tool" }).click();
  await page.getByText("Calling book_table…", { exact: false }).waitFor();

  // The admins' live view counts the pending question, without its text.
  const admin = await context.newPage();
  await admin.goto(`${env.url}/admin/pending`);
  const row = admin.getByRole("row", { name: /Demo Server/ });
  await row.waitFor();
  assert.match(await admin.getByRole("status").first().innerText(), /^\d+ questions? pending$/);
  assert.match(await row.innerText(), /Demo Server\s+\(demo\)\s+\d+\s+1\s+/);
  assert.equal(await admin.getByText("Chez Console").count(), 0, "the question stays private");
  await screenshot(admin, "admin-pending.png");

  const { card } = await waitForCard(page, "Book a table at Chez Console");
  await card.getByLabel(/^Date( \*)?$/).fill("2027-06-01");
  await card.getByLabel(/^Name( \*)?$/).fill("Grace Hopper");
  await screenshot(page, "console.png");
  await card.getByRole("button", { name: "Submit" }).click();

  const result = page.locator("section.result");
  await result.getByRole("heading", { name: /Result of book_table/ }).waitFor();
  assert.match(await result.getByRole("heading").innerText(), /OK$/);
  const structured = JSON.parse(await result.locator("details pre").innerText());
  assert.deepEqual(structured, {
    restaurant: "Chez Console", date: "2027-06-01", time: "19:00", party_size: 2, name: "Grace Hopper", dietary: [],
  });
  await screenshot(page, "console-result.png");

  // Nothing pending any more: the view catches up by itself.
  await admin.getByText("Nothing is pending.").waitFor({ timeout: 15_000 });
  await context.close();
});

test("Stop waiting ends the console's call and withdraws its question", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  const page = await openConsole(context);
  await chooseTool(page, "book_table");
  await page.getByLabel(/^restaurant( \*)?$/).fill("Chez Patience");
  await page.getByRole("button", { name: "Call the tool" }).click();
  const { card } = await waitForCard(page, "Book a table at Chez Patience");
  await page.getByRole("button", { name: "Stop waiting" }).click();
  await page.getByText("Stopped waiting; the call was ended").waitFor();
  await card.getByRole("note").filter({ hasText: "The agent that asked is gone" }).waitFor();
  await context.close();
});

test("a tool result is shown as text, never as markup", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  const page = await openConsole(context);
  await chooseTool(page, "echo");
  await page.getByLabel(/^text( \*)?$/).fill("<img src=x onerror=alert(1)>");
  await page.getByRole("button", { name: "Call the tool" }).click();
  const result = page.locator("section.result");
  await result.getByRole("heading", { name: /Result of echo/ }).waitFor();
  // The server's text is text.
  assert.equal(await result.locator("pre.result-text").first().innerText(), "<img src=x onerror=alert(1)>");
  assert.equal(await result.locator("img").count(), 0);
  assert.deepEqual(await page.evaluate(() => window.__heraldTest.cspViolations), []);
  await context.close();
});
