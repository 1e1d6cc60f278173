// An organisation's own identity provider, on a Herald that lets organisations have one
// (HERALD_ORG_IDENTITY_PROVIDERS=on) and has no provider of its own: the owner sets it up on the
// Members page's Sign-in card (a wrong issuer is refused next to its field), adds the e-mail
// domain, and the operator confirms it with the real `herald domains confirm`; then a person
// finds the provider from the sign-in page by their e-mail, signs in at the real provider
// (tests/peers/oidc, oidc-provider) and is a member; someone of another domain is told why not;
// and the owner removes the provider after confirming.

import { strict as assert } from "node:assert";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { launch, newContext, screenshot } from "./lib.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const PROVIDER_NAME = "Acme Okta";
const ORG = { slug: "acme", name: "Acme" };
const OWNER = { email: "owner@example.com", password: "correct horse battery staple" };
const CLIENT = { client_id: "acme-herald", client_secret: "a test secret for acme's herald" };
const ACCOUNTS = [
  { sub: "ada", email: "ada@example.com", name: "Ada Lovelace" },
  { sub: "mallory", email: "mallory@elsewhere.test", name: "Mallory" },
];

let browser;
let dir;
let provider;
let herald;
let issuer;
let base;
let env;
const logs = { provider: [], herald: [] };

