// Connecting to a server that acts as each person, from the inbox, on a Herald of its own:
// the official Python SDK's authorization support (tests/peers/python/oauth_server.py) in front
// of a `whoami` tool, registered as `acme/notes` with `auth_mode: oauth`; an agent on the
// official TypeScript SDK (v1, so its `initialize` is the request that waits). Herald holds the
// agent's request and asks the person in the inbox ("Herald asks", "Connect to Notes"); its
// button opens Herald's connect page in a new tab, which shows what connecting means (Herald's
// consent step) and on Continue goes through the server's sign-in and back to Connections, and
// the request goes on as them. The Connections page shows what they granted,
// and Disconnect (asked once more) revokes it; after that "Not now" ends the agent's request
// with an error that says where to connect.

import { strict as assert } from "node:assert";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { request as playwrightRequest } from "playwright-core";
import { CALL_TIMEOUT, UI_TIMEOUT, launch, newContext, screenshot } from "./lib.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const sdk = new URL("../peers/node/node_modules/@modelcontextprotocol/sdk/dist/esm/", import.meta.url);
const { Client } = await import(new URL("client/index.js", sdk));
const { StreamableHTTPClientTransport } = await import(new URL("client/streamableHttp.js", sdk));

const ORG = { slug: "acme", name: "Acme" };
const OWNER = { email: "owner@example.com", password: "correct horse battery staple" };
const SERVER = { slug: "notes", name: "Notes" };
/** How long the agent's SDK lets a request wait (Herald holds it while the person acts). */
const AGENT_TIMEOUT = 120_000;
/** Herald's question's own words for a call that may not go on (web-ui/inbox.js). */
const CONNECTED_NOTE = "Connected. The call that was waiting goes on as you.";
const NOT_NOW_NOTE = "Not now: the call that was waiting ends. Connect any time on the Connections page.";

let browser;
let context;
let dir;
let peer;
let herald;
let base;
let issuer;
let mcpUrl;
let token;
const logs = { peer: [], herald: [] };
const agents = new Set();

const stop = () => {
  for (const child of [herald, peer]) if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
};
process.on("exit", stop);

/** A port nobody listens on now: the OS picks one, and it is let go at once. */
function reservePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/**
 * Starts `command` and resolves with what `ready(line)` returns for the first line (of `stream`)
 * it returns something for; rejects when the process exits first, or after 60 s.
 */
