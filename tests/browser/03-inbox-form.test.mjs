// The inbox, live: an agent calls `book_table`; the form appears in the open
// dashboard, headed by the server as registered, with its required fields
// marked and its defaults filled in; the browser refuses an incomplete answer;
// a complete one reaches the agent, defaults included.

import { strict as assert } from "node:assert";
import { after, before, test } from "node:test";
import {
  abortCalls, description, elicitation, env, launch, newContext, openInbox, registeredServer, screenshot,
  signInByApi, startCall, waitForCard,
} from "./lib.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { abortCalls(); await browser?.close(); });

test("book_table: the form arrives live, refuses an incomplete answer, and the answer reaches the agent", { timeout: 90_000 }, async () => {
  const server = await registeredServer();
  assert.equal(server.name, "Demo Server");
  const context = await newContext(browser);
  await signInByApi(context);
  const page = await openInbox(context);
  await page.getByText("Nothing is waiting for you.").waitFor();

  const call = startCall("book_table", { restaurant: "Chez Herald" });
  const { id, card } = await waitForCard(page, "Book a table at Chez Herald");
  assert.equal(call.settled, false, "the agent waits while the person is asked");

  // Attributed to the server as the org registered it, with its host and the tool.
  assert.equal(await card.getByRole("heading", { level: 2 }).innerText(), "Demo Server");
  const byline = await card.locator("header p").innerText();
  assert.match(byline, new RegExp(`^${new URL(server.url).host.replace(/\./g, "\\.")} · book_table · \\d+:\\d\\d left$`));
  await page.getByText("Nothing is waiting for you.").waitFor({ state: "hidden" });
  assert.match(await page.title(), /^\(\d+\) Herald$/, "the tab title counts what waits");

  // Required fields are marked and required; the others are not.
  const marks = await card.evaluate((node) => ({
    starred: [...node.querySelectorAll("label")].filter((l) => l.querySelector(".req")).map((l) => l.firstChild.textContent),
    required: [...node.querySelectorAll("input, select, textarea")].filter((c) => c.required).map((c) => c.labels[0]?.firstChild.textContent),
  }));
  assert.deepEqual(marks, { starred: ["Date", "Name"], required: ["Date", "Name"] });
  const date = card.getByLabel(/^Date( \*)?$/);
  const name = card.getByLabel(/^Name( \*)?$/);
  assert.equal(await date.getAttribute("type"), "date");
  assert.equal(await card.getByLabel("Email").getAttribute("type"), "email");

  // The server's defaults are filled in.
  assert.equal(await card.getByLabel("Time").inputValue(), "19:00");
  assert.equal(await card.getByLabel("Party size").inputValue(), "2");
  assert.equal(await card.getByLabel("Party size").getAttribute("min"), "1");
  assert.equal(await card.getByLabel("Party size").getAttribute("max"), "12");
  for (const option of ["vegetarian", "vegan", "gluten-free", "none"]) {
    assert.equal(await card.getByRole("group", { name: "Dietary requirements" }).getByLabel(option).isChecked(), false);
  }
  await screenshot(page, "inbox-question.png");

  // Submitting with the required fields empty is refused in the browser: the
  // fields say why, focus goes to the first one, and nothing is sent.
  await card.getByRole("button", { name: "Submit" }).click();
  await page.waitForFunction((el) => el.validity.valueMissing && document.activeElement === el, await date.elementHandle());
  assert.notEqual(await description(date).then((d) => d.replace("Day of the reservation", "").trim()), "", "the date says why");
  assert.notEqual(await description(name).then((d) => d.replace("Name the table is booked under", "").trim()), "", "the name says why");
  assert.equal((await elicitation(id)).status, "pending");
  assert.equal(call.settled, false, "the call stays pending");

  await date.fill("2027-03-14");
  await name.fill("Ada Lovelace");
  await card.getByRole("button", { name: "Submit" }).click();

  // The card goes, leaving a note for a moment.
  await card.getByRole("note").filter({ hasText: "Sent." }).waitFor();
  await screenshot(page, "inbox-answered.png");
  await card.waitFor({ state: "detached" });
  await page.getByText("Nothing is waiting for you.").waitFor();

  // Exactly the answered fields plus the defaults reach the agent.
  const booking = { restaurant: "Chez Herald", date: "2027-03-14", time: "19:00", party_size: 2, name: "Ada Lovelace", dietary: [] };
  const { text, result } = await call.text();
  assert.deepEqual(result.structuredContent, booking);
  assert.deepEqual(JSON.parse(text), booking);
  assert.notEqual(result.isError, true);

  // One answer was sent over the socket (the refused submit sent nothing), and recorded as the person's.
  const answers = page.framesSent.filter((m) => m.type === "respond" && m.id === id);
  assert.deepEqual(answers, [{ type: "respond", id, action: "accept",
    content: { date: "2027-03-14", time: "19:00", party_size: 2, name: "Ada Lovelace", dietary: [] } }]);
  const record = await elicitation(id);
  assert.equal(record.status, "resolved");
  assert.equal(record.action, "accept");
  assert.equal(record.decided_by, "user");
  assert.deepEqual(record.content, { date: "2027-03-14", time: "19:00", party_size: 2, name: "Ada Lovelace", dietary: [] });
  await context.close();
});