const stop = () => {
  for (const child of [herald, provider]) if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
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
 * it returns something for; rejects when the process exits first, or after 30 s.
 */
function startProcess(name, command, args, options, stream, ready) {
  const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  const log = logs[name];
  const text = () => log.slice(-40).join("\n");
  const result = new Promise((resolveReady, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 30 s:\n${text()}`)), 30_000);
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

before(async () => {
  const bin = process.env.HERALD_BIN;
  assert.ok(bin, "HERALD_BIN is not set: run the suite through tests/browser/run.sh");
  dir = mkdtempSync(join(tmpdir(), "herald-org-idp-"));
  const port = await reservePort();
  base = `http://127.0.0.1:${port}`;

  const config = { clients: [{ ...CLIENT, redirect_uris: [`${base}/auth/sso/callback`] }], accounts: ACCOUNTS };
  const started = startProcess("provider", join(root, "tests/peers/node/node_modules/.bin/node"),
    [join(root, "tests/peers/oidc/provider.mjs")],
    { cwd: dir, env: { ...cleanEnv(), OIDC_CONFIG: JSON.stringify(config), PORT: "0" } },
    "stdout", (line) => line.match(/^listening (\d+)$/)?.[1]);
  provider = started.child;
  issuer = `http://127.0.0.1:${await started.result}`;

  env = { ...cleanEnv(), HERALD_LISTEN: `127.0.0.1:${port}`, HERALD_LOG_FORMAT: "json", HERALD_ORG_IDENTITY_PROVIDERS: "on" };
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
  browser = await launch();
});

after(async () => {
  await browser?.close();
  const exited = [herald, provider].filter((c) => c && c.exitCode === null && c.signalCode === null)
    .map((c) => new Promise((done) => { c.once("exit", done); setTimeout(done, 5_000); }));
  stop();
  await Promise.all(exited);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A fresh context that reaches this Herald and the provider, and nothing else. */
async function idpContext() {
  const context = await newContext(browser);
  await context.unrouteAll();
  await context.route(
    (url) => url.origin !== base && url.origin !== issuer && url.protocol !== "data:",
    (route) => route.abort("blockedbyclient"),
  );
  return context;
}

/** The operator's command, on this Herald's database while it serves. */
function operator(...args) {
  const ran = spawnSync(process.env.HERALD_BIN, ["domains", ...args], { cwd: dir, env, encoding: "utf8", timeout: 30_000 });
  assert.equal(ran.status, 0, `herald domains ${args.join(" ")}: ${ran.stdout}${ran.stderr}`);
  return ran.stdout;
}

async function ownerPage(context) {
  const page = await context.newPage();
  await page.goto(`${base}/login`);
  await page.getByLabel("Email").fill(OWNER.email);
  await page.getByLabel("Password").fill(OWNER.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL(`${base}/`);
  return page;
}

async function openSignInCard(page) {
  await page.goto(`${base}/admin/members`);
  const card = page.getByRole("region", { name: "Sign-in" });
  await card.getByRole("heading", { name: "Your organisation's identity provider" }).waitFor();
  return card;
}

async function signedIn(context) {
  const response = await context.request.get(`${base}/api/v1/session`);
  return (await response.json()).signed_in;
}

test("Organisation's provider: the owner sets it up, a wrong issuer is refused at its field, and the operator confirms the domain", { timeout: 90_000 }, async () => {
  const context = await idpContext();
  const page = await ownerPage(context);
  let card = await openSignInCard(page);
  await card.getByText("No identity provider is set up for this organisation").waitFor();
  await card.getByText(`${base}/auth/sso/callback`, { exact: true }).waitFor();

  // Nothing answers at this issuer: said next to the Issuer field, nothing saved.
  const issuerField = card.getByLabel("Issuer URL");
  await issuerField.fill("http://127.0.0.1:9");
  await card.getByLabel("Client ID").fill(CLIENT.client_id);
  await card.getByLabel("Client secret").fill(CLIENT.client_secret);
  await card.getByLabel("Name on the sign-in button").fill(PROVIDER_NAME);
  await card.getByRole("button", { name: "Set up the provider" }).click();
  await page.waitForFunction(() => document.querySelector('input[name="issuer"]')?.getAttribute("aria-invalid") === "true");
  const issuerError = await page.locator('input[name="issuer"] ~ p.error').innerText();
  assert.match(issuerError, /could not be reached/, issuerError);

  // The real one: set up.
  await issuerField.fill(issuer);
  await card.getByLabel("Client secret").fill(CLIENT.client_secret);
  await card.getByRole("button", { name: "Set up the provider" }).click();
  await card.getByRole("status").filter({ hasText: `The identity provider is set up.` }).waitFor();
  await card.getByText(PROVIDER_NAME, { exact: true }).first().waitFor();
  await card.getByText(/A secret is stored \(never shown\)/).waitFor();
  assert.equal(await card.getByLabel("Client secret").inputValue(), "", "the secret is never put back in the page");

  // The domain: added, waiting for the operator.
  await card.getByRole("textbox", { name: "Domain", exact: true }).fill("Example.com");
  await card.getByRole("button", { name: "Add domain" }).click();
  const row = card.locator('li[data-domain="example.com"]');
  await row.getByText("Waiting for the operator to confirm").waitFor();
  assert.match(operator("list"), /example\.com\tacme\tawaiting/);

  // The operator confirms it, beside the serving Herald.
  assert.match(operator("confirm", "--org", ORG.slug, "example.com"), /example\.com is confirmed for acme/);
  card = await openSignInCard(page);
  await card.locator('li[data-domain="example.com"]').getByText("Confirmed by the operator").waitFor();
  await screenshot(page, "org-identity-provider.png");
  await context.close();
});

test("Organisation's provider: a person finds it from the sign-in page by their e-mail and signs in, a member", { timeout: 90_000 }, async () => {
  const context = await idpContext();
  const page = await context.newPage();
  await page.goto(`${base}/login`);
  // The shared sign-in page lists no tenant's provider.
  assert.equal(await page.getByRole("link", { name: `Sign in with ${PROVIDER_NAME}` }).count(), 0);
  await page.getByRole("button", { name: "Sign in with your organisation's single sign-on" }).click();
  const email = page.getByLabel("Your work e-mail");
  // A domain nobody set up: said in words.
  await email.fill("someone@nowhere.test");
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByText("No organisation's single sign-on is set up for nowhere.test here.", { exact: false }).waitFor();
  await email.fill("ada@example.com");
  await page.getByRole("button", { name: "Continue" }).click();
  await page.waitForURL((url) => url.origin === issuer);
  await page.getByLabel("Account").fill("ada");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${base}/`);
  const org = page.getByRole("listitem").filter({ hasText: `(${ORG.slug})` });
  await org.waitFor();
  assert.match(await org.innerText(), /^Acme\s*\(acme\)\s*member$/);
  assert.equal(await signedIn(context), true);
  await context.close();

  // A link an organisation hands its people shows its button directly.
  const other = await idpContext();
  const linked = await other.newPage();
  await linked.goto(`${base}/login?org=${ORG.slug}`);
  await linked.getByRole("link", { name: `Sign in with ${PROVIDER_NAME}` }).waitFor();
  await other.close();
});

test("Organisation's provider: someone of a domain not confirmed is told why on the sign-in page", { timeout: 90_000 }, async () => {
  const context = await idpContext();
  const page = await context.newPage();
  await page.goto(`${base}/login?org=${ORG.slug}`);
  await page.getByRole("link", { name: `Sign in with ${PROVIDER_NAME}` }).click();
  await page.waitForURL((url) => url.origin === issuer);
  await page.getByLabel("Account").fill("mallory");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => url.origin === base && url.pathname === "/login");
  const refusal = page.getByRole("alert").filter({ hasText: "may not sign in people of this e-mail domain yet" });
  await refusal.waitFor();
  assert.match(await refusal.innerText(), /elsewhere\.test/);
  assert.equal(await signedIn(context), false);
  await context.close();
});

test("Organisation's provider: the owner removes it after confirming", { timeout: 90_000 }, async () => {
  const context = await idpContext();
  const page = await ownerPage(context);
  const card = await openSignInCard(page);
  const remove = card.getByRole("button", { name: `Remove the identity provider ${PROVIDER_NAME}` });
  await remove.click();
  const asking = card.getByRole("group").filter({ hasText: `Remove ${PROVIDER_NAME}? People who signed in through it must sign in another way` });
  await asking.waitFor();
  await asking.getByRole("button", { name: "Keep it" }).click();
  await asking.waitFor({ state: "detached" });
  await remove.click();
  await asking.getByRole("button", { name: "Remove", exact: true }).click();
  await card.getByRole("status").filter({ hasText: `${PROVIDER_NAME} is removed.` }).waitFor();
  await card.getByRole("button", { name: "Set up the provider" }).waitFor();
  await context.close();
});
