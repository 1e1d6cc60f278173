// The reference server's every-variant form (@modelcontextprotocol/server-everything,
// trigger-elicitation-request): each field as its natural control, defaults
// filled in, and exactly what the person chose reaching the server (which
// echoes the raw result it received).

import { strict as assert } from "node:assert";
import { after, before, test } from "node:test";
import { abortCalls, env, escapeRegExp, launch, newContext, openInbox, screenshot, signInByApi, startCall, waitForCard } from "./lib.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { abortCalls(); await browser?.close(); });

const options = (select) => select.evaluate((s) => [...s.options].map((o) => [o.value, o.textContent]));

test("server-everything: every schema variant as its control, and the exact content reaches the server", { timeout: 90_000 }, async () => {
  assert.ok(env.everythingServer, "run.sh registers server-everything");
  const context = await newContext(browser);
  await signInByApi(context);
  const page = await openInbox(context);
  const call = startCall("trigger-elicitation-request", {}, { server: env.everythingServer });
  const { card } = await waitForCard(page, "Please provide inputs for the following fields:");
  assert.equal(await card.getByRole("heading", { level: 2 }).innerText(), "Everything");

  // Required fields' labels end in a star that assistive technology does not read.
  const byLabel = (label) => card.getByLabel(new RegExp(`^${escapeRegExp(label)}( \\*)?$`));
  const type = (label) => byLabel(label).getAttribute("type");
  // Strings by format, with their help text.
  assert.equal(await type("String"), "text");
  assert.equal(await byLabel("String").getAttribute("required"), "");
  assert.equal(await type("String with email format"), "email");
  assert.equal(await type("String with uri format"), "url");
  assert.equal(await type("String with date format"), "date");
  assert.equal(await byLabel("String with default").inputValue(), "It was a dark and stormy night.");
  assert.match(await card.getByText("Your full, legal name").innerText(), /legal name/);
  // Numbers with bounds and step.
  const integer = byLabel("Integer");
  assert.deepEqual([await integer.getAttribute("type"), await integer.getAttribute("min"), await integer.getAttribute("max"),
    await integer.getAttribute("step"), await integer.inputValue()], ["number", "1", "100", "1", "42"]);
  const number = byLabel("Number in range 1-1000");
  assert.deepEqual([await number.getAttribute("min"), await number.getAttribute("max"), await number.getAttribute("step"),
    await number.inputValue()], ["0", "1000", "any", "3.14"]);
  // A boolean is a checkbox.
  assert.equal(await type("Boolean"), "checkbox");
  // Single selects: untitled, titled (oneOf), legacy enumNames.
  const untitled = byLabel("Untitled Single Select Enum");
  assert.deepEqual((await options(untitled)).slice(1).map(([v]) => v), ["Monica", "Rachel", "Joey", "Chandler", "Ross", "Phoebe"]);
  assert.equal(await untitled.inputValue(), "Monica");
  const titled = byLabel("Titled Single Select Enum");
  assert.deepEqual((await options(titled)).slice(1), [["hero-1", "Superman"], ["hero-2", "Green Lantern"], ["hero-3", "Wonder Woman"]]);
  const legacy = byLabel("Legacy Titled Single Select Enum");
  assert.deepEqual((await options(legacy)).slice(1).map(([, t]) => t), ["Cats", "Dogs", "Birds", "Fish", "Reptiles"]);
  // Multi selects are checkbox groups, defaults ticked.
  const instruments = card.getByRole("group", { name: "Untitled Multiple Select Enum" });
  assert.equal(await instruments.getByLabel("Guitar").isChecked(), true);
  const fish = card.getByRole("group", { name: "Titled Multiple Select Enum" });
  assert.equal(await fish.getByLabel("Tuna").isChecked(), true);
  await screenshot(page, "inbox-every-variant.png");

  // The multi-select bounds are checked in the browser (max 3).
  await byLabel("String").fill("Ada Lovelace");
  for (const name of ["Piano", "Violin", "Drums"]) await instruments.getByLabel(name).check();
  await card.getByRole("button", { name: "Submit" }).click();
  await card.getByText("Choose at most 3.").waitFor();
  await instruments.getByLabel("Drums").uncheck();

  await byLabel("Boolean").check();
  await byLabel("String with email format").fill("ada@example.com");
  await byLabel("String with uri format").fill("https://example.com/ada");
  await byLabel("String with date format").fill("1815-12-10");
  await integer.fill("7");
  await untitled.selectOption("Rachel");
  await titled.selectOption({ label: "Wonder Woman" });
  await legacy.selectOption({ label: "Dogs" });
  await fish.getByLabel("Salmon").check();
  await card.getByRole("button", { name: "Submit" }).click();
  await card.getByRole("note").filter({ hasText: "Sent." }).waitFor();

  const outcome = await call.outcome();
  const texts = outcome.final.result.content.map((c) => c.text).join("\n");
  const raw = JSON.parse(texts.slice(texts.indexOf("Raw result:") + "Raw result:".length));
  assert.deepEqual(raw, {
    action: "accept",
    content: {
      name: "Ada Lovelace", check: true, firstLine: "It was a dark and stormy night.", email: "ada@example.com",
      homepage: "https://example.com/ada", birthdate: "1815-12-10", integer: 7, number: 3.14,
      untitledSingleSelectEnum: "Rachel", untitledMultipleSelectEnum: ["Guitar", "Piano", "Violin"],
      titledSingleSelectEnum: "hero-3", titledMultipleSelectEnum: ["fish-1", "fish-2"], legacyTitledEnum: "pet-2",
    },
  });
  await context.close();
});
