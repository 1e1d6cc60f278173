// Shared helpers of the browser suite: the Herald under test (from the
// environment run.sh sets), Debian's chromium through playwright-core, an MCP
// agent that calls Herald the 2026-07-28 way, and bounded waits.
//
// Every wait here is bounded; nothing sleeps to wait for something that can be
// awaited.

import { strict as assert } from "node:assert";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";

function required(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the suite through tests/browser/run.sh`);
  return value;
}

export const env = {
  url: required("HERALD_URL").replace(/\/+$/, ""),
  email: required("HERALD_EMAIL"),
  password: required("HERALD_PASSWORD"),
  token: required("HERALD_TOKEN"),
  org: process.env.HERALD_ORG || "demo",
  server: process.env.HERALD_SERVER || "demo",
  // Peers run.sh starts and registers in the org: a legacy-only demo server and server-everything.
  legacyServer: process.env.HERALD_LEGACY_SERVER ?? "",
  everythingServer: process.env.HERALD_EVERYTHING_SERVER ?? "",
  // Where screenshots for the docs go; empty to take none.
  screenshots: process.env.HERALD_SCREENSHOTS ?? "",
};

/** How long a single UI expectation may take before the test fails. */
export const UI_TIMEOUT = 10_000;
/** How long an agent's tool call may take, once the person has acted. */
export const CALL_TIMEOUT = 20_000;

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** Debian's chromium with a fresh profile (plain launch uses a new temporary one). */
export async function launch() {
  return chromium.launch({
    executablePath: process.env.HERALD_CHROMIUM || "/usr/bin/chromium",
    args: CHROMIUM_ARGS,
    timeout: 30_000,
  });
}

// Instrumentation injected before the dashboard's own scripts: counts opened
// websockets (so a test knows the inbox is live before an agent asks) and
// records Content-Security-Policy violations (nothing should ever try to run
// inline code). Init scripts are not subject to the page's CSP.
const INIT_SCRIPT = () => {
  // `blocked`: new sockets go nowhere (as if Herald were unreachable); `sockets`: every one opened.
  window.__heraldTest = { socketsOpened: 0, cspViolations: [], blocked: false, sockets: [] };
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(url, ...rest) {
      // Blocked: the same origin (the page's CSP allows it) at a path that refuses the upgrade.
      super(window.__heraldTest.blocked ? String(url).replace(/\/api\/v1\/ws$/, "/api/v1/ws-unreachable") : url, ...rest);
      window.__heraldTest.sockets.push(this);
      this.addEventListener("open", () => { window.__heraldTest.socketsOpened += 1; });
    }
  };
  document.addEventListener("securitypolicyviolation", (e) => {
    window.__heraldTest.cspViolations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`);
  });
};

/** A fresh browser context (its own cookie jar), 900 px wide, with the test instrumentation. */
export async function newContext(browser, options = {}) {
  const context = await browser.newContext({ viewport: { width: 900, height: 800 }, ...options });
  context.setDefaultTimeout(UI_TIMEOUT);
  context.setDefaultNavigationTimeout(15_000);
  await context.addInitScript(INIT_SCRIPT);
  // Nothing in this suite may leave the machine: requests to anything but
  // Herald are refused unless a test routes them itself.
  await context.route(
    (url) => url.origin !== env.url && url.protocol !== "data:",
    (route) => route.abort("blockedbyclient"),
  );
  return context;
}

/** Signs the context in through the REST API (the session cookie lands in the context). */
export async function signInByApi(context) {
  const response = await context.request.post(`${env.url}/api/v1/auth/login`, {
    data: { email: env.email, password: env.password },
  });
  assert.equal(response.status(), 200, `login: ${await response.text()}`);
}

/**
 * Opens the inbox in a new page of `context` and waits until its websocket is
 * open, so what an agent asks from now on arrives live. `page.framesSent` and
 * `page.framesReceived` collect the inbox socket's messages, parsed;
 * `page.inboxResponse` is the page's HTTP response.
 */
export async function openInbox(context) {
  const page = await context.newPage();
  page.framesSent = [];
  page.framesReceived = [];
  page.on("websocket", (socket) => {
    if (!socket.url().endsWith("/api/v1/ws")) return;
    socket.on("framesent", ({ payload }) => page.framesSent.push(parseFrame(payload)));
    socket.on("framereceived", ({ payload }) => page.framesReceived.push(parseFrame(payload)));
  });
  page.inboxResponse = await page.goto(`${env.url}/`);
  await page.getByRole("heading", { name: "Inbox", level: 1 }).waitFor();
  await page.waitForFunction(() => window.__heraldTest?.socketsOpened > 0, null, { timeout: UI_TIMEOUT });
  return page;
}

function parseFrame(payload) {
  try { return JSON.parse(String(payload)); } catch { return { unparsed: String(payload) }; }
}

/** The text of the elements that describe `locator` (aria-describedby): its help and its error. */
export async function description(locator) {
  return locator.evaluate((node) => (node.getAttribute("aria-describedby") ?? "")
    .split(/\s+/)
    .map((id) => document.getElementById(id)?.textContent ?? "")
    .join(" ")
    .trim());
}

