// Small things a new user hit (issue 15.5): the console's result after a
// declined or dismissed question (no stray `null`, no green OK) and after a
// tool error; the console's "Pick a server first." leaving once a server is
// picked; `herald serve --demo` pointing people at the dashboard's sign-in
// page; the header folding into a menu at 390 px; destructive actions styled
// as such and confirmed in the page; a signed-out visit with nothing logged as
// an error; and one date format on the invite card and everywhere else.

import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, test } from "node:test";
import { abortCalls, apiAsToken, env, escapeRegExp, launch, newContext, signInByApi, waitForCard } from "./lib.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { abortCalls(); await browser?.close(); });

// ---------------------------------------------------------------------------------------------
// Helpers

/** Collects what the browser reports as going wrong on `page`: console errors, page errors, failed requests, 4xx/5xx. */
function watchForNoise(page) {
  const noise = [];
  page.on("console", (message) => { if (message.type() === "error") noise.push(`console: ${message.text()}`); });
  page.on("pageerror", (error) => noise.push(`page error: ${error.message}`));
  page.on("requestfailed", (request) => noise.push(`failed: ${request.url()} ${request.failure()?.errorText}`));
  page.on("response", (response) => { if (response.status() >= 400) noise.push(`${response.status()}: ${response.url()}`); });
  return noise;
}

async function openConsole(context) {
  const page = await context.newPage();
  await page.goto(`${env.url}/console`);
  await page.getByRole("heading", { name: "Try a tool", level: 1 }).waitFor();
  await page.waitForFunction(() => window.__heraldTest?.socketsOpened > 0);
  return page;
}

/** Picks `server` and `tool` in the console, once the server's tools have loaded. */
async function chooseTool(page, tool, server = env.server) {
  await page.getByLabel("Server", { exact: true }).selectOption(server);
  const select = page.getByLabel("Tool", { exact: true });
  await page.waitForFunction((el) => !el.disabled, await select.elementHandle());
  await select.selectOption(tool);
}

/** Runs in the page: the contrast ratio of `node`'s text against what is behind it. */
const contrastOf = (node) => {
  const parse = (c) => {
    let m = c.match(/rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/);
    if (m) return [+m[1], +m[2], +m[3], m[4] === undefined ? 1 : +m[4]];
    m = c.match(/color\(srgb ([\d.]+) ([\d.]+) ([\d.]+)(?: \/ ([\d.]+))?\)/);
    if (m) return [m[1] * 255, m[2] * 255, m[3] * 255, m[4] === undefined ? 1 : +m[4]];
    throw new Error(`unreadable colour ${c}`);
  };
  const over = (top, bottom) => [0, 1, 2].map((i) => top[i] * top[3] + bottom[i] * (1 - top[3])).concat(1);
  const layers = [];
  for (let n = node; n; n = n.parentElement) {
    const bg = parse(getComputedStyle(n).backgroundColor);
    if (bg[3] > 0) { layers.push(bg); if (bg[3] === 1) break; }
  }
  let bg = [255, 255, 255, 1];
  for (const layer of layers.reverse()) bg = over(layer, bg);
  const fg = over(parse(getComputedStyle(node).color), bg);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
  return (hi + 0.05) / (lo + 0.05);
};

/** The computed colour of `--bad` (the danger colour) in the page. */
const dangerColour = (page) => page.evaluate(() => {
  const probe = document.createElement("span");
  probe.style.color = "var(--bad)";
  document.body.append(probe);
  const colour = getComputedStyle(probe).color;
  probe.remove();
  return colour;
});

/** Asserts `button` looks dangerous: the danger colour as its text or its background, at AA contrast. */
async function assertDanger(page, button, what) {
  const bad = await dangerColour(page);
  const { color, background, border } = await button.evaluate((b) => {
    const s = getComputedStyle(b);
    return { color: s.color, background: s.backgroundColor, border: s.borderTopColor };
  });
  assert.ok([color, background].includes(bad), `${what} is drawn in the danger colour (${bad}): ${color} on ${background}`);
  assert.equal(border, bad, `${what} has a danger-coloured border`);
  const ratio = await button.evaluate(contrastOf);
  assert.ok(ratio >= 4.5, `${what}: contrast ${ratio.toFixed(2)} is under 4.5`);
}

