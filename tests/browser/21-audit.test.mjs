// The audit log as an admin reads it: entries titled in words (a blocked
// credential ask is "Question declined automatically", with its rule), a
// policy edit shown as a diff (old value struck through, new beside it),
// filters that name a server and a person (a former member too), and the two
// export buttons downloading files with exactly the filtered entries.

import { strict as assert } from "node:assert";
import { readFile } from "node:fs/promises";
import { after, before, test } from "node:test";
import { abortCalls, apiAsToken, env, launch, newContext, screenshot, signInByApi, startCall } from "./lib.mjs";

let browser;
let policyBefore;
before(async () => {
  browser = await launch();
  const { status, body } = await apiAsToken("GET", `/orgs/${env.org}/policy`);
  assert.equal(status, 200, JSON.stringify(body));
  policyBefore = body;
});
after(async () => {
  abortCalls();
  // Whatever happened, the policy is as the files before this one left it.
  if (policyBefore) await apiAsToken("PUT", `/orgs/${env.org}/policy`, policyBefore);
  await browser?.close();
});

/** RFC 4180 as Herald writes it: every field quoted, quotes doubled, CRLF after each record. */
function parseCsv(text) {
  const records = [];
  let record = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (c === '"') quoted = false; else field += c;
    } else if (c === '"' && field === "") quoted = true;
    else if (c === ",") { record.push(field); field = ""; }
    else if (c === "\r" && text[i + 1] === "\n") { record.push(field); records.push(record); record = []; field = ""; i++; }
    else throw new Error(`${JSON.stringify(c)} outside quotes at ${i}: every field is quoted`);
  }
  assert.equal(field + record.join(""), "", "the last record ends with CRLF");
  return records;
}

/** Submits the filter form and waits until the list shows what it answered. */
async function applyFilters(page) {
  const answered = page.waitForResponse((r) => r.url().includes(`/api/v1/orgs/${env.org}/audit?`));
  await page.getByRole("button", { name: "Apply filters" }).click();
  assert.equal((await answered).status(), 200);
  await page.waitForFunction(() => !document.querySelector("form.filters button[type=submit]").hasAttribute("aria-busy"));
}

const titles = (page) => page.locator("li.audit-entry .audit-title").allInnerTexts();

/** Clicks an export button; the downloaded file's name and text. */
async function download(page, name) {
  const [file] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name }).click()]);
  assert.equal(await file.failure(), null);
  return { name: file.suggestedFilename(), text: await readFile(await file.path(), "utf8") };
}

