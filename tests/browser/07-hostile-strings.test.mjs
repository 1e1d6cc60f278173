// What servers and admins type is text, never markup: a server registered with
// a name full of HTML, asking a question whose message is full of HTML, is
// shown literally and runs nothing. Names with bidirectional overrides are
// refused at registration. The pages carry a strict Content-Security-Policy.

import { strict as assert } from "node:assert";
import { after, before, test } from "node:test";
import {
  abortCalls, apiAsToken, elicitation, env, launch, newContext, openInbox, registeredServer, signInByApi, startCall,
  waitForCard,
} from "./lib.mjs";

const EVIL_SLUG = "evil";
const EVIL_NAME = `<img src=x onerror=window.__pwned=1><script>window.__pwned=1</script>`;
const EVIL_SERVICE = `<img src=x onerror="window.__pwned=2">`;

let browser;
before(async () => { browser = await launch(); });
after(async () => {
  abortCalls();
  await browser?.close();
  await apiAsToken("DELETE", `/orgs/${env.org}/servers/${EVIL_SLUG}`);
});

test("the dashboard's pages carry a strict Content-Security-Policy", { timeout: 30_000 }, async () => {
  for (const path of ["/", "/login", "/setup", "/invite"]) {
    const response = await fetch(`${env.url}${path}`, { redirect: "manual" });
    assert.equal(response.status, 200, path);
    const csp = response.headers.get("content-security-policy") ?? "";
    assert.match(csp, /(^|;)\s*default-src 'none'/, `${path}: ${csp}`);
    assert.match(csp, /(^|;)\s*script-src 'self'(;|$)/, `${path}: ${csp}`);
    assert.match(csp, /(^|;)\s*frame-ancestors 'none'/, `${path}: ${csp}`);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, `${path}: ${csp}`);
    assert.equal(response.headers.get("x-frame-options"), "DENY", path);
  }
});

test("a server name with a right-to-left override is refused", { timeout: 30_000 }, async () => {
  const { url } = await registeredServer();
  const refused = await apiAsToken("POST", `/orgs/${env.org}/servers`, {
    slug: "evil-rtl", name: `<img src=x onerror="window.__pwned=1">Evil\u202Egnp.exe`, url,
  });
  assert.equal(refused.status, 422, JSON.stringify(refused.body));
  assert.equal(refused.body.type, "urn:herald:problem:validation-failed");
  assert.deepEqual(refused.body.errors.map((e) => e.field), ["name"]);
  const listed = await apiAsToken("GET", `/orgs/${env.org}/servers`);
  assert.equal(listed.body.servers.some((s) => s.slug === "evil-rtl"), false, "nothing stored");
});

test("a server named in HTML, asking in HTML, is shown as text and runs nothing", { timeout: 60_000 }, async () => {
  const { url } = await registeredServer();
  const created = await apiAsToken("POST", `/orgs/${env.org}/servers`, { slug: EVIL_SLUG, name: EVIL_NAME, url });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.body.name, EVIL_NAME, "stored verbatim");

  const context = await newContext(browser);
  await signInByApi(context);
  const page = await openInbox(context);
  assert.match(page.inboxResponse.headers()["content-security-policy"] ?? "", /script-src 'self'/);

  const call = startCall("deploy", { service: EVIL_SERVICE, environment: "staging" }, { server: EVIL_SLUG });
  const { id, card } = await waitForCard(page, `Deploy ${EVIL_SERVICE} to staging?`);

  // The name and the message, character for character, as text.
  assert.equal(await card.getByRole("heading", { level: 2 }).textContent(), EVIL_NAME);
  assert.equal(await card.locator("p.message").textContent(), `Deploy ${EVIL_SERVICE} to staging?`);
  assert.equal(await card.getByRole("button", { name: `Mute ${EVIL_NAME}` }).count(), 1);
  assert.equal(await page.getByRole("status").filter({ hasText: `New question from ${EVIL_NAME}` }).count(), 1);
  // No element came out of them, and nothing ran or even tried to.
  assert.equal(await page.locator("main img, main script, main iframe, main object").count(), 0);
  const state = await page.evaluate(() => ({ pwned: typeof window.__pwned, violations: window.__heraldTest.cspViolations }));
  assert.deepEqual(state, { pwned: "undefined", violations: [] });

  await card.getByRole("button", { name: "Dismiss" }).click();
  assert.equal((await call.text()).text, "Deployment cancelled by the user");
  const record = await elicitation(id);
  assert.deepEqual(record.server, { slug: EVIL_SLUG, name: EVIL_NAME, url });
  assert.equal(await page.evaluate(() => typeof window.__pwned), "undefined");
  await context.close();
});