// ---------------------------------------------------------------------------------------------
// a. The console's result card after a decline, a dismissal and a tool error

test("Try a tool: a declined or dismissed question gives a result card that says so, with a neutral badge and no null", { timeout: 90_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  const page = await openConsole(context);
  const result = page.locator("section.result");
  for (const [button, badge, sentence, text] of [
    ["Decline", "Declined", "You declined Demo Server's question.", "Booking declined by the user"],
    ["Dismiss", "Dismissed", "You dismissed Demo Server's question without answering.", "Booking cancelled by the user"],
  ]) {
    await chooseTool(page, "book_table");
    const restaurant = `Chez ${button} ${Date.now()}`;
    await page.getByLabel(/^restaurant( \*)?$/).fill(restaurant);
    await page.getByRole("button", { name: "Call the tool" }).click();
    const { card } = await waitForCard(page, `Book a table at ${restaurant}`);
    await card.getByRole("button", { name: button, exact: true }).click();
    await page.getByText("book_table returned.").waitFor();
    const heading = result.getByRole("heading", { name: /^Result of book_table/ });
    await heading.waitFor();
    assert.equal(await heading.innerText(), `Result of book_table ${badge}`);
    const badgeNode = result.locator(".badge");
    assert.deepEqual(await badgeNode.evaluate((b) => [...b.classList]), ["badge", "neutral"], "a neutral badge, not a green OK");
    assert.notEqual(await badgeNode.evaluate((b) => getComputedStyle(b).color),
      await page.evaluate(() => { const p = document.createElement("span"); p.style.color = "var(--good)"; document.body.append(p); const c = getComputedStyle(p).color; p.remove(); return c; }),
      "the badge is not drawn in the success colour");
    assert.ok((await badgeNode.evaluate(contrastOf)) >= 4.5, "the badge is readable");
    const said = await result.innerText();
    assert.ok(said.includes(sentence), `the card says what happened: ${said}`);
    assert.equal(await result.locator("pre.result-text").innerText(), text, "the tool's own words");
    assert.doesNotMatch(said, /\bnull\b/, "no stray null");
    assert.equal(await result.locator("details").count(), 0, "no empty structured content");
    assert.equal(await result.evaluate((s) => s.classList.contains("failed")), false);
  }
  // An answered question still gives OK, and the structured content.
  await chooseTool(page, "book_table");
  await page.getByLabel(/^restaurant( \*)?$/).fill("Chez Accord");
  await page.getByRole("button", { name: "Call the tool" }).click();
  const { card } = await waitForCard(page, "Book a table at Chez Accord");
  await card.getByLabel(/^Date( \*)?$/).fill("2027-06-01");
  await card.getByLabel(/^Name( \*)?$/).fill("Grace Hopper");
  await card.getByRole("button", { name: "Submit" }).click();
  await page.getByText("book_table returned.").waitFor();
  await result.getByRole("heading", { name: "Result of book_table OK" }).waitFor();
  assert.deepEqual(await result.locator(".badge").evaluate((b) => [...b.classList]), ["badge", "accept"]);
  assert.equal(await result.locator("p.outcome").count(), 0, "no sentence about an unanswered question");
  await context.close();
});

test("Try a tool: a tool error is shown as one, in the error style", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  const page = await openConsole(context);
  // Its schema is richer than a flat form, so its arguments are JSON: out of range, the server answers with a tool error.
  await chooseTool(page, "ask_then_withdraw");
  await page.getByLabel("Arguments (JSON)").fill('{"seconds": 99}');
  await page.getByRole("button", { name: "Call the tool" }).click();
  const result = page.locator("section.result");
  await result.getByRole("heading", { name: "Result of ask_then_withdraw Tool error" }).waitFor();
  assert.deepEqual(await result.locator(".badge").evaluate((b) => [...b.classList]), ["badge", "cancel"]);
  assert.equal(await result.locator("pre.result-text").innerText(), "seconds must be from 1 to 30, not 99");
  assert.equal(await result.evaluate((s) => s.classList.contains("failed")), true);
  const bad = await dangerColour(page);
  assert.equal(await result.evaluate((s) => getComputedStyle(s).borderTopColor), bad, "the card is edged in the error colour");
  assert.equal(await result.locator(".badge").evaluate((b) => getComputedStyle(b).color), bad);
  assert.doesNotMatch(await result.innerText(), /\bnull\b/);
  await context.close();
});