test("Audit log: titles in words, a policy edit as a diff, filters by server and person, and both exports", { timeout: 120_000 }, async () => {
  const stamp = Date.now();
  // Something the policy answered: the demo server fishing for a password.
  const { text } = await startCall("fish_for_password").text();
  assert.equal(text, "Password request declined by the user");

  // A person who joins, mutes a server and is removed: a former member with entries of her own.
  const email = `ada-${stamp}@example.com`;
  const invite = await apiAsToken("POST", `/orgs/${env.org}/invites`, { email, role: "member" });
  assert.equal(invite.status, 201, JSON.stringify(invite.body));
  const ada = await newContext(browser);
  const accepted = await ada.request.post(`${env.url}/api/v1/invites/accept`, {
    data: { token: new URL(invite.body.link).hash.replace(/^#token=/, ""), name: "Ada Auditee", password: "a long enough passphrase" },
  });
  assert.equal(accepted.status(), 201, await accepted.text());
  const adaId = (await accepted.json()).user.id;
  const muted = await ada.request.post(`${env.url}/api/v1/orgs/${env.org}/mutes`, { data: { server: env.server } });
  assert.equal(muted.status(), 201, await muted.text());
  await ada.close();
  assert.equal((await apiAsToken("DELETE", `/orgs/${env.org}/members/${adaId}`)).status, 204);

  const context = await newContext(browser, { acceptDownloads: true });
  await signInByApi(context);
  const page = await context.newPage();

  // A policy edit in the editor.
  await page.goto(`${env.url}/admin/policy`);
  const cap = page.getByLabel("Whole organisation, per hour");
  const oldCap = await cap.inputValue();
  const newCap = String(Number(oldCap) - 1);
  await cap.fill(newCap);
  await page.getByRole("button", { name: "Save policy" }).click();
  await page.getByText("Policy saved.").waitFor();

  await page.goto(`${env.url}/admin/audit`);
  await page.getByRole("heading", { name: "Audit log", level: 1 }).waitFor();
  const entries = page.locator("li.audit-entry");
  await entries.first().waitFor();

  // Newest first: the policy change, as a diff of the one value that changed.
  const policy = entries.filter({ has: page.locator(".audit-title", { hasText: /^Policy changed$/ }) }).first();
  await policy.waitFor();
  const changes = policy.locator(".audit-diff li");
  assert.equal(await changes.count(), 1, await policy.innerText());
  assert.equal(await changes.locator(".diff-label").innerText(), "Rate cap for the whole organisation, per hour");
  assert.equal(await changes.locator("del").innerText(), oldCap);
  assert.equal(await changes.locator("ins").innerText(), newCap);
  assert.match(await changes.locator("del").evaluate((n) => getComputedStyle(n).textDecorationLine), /line-through/);
  assert.match(await policy.locator(".facts").innerText(), /By\s*.+\(.+@.+\)/, "who did it, by name and email");

  // The blocked credential ask, in words, with its rule in words and the server by name.
  const declined = entries.filter({ has: page.locator(".audit-title", { hasText: /^Question declined automatically$/ }) }).first();
  await declined.waitFor();
  const facts = await declined.locator(".facts").innerText();
  assert.match(facts, /Rule\s*credential ask/, facts);
  assert.match(facts, /Server\s*Demo Server \(demo\)/, facts);
  await screenshot(page, "admin-audit.png");
  // Titles are words, never the codes (those are shown apart, small).
  for (const title of await titles(page)) assert.doesNotMatch(title, /^[a-z_]+\.[a-z_]+$/, title);

  // Filter by server, chosen by its registered name.
  const server = page.getByLabel("Server", { exact: true });
  assert.ok((await server.locator("option").allInnerTexts()).includes("Demo Server"));
  await server.selectOption({ label: "Demo Server" });
  await applyFilters(page);
  const serverFacts = await entries.locator(".facts").allInnerTexts();
  assert.ok(serverFacts.length > 0);
  for (const f of serverFacts) assert.match(f, /Server\s*Demo Server \(demo\)/, f);
  assert.ok((await titles(page)).includes("Question declined automatically"));
  assert.ok(!(await titles(page)).includes("Policy changed"), "the policy concerns no server");

  // Filter by person: Ada is a former member, listed as one, by name and email.
  await page.getByRole("button", { name: "Clear" }).click();
  await page.waitForFunction(() => !document.querySelector("form.filters button[type=submit]").hasAttribute("aria-busy"));
  const person = page.getByLabel("Person");
  const former = person.locator('optgroup[label="Former members"] option', { hasText: `Ada Auditee (${email})` });
  assert.equal(await former.count(), 1);
  await person.selectOption({ label: `Ada Auditee (${email})` });
  await applyFilters(page);
  assert.deepEqual((await titles(page)).sort(), ["Invite accepted", "Member removed", "Server muted"]);
  for (const f of await entries.locator(".facts").allInnerTexts()) assert.match(f, /Ada Auditee/, f);

  // Both exports carry the filters the list shows, and every entry they match.
  const csv = await download(page, "Export CSV");
  assert.match(csv.name, new RegExp(`^herald-audit-${env.org}-\\d{4}-\\d{2}-\\d{2}\\.csv$`));
  const [header, ...rows] = parseCsv(csv.text);
  assert.deepEqual(header.slice(0, 4), ["id", "at", "title", "action"]);
  const column = (name) => header.indexOf(name);
  assert.deepEqual(rows.map((r) => r[column("title")]).sort(), ["Invite accepted", "Member removed", "Server muted"]);
  for (const r of rows) assert.ok(r[column("user_id")] === adaId || r[column("actor_id")] === adaId, r.join(" | "));
  assert.equal(rows.find((r) => r[column("action")] === "member.removed")[column("user_name")], "Ada Auditee");

  const jsonl = await download(page, "Export JSON lines");
  assert.match(jsonl.name, new RegExp(`^herald-audit-${env.org}-\\d{4}-\\d{2}-\\d{2}\\.jsonl$`));
  const lines = jsonl.text.split("\n").filter(Boolean).map((line) => JSON.parse(line));
  assert.deepEqual(lines.map((e) => e.action).sort(), ["invite.accepted", "member.removed", "mute.added"]);
  assert.ok(lines.every((e) => e.user_email === email));

  // Each export is itself in the log.
  await page.getByRole("button", { name: "Clear" }).click();
  await page.waitForFunction(() => !document.querySelector("form.filters button[type=submit]").hasAttribute("aria-busy"));
  await page.getByLabel("What happened").selectOption({ label: "Audit log exported" });
  await applyFilters(page);
  const exported = await titles(page);
  assert.ok(exported.length >= 2 && exported.every((t) => t === "Audit log exported"), exported.join(", "));
});