function startProcess(name, command, args, options, stream, ready) {
  const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  const log = logs[name];
  const text = () => log.slice(-40).join("\n");
  const result = new Promise((resolveReady, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 60 s:\n${text()}`)), 60_000);
    child.on("error", (error) => { clearTimeout(timer); reject(error); });
    child.on("exit", (code, signal) => { clearTimeout(timer); reject(new Error(`${name} exited (${code ?? signal}):\n${text()}`)); });
    for (const which of ["stdout", "stderr"]) {
      createInterface({ input: child[which] }).on("line", (line) => {
        log.push(line);
        if (which !== stream) return;
        const value = ready(line);
        if (value !== undefined) { clearTimeout(timer); resolveReady(value); }
      });
    }
  });
  return { child, result };
}

/** The environment without any Herald setting a developer's shell may carry. */
function cleanEnv() {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("HERALD_")));
}

/** `promise`, or a failure naming `what` after `ms`. */
async function within(promise, ms, what) {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, limit]);
  } finally {
    clearTimeout(timer);
  }
}

/** What the peer's test endpoints say (`/_test/revoked`, `/_test/tokens`, …). */
async function peerLook(path) {
  const response = await fetch(`${issuer}${path}`, { signal: AbortSignal.timeout(10_000) });
  assert.equal(response.status, 200);
  return response.json();
}

before(async () => {
  const bin = process.env.HERALD_BIN;
  assert.ok(bin, "HERALD_BIN is not set: run the suite through tests/browser/run.sh");
  dir = mkdtempSync(join(tmpdir(), "herald-connect-"));

  // The MCP server and its authorization server (the official Python SDK's auth routes).
  const started = startProcess("peer", join(root, "tests/peers/.venv/bin/python"),
    [join(root, "tests/peers/python/oauth_server.py")],
    { cwd: dir, env: { ...cleanEnv(), ACCESS_TTL: "3600" } },
    "stdout", (line) => line.match(/^listening (\d+) (\d+)$/)?.slice(1));
  peer = started.child;
  const [mcpPort, asPort] = await started.result;
  mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`;
  issuer = `http://127.0.0.1:${asPort}`;

  // Herald on loopback (a development instance: loopback servers allowed), its org and owner from the CLI.
  const port = await reservePort();
  base = `http://127.0.0.1:${port}`;
  const env = { ...cleanEnv(), HERALD_LISTEN: `127.0.0.1:${port}`, HERALD_LOG_FORMAT: "json" };
  const bootstrap = spawnSync(bin, [
    "bootstrap", "--org", ORG.slug, "--org-name", ORG.name, "--email", OWNER.email, "--name", "Olive Owner", "--password-stdin",
  ], { cwd: dir, env, input: `${OWNER.password}\n`, encoding: "utf8", timeout: 30_000 });
  assert.equal(bootstrap.status, 0, `herald bootstrap: ${bootstrap.error ?? ""}${bootstrap.stdout}${bootstrap.stderr}`);
  const serving = startProcess("herald", bin, ["serve"], { cwd: dir, env }, "stderr", (line) => {
    try {
      const entry = JSON.parse(line);
      return entry.message === "herald is serving" ? entry.listen : undefined;
    } catch {
      return undefined;
    }
  });
  herald = serving.child;
  assert.equal(await serving.result, `127.0.0.1:${port}`);

  // The server, registered to act as each person, and an API token for the owner's agent.
  const api = await playwrightRequest.newContext({ baseURL: base, timeout: 10_000 });
  try {
    const login = await api.post("/api/v1/auth/login", { data: { email: OWNER.email, password: OWNER.password } });
    assert.equal(login.status(), 200, await login.text());
    const created = await api.post(`/api/v1/orgs/${ORG.slug}/servers`, {
      data: { slug: SERVER.slug, name: SERVER.name, url: mcpUrl, auth_mode: "oauth" },
    });
    assert.equal(created.status(), 201, await created.text());
    assert.equal((await created.json()).auth_mode, "oauth");
    const minted = await api.post(`/api/v1/orgs/${ORG.slug}/tokens`, { data: { name: "Olive's agent" } });
    assert.equal(minted.status(), 201, await minted.text());
    token = (await minted.json()).secret;
    assert.match(token, /^hrl_/);
  } finally {
    await api.dispose();
  }

  browser = await launch();
  // One browser profile for the owner throughout: the inbox, the connect tab, Connections.
  context = await newContext(browser);
  await context.unrouteAll();
  // This Herald and the server's sign-in, nothing else.
  await context.route(
    (url) => url.origin !== base && url.origin !== issuer && url.protocol !== "data:",
    (route) => route.abort("blockedbyclient"),
  );
  const login = await context.request.post(`${base}/api/v1/auth/login`, { data: { email: OWNER.email, password: OWNER.password } });
  assert.equal(login.status(), 200, await login.text());
});

after(async () => {
  await Promise.allSettled([...agents].map((client) => client.close()));
  await context?.close();
  await browser?.close();
  const exited = [herald, peer].filter((c) => c && c.exitCode === null && c.signalCode === null)
    .map((c) => new Promise((done) => { c.once("exit", done); setTimeout(done, 5_000); }));
  stop();
  await Promise.all(exited);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The inbox of this Herald in a new page, its websocket open (so what is asked arrives live). */
async function openInbox() {
  const page = await context.newPage();
  await page.goto(`${base}/`);
  await page.getByRole("heading", { name: "Inbox", level: 1 }).waitFor();
  await page.waitForFunction(() => window.__heraldTest?.socketsOpened > 0, null, { timeout: UI_TIMEOUT });
  return page;
}

/**
 * An agent on the official TypeScript SDK connecting to acme/notes with the owner's token,
 * started without awaiting: `connected` settles when its `initialize` has an answer, `settled`
 * says whether it has.
 */
function startAgent(name) {
  const client = new Client({ name, version: "1.0.0" }, { capabilities: {} });
  agents.add(client);
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp/${ORG.slug}/${SERVER.slug}`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const agent = { client, settled: false };
  agent.connected = client.connect(transport, { timeout: AGENT_TIMEOUT }).finally(() => { agent.settled = true; });
  agent.connected.catch(() => {}); // awaited by the test; never an unhandled rejection meanwhile
  return agent;
}

/** Herald's card asking to connect to Notes, and a locator that keeps pointing at it once it has ended. */
async function waitForConnectCard(page) {
  const found = page.locator("article.question").filter({
    has: page.getByRole("heading", { name: `Connect to ${SERVER.name}`, level: 2 }),
  });
  await found.waitFor({ state: "visible" });
  assert.equal(await found.count(), 1, "one question from Herald");
  const labelledBy = await found.getAttribute("aria-labelledby");
  return page.locator(`article[aria-labelledby="${labelledBy}"]`);
}

/** The owner's connections, as the Connections page reads them. */
async function myConnections() {
  const response = await context.request.get(`${base}/api/v1/me/connections`);
  assert.equal(response.status(), 200, await response.text());
  return (await response.json()).connections;
}

test("Connect upstream: a call waits while Herald asks in the inbox, and goes on once the person connects", { timeout: 100_000 }, async () => {
  const inbox = await openInbox();
  const agent = startAgent("olive-agent");

  // Not connected: Herald holds the agent's request and asks, as itself, in the inbox.
  const card = await waitForConnectCard(inbox);
  assert.equal((await card.locator(".asker").innerText()).trim(), "Herald asks");
  const message = (await card.locator("p.message").innerText()).trim();
  assert.match(message, /Notes acts as each person/, message);
  assert.match(message, /Connect your account/, message);
  await card.getByText(/Not now ends the call; Herald remembers nothing/).waitFor();
  const connect = card.getByRole("button", { name: `Connect to ${SERVER.name}` });
  await card.getByRole("button", { name: "Not now" }).waitFor();
  assert.equal(agent.settled, false, "the agent's request waits");
  await screenshot(inbox, "connect-in-inbox.png");

  // The button opens Herald's connect page in a new tab. Herald's one client at the sign-in
  // serves everyone, so Herald first shows what connecting means: the sign-in it sends the
  // person to, and the permissions asked for; Continue goes there.
  const [tab] = await Promise.all([context.waitForEvent("page"), connect.click()]);
  await card.getByRole("status").filter({ hasText: `Waiting for you to finish signing in to ${SERVER.name} in the new tab` }).waitFor();
  await tab.waitForURL((url) => url.origin === base && url.pathname === "/connections" && url.searchParams.get("review") === "acme/notes");
  const review = tab.getByRole("region", { name: `Connect to ${SERVER.name}?` });
  await review.waitFor();
  const reviewText = await review.innerText();
  assert.ok(reviewText.includes(new URL(issuer).host), reviewText);
  assert.match(reviewText, /Notes asks for:\s*mcp:tools/, reviewText);
  assert.doesNotMatch(reviewText, /\b(null|undefined)\b/, reviewText);
  await screenshot(tab, "connect-review.png");
  const onwards = review.getByRole("link", { name: `Continue to ${new URL(issuer).host}` });
  assert.equal(await onwards.evaluate((a) => a === document.activeElement), true, "Continue has the focus");
  await onwards.click();
  await tab.waitForURL((url) => url.origin === issuer && url.pathname === "/login");
  assert.equal(await tab.evaluate(() => window.opener), null, "the new tab has no opener");
  await tab.locator('input[name="login"]').fill("olive");
  await tab.getByRole("button", { name: "Sign in" }).click();

  // Back on Herald's Connections page, connected.
  await tab.waitForURL((url) => url.origin === base && url.pathname === "/connections");
  await tab.getByRole("status").filter({ hasText: `Connected to ${SERVER.name}. Your agents' calls to it now act as you.` }).waitFor();
  await tab.locator('li[data-target="acme/notes"]').getByText("Connected", { exact: true }).waitFor();

  // The question ended by itself, and the inbox says the call goes on.
  await card.getByRole("note").filter({ hasText: CONNECTED_NOTE }).waitFor();
  await card.waitFor({ state: "detached" });
  assert.equal(await inbox.locator("article.question").count(), 0);

  // …and the agent's request went on: it is connected, and its call acts as Olive.
  await within(agent.connected, CALL_TIMEOUT, "the agent's initialize after connecting");
  const result = await within(
    agent.client.callTool({ name: "whoami", arguments: {} }, undefined, { timeout: AGENT_TIMEOUT }),
    CALL_TIMEOUT, "whoami");
  assert.equal(result.isError ?? false, false, JSON.stringify(result));
  assert.equal(result.content?.[0]?.text, "you are olive");
  await agent.client.close();
  await tab.close();
  await inbox.close();
});

test("Connect upstream: the Connections page lists Notes connected with its permission, and Disconnect revokes it", { timeout: 60_000 }, async () => {
  const page = await context.newPage();
  await page.goto(`${base}/connections`);
  await page.getByRole("heading", { name: "Connections", level: 1 }).waitFor();
  const row = page.locator('li[data-target="acme/notes"]');
  await row.waitFor();
  await row.getByText("Connected", { exact: true }).waitFor();
  const text = await row.innerText();
  assert.match(text, /Notes\s*\(acme\/notes\)/, text);
  assert.match(text, /Permissions: mcp:tools/, text);
  assert.ok(text.includes(`at ${issuer}`), text);
  assert.match(text, /Renewed automatically/, text);
  await row.getByRole("link", { name: `Connect again to ${SERVER.name}` }).waitFor();

  // Disconnect asks once more; Stay connected keeps it.
  const disconnect = row.getByRole("button", { name: `Disconnect ${SERVER.name}` });
  await disconnect.click();
  const asking = row.getByRole("group").filter({ hasText: `Disconnect ${SERVER.name}? Herald revokes your access at its sign-in` });
  await asking.waitFor();
  await asking.getByRole("button", { name: "Stay connected" }).click();
  await asking.waitFor({ state: "detached" });
  await disconnect.waitFor();
  assert.equal((await myConnections())[0].connected, true, "still connected");
  assert.deepEqual((await peerLook("/_test/revoked")).filter((r) => r.subject === "olive"), []);

  // Disconnect, confirmed: revoked at the sign-in and forgotten.
  await disconnect.click();
  await asking.getByRole("button", { name: "Disconnect", exact: true }).click();
  await page.getByRole("status").filter({ hasText: `Disconnected from ${SERVER.name}.` }).waitFor();
  await row.getByText("Not connected", { exact: true }).waitFor();
  await row.getByText(/Not connected: a call by your agents to it waits/).waitFor();
  await row.getByRole("link", { name: `Connect to ${SERVER.name}` }).waitFor();
  assert.equal(await row.getByRole("button", { name: `Disconnect ${SERVER.name}` }).count(), 0);
  const [notes] = await myConnections();
  assert.equal(notes.connected, false, JSON.stringify(notes));
  const revoked = (await peerLook("/_test/revoked")).filter((r) => r.subject === "olive");
  assert.ok(revoked.length > 0, "olive's tokens revoked at the authorization server");
  assert.ok(revoked.every((r) => r.via === "revocation_endpoint"), JSON.stringify(revoked));
  await page.close();
});

test("Connect upstream: Not now ends the call with where to connect", { timeout: 60_000 }, async () => {
  // Not connected (the test before disconnected; on its own, disconnect here).
  if ((await myConnections()).find((c) => c.server === SERVER.slug)?.connected) {
    const gone = await context.request.delete(`${base}/api/v1/me/connections/acme/notes`);
    assert.equal(gone.status(), 204);
  }
  const inbox = await openInbox();
  const agent = startAgent("olive-agent-again");
  const card = await waitForConnectCard(inbox);
  assert.equal(agent.settled, false, "the agent's request waits");
  await card.getByRole("button", { name: "Not now" }).click();
  await card.getByRole("note").filter({ hasText: NOT_NOW_NOTE }).waitFor();

  // The agent is told why, and where to connect.
  const refused = await within(agent.connected.then(() => null, (error) => error), CALL_TIMEOUT, "the agent's initialize after Not now");
  assert.ok(refused instanceof Error, "the agent's initialize is refused");
  const where = `${base}/connections?connect=acme/notes`;
  assert.ok(refused.message.includes(where), refused.message);
  assert.match(refused.message, /you said not now/, refused.message);
  await card.waitFor({ state: "detached" });

  // Nothing is remembered: the next request asks again; an agent that leaves ends the question.
  const next = startAgent("olive-agent-leaving");
  const again = await waitForConnectCard(inbox);
  assert.equal(next.settled, false, "the next request waits too");
  await next.client.close();
  await again.getByRole("note").filter({ hasText: "The agent that asked is gone, so the question was cancelled." })
    .waitFor({ timeout: 30_000 }); // Herald notices a departed agent at its next keep-alive (10 s)

  // That address is the Connections page with Notes picked, its Connect link focused.
  const page = await context.newPage();
  await page.goto(where);
  const row = page.locator('li.wanted[data-target="acme/notes"]');
  await row.waitFor();
  await row.getByRole("link", { name: `Connect to ${SERVER.name}` }).waitFor();
  await page.waitForFunction(() => {
    const focused = document.activeElement;
    return focused?.tagName === "A" && focused.closest('li.wanted[data-target="acme/notes"]') !== null;
  }, null, { timeout: UI_TIMEOUT });
  await page.close();
  await inbox.close();
});