/** The question card whose message is `message` (exact). */
export function cardByMessage(page, message) {
  return page.locator("article.question").filter({
    has: page.locator("p.message", { hasText: new RegExp(`^${escapeRegExp(message)}$`) }),
  });
}

/**
 * Waits for the card with `message`, and returns its elicitation id and a
 * locator that keeps pointing at the card after its content is replaced by the
 * ending note.
 */
export async function waitForCard(page, message) {
  const found = cardByMessage(page, message);
  await found.waitFor({ state: "visible" });
  const labelledBy = await found.getAttribute("aria-labelledby");
  const id = labelledBy.replace(/^q-/, "").replace(/-title$/, "");
  return { id, card: page.locator(`article[aria-labelledby="${labelledBy}"]`) };
}

export function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Saves a screenshot for the docs, when screenshots are wanted. */
export async function screenshot(page, name) {
  if (!env.screenshots) return;
  mkdirSync(env.screenshots, { recursive: true });
  await page.screenshot({ path: join(env.screenshots, name), fullPage: true, animations: "disabled", caret: "hide" });
}

// ---------------------------------------------------------------------------------------------
// The REST API, as the demo agent's token (the demo account owns the demo org).

export async function apiAsToken(method, path, body) {
  const response = await fetch(`${env.url}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${env.token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

/** The elicitation record `id`, as its owner sees it. */
export async function elicitation(id) {
  const { status, body } = await apiAsToken("GET", `/orgs/${env.org}/elicitations/${id}`);
  assert.equal(status, 200, JSON.stringify(body));
  return body;
}

// ---------------------------------------------------------------------------------------------
// An agent: `tools/call` on Herald's MCP endpoint, 2026-07-28 style.

const inFlight = new Set();

/**
 * Starts a tool call and returns at once, without waiting for the reply.
 * `await call.outcome()` gives `{ status, messages, finals, final }`: the HTTP
 * status, every JSON-RPC message the reply carried (JSON or SSE), the final
 * responses among them, and the last of those. It waits at most `CALL_TIMEOUT`
 * ms (then aborts the call, which Herald cancels); `call.settled` says whether
 * the reply has ended. Every call is aborted after `overallMs` in any case.
 */
export function startCall(tool, args = {}, { server = env.server, overallMs = 120_000 } = {}) {
  const controller = new AbortController();
  const body = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name: tool,
      arguments: args,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  };
  const call = { tool, settled: false, controller };
  const overall = setTimeout(() => controller.abort(new Error(`${tool}: no reply within ${overallMs} ms`)), overallMs);
  const run = (async () => {
    const response = await fetch(`${env.url}/mcp/${env.org}/${server}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${env.token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": tool,
      },
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    const type = response.headers.get("content-type") ?? "";
    const text = await response.text();
    const messages = type.startsWith("text/event-stream") ? sseMessages(text) : text ? [JSON.parse(text)] : [];
    // A response is ours by its id; an error with a null id (one the server
    // could not tie to a request) is taken as ours too.
    const finals = messages.filter((m) => ("result" in m && m.id === body.id) || ("error" in m && (m.id === body.id || m.id === null)));
    return { status: response.status, contentType: type, messages, finals, final: finals.at(-1) };
  })();
  call.done = run.finally(() => {
    clearTimeout(overall);
    call.settled = true;
    inFlight.delete(call);
  });
  call.done.catch(() => {}); // awaited by the test; never an unhandled rejection meanwhile
  inFlight.add(call);
  /** The call's outcome, waiting at most `ms` more. */
  call.outcome = async (ms = CALL_TIMEOUT) => {
    let timer;
    const limit = new Promise((_, reject) => {
      timer = setTimeout(() => {
        reject(new Error(`${tool}: the agent got no result within ${ms} ms`));
        controller.abort();
      }, ms);
    });
    try {
      return await Promise.race([call.done, limit]);
    } finally {
      clearTimeout(timer);
    }
  };
  /** The text of the tool result's first content block (asserting a single, successful result). */
  call.text = async (ms) => {
    const outcome = await call.outcome(ms);
    assert.equal(outcome.status, 200, JSON.stringify(outcome.messages));
    assert.equal(outcome.finals.length, 1, `one final response: ${JSON.stringify(outcome.messages)}`);
    const { result } = outcome.final;
    assert.ok(result, `a result, not an error: ${JSON.stringify(outcome.final)}`);
    return { text: result.content?.[0]?.text, result };
  };
  return call;
}

function sseMessages(stream) {
  const messages = [];
  for (const event of stream.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""));
    if (data.length) messages.push(JSON.parse(data.join("\n")));
  }
  return messages;
}

/** Aborts every call still open (after a failed test), so the process can end. */
export function abortCalls() {
  for (const call of inFlight) call.controller.abort();
  inFlight.clear();
}

/** The server `slug` as registered in the org (name, url, cut_off, …). */
export async function registeredServer(slug = env.server) {
  const { status, body } = await apiAsToken("GET", `/orgs/${env.org}/servers`);
  assert.equal(status, 200, JSON.stringify(body));
  const server = body.servers.find((s) => s.slug === slug);
  assert.ok(server, `server ${slug} is registered`);
  return server;
}
