// The admin pages doing their jobs: a server's connection test, moving a
// server to another host (its headers are asked for again), a policy
// change that takes effect on the next question, and an invite link that a
// new person opens to create their account and land in the inbox.

import { strict as assert } from "node:assert";
import { after, before, test } from "node:test";
import {
  abortCalls, apiAsToken, env, launch, newContext, openInbox, screenshot, signInByApi, startCall, waitForCard,
} from "./lib.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => {
  abortCalls();
  // Whatever happened, credential asks are blocked again for the files that follow.
  const { status, body } = await apiAsToken("GET", `/orgs/${env.org}/policy`);
  if (status === 200 && body.credential_ask.mode !== "block") {
    body.credential_ask.mode = "block";
    await apiAsToken("PUT", `/orgs/${env.org}/policy`, body);
  }
  await browser?.close();
});

test("Servers: Test connection reports the eras the server offers, the one Herald speaks and how many tools it has", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  const page = await context.newPage();
  await page.goto(`${env.url}/admin/servers`);
  const card = page.locator("article.server").filter({ has: page.getByRole("heading", { name: /^Demo Server/ }) });
  await card.getByRole("button", { name: "Test the connection to Demo Server" }).click();
  const report = card.locator(".test-result.ok");
  await report.waitFor();
  // The demo server speaks both eras; automatic means a 2025-11-25 session.
  assert.match(await report.innerText(),
    /^Connected in \d+ ms: .*Herald speaks MCP 2025-11-25 to it, \d+ tools\. It offers 2025-11-25 and 2026-07-28\.$/);
  await screenshot(page, "admin-servers-test.png");
  await context.close();
});

test("Servers: moving a server to another host asks for its headers again, and nothing changes until they are given", { timeout: 60_000 }, async () => {
  const registered = await apiAsToken("POST", `/orgs/${env.org}/servers`,
    { slug: "vault", name: "Vault", url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer browser-test-secret" } });
  assert.equal(registered.status, 201, JSON.stringify(registered.body));
  try {
    const context = await newContext(browser);
    await signInByApi(context);
    const page = await context.newPage();
    await page.goto(`${env.url}/admin/servers`);
    const card = page.locator("article.server").filter({ has: page.getByRole("heading", { name: /^Vault/ }) });
    await card.getByRole("button", { name: "Edit Vault" }).click();
    await card.getByLabel("URL").fill("http://127.0.0.1:10/mcp");
    await card.getByRole("button", { name: "Save changes" }).click();
    await card.getByText("The URL now points to another scheme, host or port").waitFor();
    const kept = await apiAsToken("GET", `/orgs/${env.org}/servers/vault`);
    assert.equal(kept.body.url, "http://127.0.0.1:9/mcp");
    assert.deepEqual(kept.body.header_names, ["authorization"]);

    await card.getByLabel("Remove all headers").check();
    await card.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("Vault saved.").waitFor();
    const moved = await apiAsToken("GET", `/orgs/${env.org}/servers/vault`);
    assert.equal(moved.body.url, "http://127.0.0.1:10/mcp");
    assert.deepEqual(moved.body.header_names, []);
    await context.close();
  } finally {
    await apiAsToken("DELETE", `/orgs/${env.org}/servers/vault`);
  }
});

test("Policy: switching credential asks to warn shows the next one behind a loud warning", { timeout: 90_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  const editor = await context.newPage();
  await editor.goto(`${env.url}/admin/policy`);
  const mode = editor.getByLabel("When a server asks for a credential");
  assert.equal(await mode.inputValue(), "block");
  await mode.selectOption("warn");
  // An out-of-range value is refused inline, and nothing is saved.
  const deadline = editor.getByLabel("Deadline for an answer (seconds)");
  const before = await deadline.inputValue();
  await deadline.fill("5");
  await editor.getByRole("button", { name: "Save policy" }).click();
  await editor.getByText("Some fields need fixing").waitFor();
  assert.equal((await apiAsToken("GET", `/orgs/${env.org}/policy`)).body.credential_ask.mode, "block");
  await deadline.fill(before);
  await editor.getByRole("button", { name: "Save policy" }).click();
  await editor.getByText("Policy saved.").waitFor();
  assert.equal((await apiAsToken("GET", `/orgs/${env.org}/policy`)).body.credential_ask.mode, "warn");

  // The next credential ask is shown, behind the warning, instead of blocked.
  const inbox = await openInbox(context);
  const call = startCall("fish_for_password");
  const { card } = await waitForCard(inbox, "Please enter your account password to continue.");
  const warning = card.locator(".warning");
  assert.equal(await warning.getAttribute("role"), "alert");
  assert.match(await warning.innerText(), /looks like a request for a credential/);
  await screenshot(inbox, "inbox-credential-warning.png");
  await card.getByRole("button", { name: "Decline" }).click();
  const { text } = await call.text();
  assert.equal(text, "Password request declined by the user");

  // And back: the editor puts block back, and the ask is blocked again.
  await editor.getByLabel("When a server asks for a credential").selectOption("block");
  await editor.getByRole("button", { name: "Save policy" }).click();
  await editor.getByText("Policy saved.").waitFor();
  const blocked = startCall("fish_for_password");
  assert.equal((await blocked.text()).text, "Password request declined by the user");
  await inbox.locator(".note").filter({ hasText: "Demo Server" }).filter({ hasText: "a request for a credential" }).waitFor();
  await context.close();
});

test("Members: an invite link opens a page where the new person creates an account and lands in the inbox", { timeout: 90_000 }, async () => {
  const admin = await newContext(browser);
  await signInByApi(admin);
  const page = await admin.newPage();
  await page.goto(`${env.url}/admin/members`);
  const email = `newcomer-${Date.now()}@example.com`;
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Role", { exact: true }).selectOption("member");
  await page.getByRole("button", { name: "Create invite link" }).click();
  await page.getByRole("heading", { name: `Invite link for ${email}` }).waitFor();
  const link = await page.locator("code.secret").innerText();
  assert.match(link, new RegExp(`^${env.url.replace(/[.]/g, "\\.")}/invite#token=`));
  await admin.close();

  const newcomer = await newContext(browser);
  const invited = await newcomer.newPage();
  await invited.goto(link);
  await invited.getByRole("heading", { name: "Accept the invite" }).waitFor();
  assert.match(await invited.locator("form p.muted").first().innerText(), new RegExp(`as member \\(${email.replace(/[.]/g, "\\.")}\\)`));
  await invited.getByLabel("Your name").fill("Nia Newcomer");
  await invited.getByLabel("Password").fill("a long enough passphrase");
  await invited.getByRole("button", { name: "Join" }).click();
  await invited.getByRole("heading", { name: "Inbox", level: 1 }).waitFor();
  await invited.getByText(email).waitFor();
  // A member sees no admin pages.
  assert.equal(await invited.getByRole("link", { name: "Policy" }).count(), 0);
  // The link is spent.
  const again = await (await newContext(browser)).newPage();
  await again.goto(link);
  await again.getByRole("heading", { name: "This invite cannot be used" }).waitFor();
  await newcomer.close();
});