// ---------------------------------------------------------------------------------------------
// b. Stale messages in the console

test("Try a tool: \"Pick a server first.\" leaves once a server is picked, and old messages leave with what caused them", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  const page = await openConsole(context);
  const toolSelect = page.getByLabel("Tool", { exact: true });
  const help = page.getByText("Pick a server first.");
  assert.equal(await help.isVisible(), true, "before a server is picked");
  await page.getByLabel("Server", { exact: true }).selectOption(env.server);
  await page.waitForFunction((el) => !el.disabled, await toolSelect.elementHandle());
  await help.waitFor({ state: "hidden" });
  assert.doesNotMatch(await toolSelect.evaluate((s) => (s.getAttribute("aria-describedby") ?? "").split(" ")
    .map((id) => document.getElementById(id)?.textContent ?? "").join(" ")), /Pick a server first/, "nor is it read out with the list");
  // Back to no server: the hint is true again.
  await page.getByLabel("Server", { exact: true }).selectOption("");
  await help.waitFor({ state: "visible" });

  // "echo returned." belongs to echo's call: choosing another tool takes it away.
  await chooseTool(page, "echo");
  await page.getByLabel(/^text( \*)?$/).fill("hello");
  await page.getByRole("button", { name: "Call the tool" }).click();
  const returned = page.getByText("echo returned.");
  await returned.waitFor();
  await toolSelect.selectOption("book_table");
  await returned.waitFor({ state: "detached" });
  await context.close();
});

// ---------------------------------------------------------------------------------------------
// c. `herald serve --demo` prints the dashboard's sign-in page

