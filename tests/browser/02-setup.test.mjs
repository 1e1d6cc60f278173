// First-run setup through /setup, on a Herald of its own (a fresh database
// without the demo): the link's secret travels in the URL fragment; a wrong
// secret and invalid fields are refused with messages where they belong; the
// right answers create the org and its owner and sign them in.

import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, test } from "node:test";
import { description, launch, newContext } from "./lib.mjs";

let browser;
let herald;
let dir;
let base;
let setupToken;

const stopHerald = () => { if (herald && herald.exitCode === null) herald.kill("SIGTERM"); };
process.on("exit", stopHerald);

/** Starts `herald serve` on a free port in a new directory; resolves once it serves. */
function startHerald() {
  const bin = process.env.HERALD_BIN;
  assert.ok(bin, "HERALD_BIN is not set: run the suite through tests/browser/run.sh");
  dir = mkdtempSync(join(tmpdir(), "herald-setup-"));
  herald = spawn(bin, ["serve"], {
    cwd: dir,
    env: { ...process.env, HERALD_LISTEN: "127.0.0.1:0", HERALD_LOG_FORMAT: "json" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const log = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`herald did not start within 30 s:\n${log.join("\n")}`)), 30_000);
    herald.on("exit", (code) => { clearTimeout(timer); reject(new Error(`herald exited (${code}):\n${log.join("\n")}`)); });
    createInterface({ input: herald.stderr }).on("line", (line) => {
      log.push(line);
      const token = line.match(/\/setup#token=([A-Za-z0-9_-]+)/);
      if (token) setupToken = token[1];
      let entry;
      try { entry = JSON.parse(line); } catch { return; }
      if (entry.message === "herald is serving") {
        clearTimeout(timer);
        base = `http://${entry.listen}`;
        resolve();
      }
    });
  });
}

before(async () => {
  await startHerald();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  stopHerald();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("first-run setup through /setup", { timeout: 90_000 }, async () => {
  assert.ok(setupToken, "the log announced a setup link");
  const context = await newContext(browser, { baseURL: base });
  // newContext routes away everything but the demo Herald: let this one through.
  await context.unrouteAll();
  const urls = [];
  context.on("request", (request) => urls.push(request.url()));
  let page = await context.newPage();
  const fill = async (values) => {
    for (const [label, value] of Object.entries(values)) await page.getByLabel(label, { exact: true }).fill(value);
  };
  const good = {
    "Organisation name": "Acme Rockets",
    "Organisation slug": "acme",
    "Your name": "Ada Lovelace",
    "Your email": "ada@acme.example",
    Password: "correct horse battery staple",
  };

  // A wrong secret: refused with a banner, nothing created.
  await page.goto(`${base}/setup#token=${"A".repeat(43)}`);
  await page.getByRole("heading", { name: "Set up Herald" }).waitFor();
  await fill(good);
  await page.getByRole("button", { name: "Create organisation" }).click();
  const banner = page.locator("form").getByRole("alert");
  await banner.waitFor({ state: "visible" });
  assert.match(await banner.innerText(), /\S/);
  assert.equal(new URL(page.url()).pathname, "/setup");

  // The right link, with invalid fields: each field says what is wrong with it.
  // (A new tab: going to a URL that differs only in its fragment does not
  // reload the page, and the page reads the secret once, when it loads.)
  await page.close();
  page = await context.newPage();
  await page.goto(`${base}/setup#token=${setupToken}`);
  await page.getByRole("heading", { name: "Set up Herald" }).waitFor();
  await fill({ ...good, "Organisation slug": "Acme Rockets!", Password: "short" });
  await page.getByRole("button", { name: "Create organisation" }).click();
  const slug = page.getByLabel("Organisation slug", { exact: true });
  const password = page.getByLabel("Password", { exact: true });
  await page.waitForFunction(([s, p]) => [s, p].every((input) =>
    document.getElementById(`${input.id}-error`)?.textContent.trim()), [await slug.elementHandle(), await password.elementHandle()]);
  assert.match(await description(slug), /Lowercase letters, digits and hyphens/, "the help stays");
  assert.equal(await page.locator("form").getByRole("alert").isVisible(), false, "field errors are not a banner");
  assert.equal(await password.getAttribute("autocomplete"), "new-password");

  // Fixed: the org and its owner are created, and the owner lands in the inbox.
  await fill({ "Organisation slug": "acme", Password: good.Password });
  await page.getByRole("button", { name: "Create organisation" }).click();
  await page.waitForURL(`${base}/`);
  await page.getByRole("heading", { name: "Inbox", level: 1 }).waitFor();
  const org = page.locator("ul.orgs li");
  await org.waitFor();
  assert.match(await org.innerText(), /Acme Rockets\s*\(acme\)\s*owner/);
  assert.ok((await page.locator("body > header").innerText()).includes("ada@acme.example"));

  // The secret went in a request body, never in a URL the server saw.
  assert.deepEqual(urls.filter((u) => u.includes(setupToken)), []);

  // The link works once; setup is done.
  await page.goto(`${base}/setup#token=${setupToken}`);
  await page.getByRole("heading", { name: "Herald is set up" }).waitFor();
  await context.close();
});