test("herald serve --demo prints the dashboard's sign-in page, and the printed account signs in there", { timeout: 90_000 }, async () => {
  const bin = process.env.HERALD_BIN;
  assert.ok(bin, "HERALD_BIN is not set: run the suite through tests/browser/run.sh");
  const dir = mkdtempSync(join(tmpdir(), "herald-demo-"));
  const herald = spawn(bin, ["serve", "--demo"], {
    cwd: dir,
    env: { ...process.env, HERALD_LISTEN: "127.0.0.1:0", HERALD_LOG_FORMAT: "json" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stop = () => { if (herald.exitCode === null) herald.kill("SIGTERM"); };
  process.on("exit", stop);
  try {
    const printed = [];
    const log = [];
    const failed = (what) => new Error(`${what}:\n${printed.join("\n")}\n${log.join("\n")}`);
    // The base URL is in the log's "herald is serving"; the instructions are on stdout, up to
    // the agent token (the last line the scripts read). Both pipes are read to the end.
    const started = Promise.all([
      new Promise((resolve, reject) => {
        herald.on("exit", (code) => reject(failed(`herald exited (${code})`)));
        createInterface({ input: herald.stderr }).on("line", (line) => {
          log.push(line);
          let entry;
          try { entry = JSON.parse(line); } catch { return; }
          if (entry.message === "herald is serving") resolve(`http://${entry.listen}`);
        });
      }),
      new Promise((resolve) => {
        createInterface({ input: herald.stdout }).on("line", (line) => {
          printed.push(line);
          if (/Agent token: *hrl_/.test(line)) resolve();
        });
      }),
    ]);
    let timer;
    const [base] = await Promise.race([started,
      new Promise((_, reject) => { timer = setTimeout(() => reject(failed("no instructions within 30 s")), 30_000); })])
      .finally(() => clearTimeout(timer));
    const text = printed.join("\n");
    const dashboard = text.match(/^ *Dashboard: +(\S+)/m)?.[1];
    assert.equal(dashboard, `${base}/login`, `the sign-in page is printed: ${text}`);
    assert.doesNotMatch(text, /auth\/login/, "a person is not sent to the API's endpoint");
    // What run.sh, quickstart-style scripts and the API tests read is still there.
    const [, email, password] = text.match(/^ *Account: +([^ ]+) \/ ([^ ]+) /m) ?? [];
    assert.ok(email && password, `the account line: ${text}`);
    assert.match(text, new RegExp(`^ *MCP URL: +${escapeRegExp(base)}/mcp/demo/demo$`, "m"));

    const context = await newContext(browser);
    await context.unrouteAll(); // this Herald is not the suite's
    const page = await context.newPage();
    await page.goto(dashboard);
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${base}/`);
    await page.getByRole("heading", { name: "Inbox", level: 1 }).waitFor();
    await context.close();
  } finally {
    stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

// ---------------------------------------------------------------------------------------------
// d. The header at 390 px

test("at 390 px the header folds into a menu: a disclosure button, keyboard operable, closed by Escape and by navigating", { timeout: 60_000 }, async () => {
  const context = await newContext(browser, { viewport: { width: 390, height: 844 } });
  await signInByApi(context);
  const page = await context.newPage();
  await page.goto(`${env.url}/history`);
  await page.locator("main h1").first().waitFor();
  const toggle = page.getByRole("button", { name: "Menu" });
  await toggle.waitFor();
  const header = page.locator("body > header");
  const height = async () => (await header.boundingBox()).height;
  assert.ok(await height() <= 72, `the closed header is one slim row (${await height()} px of 844)`);
  const history = page.getByRole("link", { name: "History" });
  assert.equal(await history.isVisible(), false, "the page links are folded away");
  assert.equal(await toggle.getAttribute("aria-expanded"), "false");
  const controls = await toggle.getAttribute("aria-controls");
  assert.equal(await page.locator(`#${controls}`).locator("nav a", { hasText: "History" }).count(), 1, "it controls the navigation");

  // The keyboard: Tab reaches it after the brand; Enter opens; Escape closes and keeps focus on it.
  const focused = () => page.evaluate(() => document.activeElement?.id || document.activeElement?.textContent.trim());
  await page.locator("body > header .brand").focus();
  await page.keyboard.press("Tab");
  assert.equal(await focused(), "menu-toggle");
  await page.keyboard.press("Enter");
  assert.equal(await toggle.getAttribute("aria-expanded"), "true");
  await history.waitFor({ state: "visible" });
  assert.equal(await page.getByRole("link", { name: "Audit log" }).isVisible(), true, "admin pages too");
  assert.equal(await page.getByRole("button", { name: "Sign out" }).isVisible(), true);
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0, "open, nothing sticks out");
  await page.keyboard.press("Escape");
  assert.equal(await toggle.getAttribute("aria-expanded"), "false");
  await history.waitFor({ state: "hidden" });
  assert.equal(await focused(), "menu-toggle");
  // Space opens it too; from inside the menu, Escape closes it and focus goes back to its button.
  await page.keyboard.press("Space");
  await history.waitFor({ state: "visible" });
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.getElementById("nav").contains(document.activeElement)), true, "Tab goes into the menu");
  await page.keyboard.press("Escape");
  await history.waitFor({ state: "hidden" });
  assert.equal(await focused(), "menu-toggle");

  // Following a link closes it: the next page starts closed.
  await toggle.click();
  await page.getByRole("link", { name: "Tokens" }).click();
  await page.waitForURL(`${env.url}/tokens`);
  await page.getByRole("heading", { name: "API tokens", level: 1 }).waitFor();
  assert.equal(await toggle.getAttribute("aria-expanded"), "false");
  assert.equal(await page.getByRole("link", { name: "History" }).isVisible(), false);
  await page.goBack();
  await page.waitForURL(`${env.url}/history`);
  assert.equal(await page.getByRole("button", { name: "Menu" }).getAttribute("aria-expanded"), "false", "and so does the page gone back to");
  await context.close();

  // The wide bar is as it was: no menu button, every link in view.
  const wide = await newContext(browser);
  await signInByApi(wide);
  const widePage = await wide.newPage();
  await widePage.goto(`${env.url}/history`);
  await widePage.getByRole("link", { name: "History" }).waitFor({ state: "visible" });
  assert.equal(await widePage.locator("#menu-toggle").isVisible(), false);
  assert.equal(await widePage.getByRole("link", { name: "Audit log" }).isVisible(), true);
  await wide.close();

  // Signed out there is nothing to fold: no button.
  const signedOut = await newContext(browser, { viewport: { width: 390, height: 844 } });
  const login = await signedOut.newPage();
  await login.goto(`${env.url}/login`);
  await login.getByRole("heading", { name: "Sign in" }).waitFor();
  assert.equal(await login.locator("#menu-toggle").isVisible(), false);
  await signedOut.close();
});

// ---------------------------------------------------------------------------------------------
// e. Destructive actions

for (const colorScheme of ["light", "dark"]) {
  test(`destructive actions look it and are confirmed in the page, naming the thing (${colorScheme})`, { timeout: 90_000 }, async () => {
    const stamp = Date.now();
    const context = await newContext(browser, { colorScheme });
    await signInByApi(context);
    // Tokens are made by a signed-in person, not by another token.
    const made = await context.request.post(`${env.url}/api/v1/orgs/${env.org}/tokens`,
      { data: { name: `doomed-${colorScheme}-${stamp}` }, headers: { origin: env.url } });
    assert.equal(made.status(), 201, await made.text());
    const token = { body: await made.json() };
    const server = await apiAsToken("POST", `/orgs/${env.org}/servers`,
      { slug: `doomed-${colorScheme}`, name: `Doomed ${colorScheme}`, url: "http://127.0.0.1:9/mcp" });
    assert.equal(server.status, 201, JSON.stringify(server.body));
    const invite = await apiAsToken("POST", `/orgs/${env.org}/invites`, { email: `doomed-${colorScheme}-${stamp}@example.com`, role: "member" });
    assert.equal(invite.status, 201, JSON.stringify(invite.body));
    // A member to remove: someone accepts a second invite.
    const memberEmail = `leaving-${colorScheme}-${stamp}@example.com`;
    const second = await apiAsToken("POST", `/orgs/${env.org}/invites`, { email: memberEmail, role: "member" });
    const accepted = await fetch(`${env.url}/api/v1/invites/accept`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: new URL(second.body.link).hash.replace(/^#token=/, ""), name: `Leaving ${colorScheme}`, password: "a long enough passphrase" }),
    });
    assert.equal(accepted.status, 201, await accepted.text());

    const page = await context.newPage();
    const noise = watchForNoise(page);
    page.on("dialog", (dialog) => { noise.push(`dialog: ${dialog.message()}`); dialog.dismiss(); });
    try {
      // Tokens: Revoke.
      await page.goto(`${env.url}/tokens`);
      const tokenRow = page.locator("li.row").filter({ hasText: token.body.name });
      const revoke = tokenRow.getByRole("button", { name: `Revoke ${token.body.name}` });
      await revoke.waitFor();
      await assertDanger(page, revoke, "Revoke (token)");
      await revoke.click();
      const question = tokenRow.getByRole("group", { name: `Really revoke “${token.body.name}”? Agents using it stop working at once, and it cannot be brought back.` });
      await question.waitFor();
      const keep = question.getByRole("button", { name: "Keep" });
      assert.equal(await keep.evaluate((b) => b === document.activeElement), true, "focus starts on the safe choice");
      const confirm = question.getByRole("button", { name: "Revoke", exact: true });
      await assertDanger(page, confirm, "the confirming Revoke");
      await keep.click();
      await revoke.waitFor();
      assert.equal(await revoke.evaluate((b) => b === document.activeElement), true, "Keep puts focus back on the button");
      // Escape keeps it too.
      await revoke.click();
      await question.waitFor();
      await page.keyboard.press("Escape");
      await revoke.waitFor();
      const stillThere = await fetch(`${env.url}/api/v1/orgs/${env.org}/servers`, { headers: { authorization: `Bearer ${token.body.secret}` } });
      assert.equal(stillThere.status, 200, "kept: the token still works");
      await revoke.click();
      await question.getByRole("button", { name: "Revoke", exact: true }).click();
      await page.getByText(`Token “${token.body.name}” revoked.`).waitFor();
      await tokenRow.waitFor({ state: "detached" });
      const refused = await fetch(`${env.url}/api/v1/orgs/${env.org}/servers`, { headers: { authorization: `Bearer ${token.body.secret}` } });
      assert.equal(refused.status, 401, "revoked: the token no longer works");

      // Servers: Cut off (a form that asks) and Delete.
      await page.goto(`${env.url}/admin/servers`);
      const card = page.locator("article.server").filter({ has: page.getByRole("heading", { name: new RegExp(`^Doomed ${colorScheme}`) }) });
      const cutOff = card.getByRole("button", { name: `Cut off Doomed ${colorScheme}` });
      await cutOff.waitFor();
      await assertDanger(page, cutOff, "Cut off");
      await cutOff.click();
      await card.getByRole("heading", { name: `Really cut off Doomed ${colorScheme} for everyone?` }).waitFor();
      await assertDanger(page, card.getByRole("button", { name: `Cut off Doomed ${colorScheme}`, exact: true }).last(), "the confirming Cut off");
      await card.getByRole("button", { name: "Keep" }).click();
      await card.getByRole("heading", { name: /^Really cut off/ }).waitFor({ state: "detached" });
      assert.equal((await apiAsToken("GET", `/orgs/${env.org}/servers/doomed-${colorScheme}`)).body.cut_off, null, "kept: not cut off");
      const del = card.getByRole("button", { name: `Delete Doomed ${colorScheme}` });
      await assertDanger(page, del, "Delete (server)");
      await del.click();
      const really = card.getByRole("group", { name: new RegExp(`^Really delete Doomed ${colorScheme}\\? Agents using its endpoint stop working`) });
      await really.waitFor();
      await assertDanger(page, really.getByRole("button", { name: "Delete", exact: true }), "the confirming Delete");
      await really.getByRole("button", { name: "Delete", exact: true }).click();
      await page.getByText(`Doomed ${colorScheme} deleted.`).waitFor();
      assert.equal((await apiAsToken("GET", `/orgs/${env.org}/servers/doomed-${colorScheme}`)).status, 404);

      // Members: revoke an invite, remove a member.
      await page.goto(`${env.url}/admin/members`);
      const inviteRow = page.locator("li.row").filter({ hasText: invite.body.email });
      const revokeInvite = inviteRow.getByRole("button", { name: `Revoke the invite for ${invite.body.email}` });
      await revokeInvite.waitFor();
      await assertDanger(page, revokeInvite, "Revoke (invite)");
      await revokeInvite.click();
      const askInvite = inviteRow.getByRole("group", { name: `Really revoke the invite for ${invite.body.email}? Its link stops working at once.` });
      await askInvite.getByRole("button", { name: "Revoke", exact: true }).click();
      await page.getByText(`Invite for ${invite.body.email} revoked.`).waitFor();
      const preview = await fetch(`${env.url}/api/v1/invites/preview`, {
        method: "POST", headers: { "content-type": "application/json" },
        body: JSON.stringify({ token: new URL(invite.body.link).hash.replace(/^#token=/, "") }),
      });
      assert.equal(preview.status, 410, "the revoked link is spent");

      const memberRow = page.locator("li.row").filter({ hasText: memberEmail });
      const remove = memberRow.getByRole("button", { name: `Remove Leaving ${colorScheme}` });
      await assertDanger(page, remove, "Remove (member)");
      await remove.click();
      const askRemove = memberRow.getByRole("group", { name: /^Really remove Leaving .* from .*\? They lose access at once, and their API tokens here are deleted\.$/ });
      await askRemove.getByRole("button", { name: "Keep" }).waitFor();
      await askRemove.getByRole("button", { name: "Remove", exact: true }).click();
      await page.getByText(`Leaving ${colorScheme} removed.`).waitFor();
      const members = await apiAsToken("GET", `/orgs/${env.org}/members`);
      assert.equal(members.body.members.some((m) => m.user.email === memberEmail), false);
      assert.deepEqual(noise, [], "no window.confirm, nothing failed");
    } finally {
      await apiAsToken("DELETE", `/orgs/${env.org}/servers/doomed-${colorScheme}`);
      await context.close();
    }
  });
}

// ---------------------------------------------------------------------------------------------
// f. A signed-out visit

test("a signed-out visit to / lands on /login with nothing logged as an error", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  const page = await context.newPage();
  const noise = watchForNoise(page);
  await page.goto(`${env.url}/`);
  await page.waitForURL(`${env.url}/login`);
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
  await page.waitForLoadState("networkidle");
  assert.deepEqual(noise, []);
  // An org page, and a session that ended (its cookie still in the jar), go the same quiet way.
  await signInByApi(context);
  await context.request.post(`${env.url}/api/v1/auth/logout`, { headers: { origin: env.url } });
  assert.equal((await context.cookies()).length, 0, "logout clears the cookie");
  const stale = await context.request.post(`${env.url}/api/v1/auth/login`, { data: { email: env.email, password: env.password } });
  assert.equal(stale.status(), 200);
  const cookie = (await context.cookies()).find((c) => c.name.includes("herald_session"));
  await context.request.post(`${env.url}/api/v1/auth/logout`, { headers: { origin: env.url } });
  await context.addCookies([cookie]); // ended on the server, still presented by the browser
  await page.goto(`${env.url}/history`);
  await page.waitForURL(`${env.url}/login`);
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
  await page.waitForLoadState("networkidle");
  assert.deepEqual(noise, []);
  await context.close();
});

// ---------------------------------------------------------------------------------------------
// g. One date format

test("dates read the same everywhere: the invite card, its link, the invite page, tokens and servers", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  const page = await context.newPage();
  await page.goto(`${env.url}/admin/members`);
  const email = `dated-${Date.now()}@example.com`;
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByRole("button", { name: "Create invite link" }).click();
  const box = page.locator(".once");
  await box.getByRole("heading", { name: `Invite link for ${email}` }).waitFor();
  const link = await box.locator("code.secret").innerText();
  const row = page.locator("li.row").filter({ hasText: email });
  await row.waitFor();
  const shown = (scope) => scope.locator("time").evaluateAll((nodes) => nodes.map((n) => ({ at: n.getAttribute("datetime"), text: n.textContent })));
  const [sent, expires] = await shown(row);
  const [until] = await shown(box);
  assert.ok(sent && expires && until, "the card's dates are <time> elements");
  assert.equal(until.at, expires.at);
  assert.equal(until.text, expires.text, "the link's expiry reads as the card's");
  // No other rendering of a date on the card (the old one was toLocaleString's 1/2/2026, 10:11:12).
  assert.doesNotMatch(await box.locator("p", { hasText: "works once" }).innerText(), /\d{1,2}\/\d{1,2}\/\d{4}|\d{1,2}:\d{2}:\d{2}/);

  // Every <time> on these pages is in the one format, from ui.js time().
  const oneFormat = async (p, where) => {
    const times = await p.locator("main time").evaluateAll((nodes) => nodes.map((n) => ({
      text: n.textContent,
      expected: new Date(n.getAttribute("datetime")).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }),
    })));
    assert.ok(times.length > 0, `${where} shows dates`);
    for (const { text, expected } of times) assert.equal(text, expected, where);
  };
  await oneFormat(page, "/admin/members");
  for (const path of ["/tokens", "/admin/servers"]) {
    const other = await context.newPage();
    await other.goto(`${env.url}${path}`);
    await other.locator("main time").first().waitFor();
    await oneFormat(other, path);
    await other.close();
  }

  // The invite page says until when, the same way.
  const visitor = await newContext(browser);
  const invited = await visitor.newPage();
  const noise = watchForNoise(invited);
  await invited.goto(link);
  await invited.getByRole("heading", { name: "Accept the invite" }).waitFor();
  await invited.waitForLoadState("networkidle");
  assert.deepEqual(noise, [], "signed out, the invite page asks nothing that fails");
  const [onPage] = await shown(invited.locator("form"));
  assert.equal(new Date(onPage.at).getTime(), new Date(until.at).getTime());
  assert.equal(onPage.text, until.text, "the invite page shows the expiry as the card does");
  await visitor.close();
  const invites = await apiAsToken("GET", `/orgs/${env.org}/invites`);
  const mine = invites.body.invites.find((i) => i.email === email);
  if (mine) await apiAsToken("DELETE", `/orgs/${env.org}/invites/${mine.id}`);
  await context.close();
});
