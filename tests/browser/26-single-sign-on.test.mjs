// Single sign-on through an OpenID Connect provider, on a Herald of its own:
// the sign-in page's "Sign in with Acme ID" button, the real provider's sign-in
// form (tests/peers/oidc, oidc-provider) and back, signed in and a member of
// the organisation the operator named; a refused sign-in and a made-up answer
// said in words on the sign-in page, once; and an owner who has signed in
// through the provider turning password sign-in off for the organisation (which
// is refused until they have), after which the password form says where to go.

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
const PROVIDER_NAME = "Acme ID";
const ORG = { slug: "acme", name: "Acme" };
const OWNER = { email: "owner@example.com", password: "correct horse battery staple" };
const CLIENT = { client_id: "herald", client_secret: "a test secret for herald" };
const ACCOUNTS = [
  { sub: "ada", email: "ada@example.com", name: "Ada Lovelace" },
  { sub: "mallory", email: "mallory@elsewhere.test", name: "Mallory" },
  // The bootstrapped owner: Herald links the provider's account to it by e-mail.
  { sub: "olive", email: OWNER.email, name: "Olive Owner" },
];

let browser;
let dir;
let provider;
let herald;
let issuer;
let base;
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
  dir = mkdtempSync(join(tmpdir(), "herald-sso-"));
  const port = await reservePort();
  base = `http://127.0.0.1:${port}`;

  // The identity provider, with a client for this Herald.
  const config = {
    clients: [{ ...CLIENT, redirect_uris: [`${base}/auth/sso/callback`] }],
    accounts: ACCOUNTS,
  };
  const started = startProcess("provider", join(root, "tests/peers/node/node_modules/.bin/node"),
    [join(root, "tests/peers/oidc/provider.mjs")],
    { cwd: dir, env: { ...cleanEnv(), OIDC_CONFIG: JSON.stringify(config), PORT: "0" } },
    "stdout", (line) => line.match(/^listening (\d+)$/)?.[1]);
  provider = started.child;
  issuer = `http://127.0.0.1:${await started.result}`;

  // The organisation and its owner, from the CLI (the password on standard input).
  const env = {
    ...cleanEnv(),
    HERALD_LISTEN: `127.0.0.1:${port}`,
    HERALD_LOG_FORMAT: "json",
    HERALD_OIDC_ISSUER: issuer,
    HERALD_OIDC_CLIENT_ID: CLIENT.client_id,
    HERALD_OIDC_CLIENT_SECRET: CLIENT.client_secret,
    HERALD_OIDC_NAME: PROVIDER_NAME,
    HERALD_OIDC_ORG: ORG.slug,
    HERALD_OIDC_DOMAINS: "example.com",
  };
  const bootstrap = spawnSync(bin, [
    "bootstrap", "--org", ORG.slug, "--org-name", ORG.name, "--email", OWNER.email, "--name", "Olive Owner", "--password-stdin",
  ], { cwd: dir, env, input: `${OWNER.password}\n`, encoding: "utf8", timeout: 30_000 });
  assert.equal(bootstrap.status, 0, `herald bootstrap: ${bootstrap.error ?? ""}${bootstrap.stdout}${bootstrap.stderr}`);
  assert.match(bootstrap.stdout, /created organisation acme \(Acme\) with owner owner@example\.com/);

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

/**
 * A fresh context that reaches this Herald and the provider, and nothing else (newContext lets
 * only the demo Herald through).
 */
async function ssoContext() {
  const context = await newContext(browser);
  await context.unrouteAll();
  await context.route(
    (url) => url.origin !== base && url.origin !== issuer && url.protocol !== "data:",
    (route) => route.abort("blockedbyclient"),
  );
  return context;
}

/** From Herald's sign-in page through the provider's form as `account`; resolves back on Herald. */
async function signInThroughProvider(page, account) {
  await page.goto(`${base}/login`);
  await page.getByRole("link", { name: `Sign in with ${PROVIDER_NAME}` }).click();
  await page.waitForURL((url) => url.origin === issuer);
  await page.getByLabel("Account").fill(account);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => url.origin === base);
}

/** Whether the context's cookie jar holds a Herald session (asked of Herald itself). */
async function signedIn(context) {
  const response = await context.request.get(`${base}/api/v1/session`);
  assert.equal(response.status(), 200);
  return (await response.json()).signed_in;
}

/** The Admin → Members page's "Sign-in" card. */
async function openSignInCard(page) {
  await page.goto(`${base}/admin/members`);
  const card = page.getByRole("region", { name: "Sign-in" });
  await card.getByRole("checkbox", { name: "Allow password sign-in" }).waitFor();
  return card;
}

test("Single sign-on: the sign-in page's button takes a person to their provider and back, signed in and a member", { timeout: 90_000 }, async () => {
  const context = await ssoContext();
  const page = await context.newPage();
  await page.goto(`${base}/login`);
  await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
  const button = page.getByRole("link", { name: `Sign in with ${PROVIDER_NAME}` });
  await button.waitFor();
  // The provider first, the password form under "or with your password".
  const or = page.getByText("or with your password", { exact: true });
  await or.waitFor();
  const email = page.getByLabel("Email");
  const [buttonBox, orBox, emailBox] = await Promise.all([button.boundingBox(), or.boundingBox(), email.boundingBox()]);
  assert.ok(buttonBox.y + buttonBox.height <= orBox.y && orBox.y + orBox.height <= emailBox.y,
    `the button (${buttonBox.y}), then "or with your password" (${orBox.y}), then the form (${emailBox.y})`);
  await screenshot(page, "sign-in-sso.png");

  await button.click();
  await page.waitForURL((url) => url.origin === issuer);
  await page.getByLabel("Account").fill("ada");
  await page.getByRole("button", { name: "Sign in" }).click();

  await page.waitForURL(`${base}/`);
  await page.getByRole("heading", { name: "Inbox", level: 1 }).waitFor();
  await page.getByRole("heading", { name: "Your organisations" }).waitFor();
  const org = page.getByRole("listitem").filter({ hasText: `(${ORG.slug})` });
  await org.waitFor();
  assert.match(await org.innerText(), /^Acme\s*\(acme\)\s*member$/);
  assert.ok((await page.locator("body > header").innerText()).includes("ada@example.com"));

  // What the provider was asked: Herald's redirect URI, PKCE S256, a state and a nonce.
  const requests = await (await fetch(`${issuer}/_test/requests`)).json();
  const asked = requests.findLast((r) => r.route === "authorization").params;
  assert.equal(asked.redirect_uri, `${base}/auth/sso/callback`);
  assert.equal(asked.code_challenge_method, "S256");
  assert.ok(asked.state && asked.nonce, JSON.stringify(asked));
  // The attempt's cookie is gone once it is used; the session cookie stays out of scripts' reach.
  const cookies = await context.cookies(base);
  assert.deepEqual(cookies.filter((c) => c.name.endsWith("herald_sign_in")), []);
  const session = cookies.find((c) => c.name.endsWith("herald_session"));
  assert.ok(session?.httpOnly, JSON.stringify(cookies));
  await context.close();
});

test("Single sign-on: a refused sign-in says why on the sign-in page", { timeout: 90_000 }, async () => {
  const context = await ssoContext();
  const page = await context.newPage();
  // A person whose e-mail domain is not among HERALD_OIDC_DOMAINS.
  await signInThroughProvider(page, "mallory");
  await page.waitForURL((url) => url.pathname === "/login");
  const refusal = page.getByRole("alert").filter({ hasText: "People with this e-mail domain cannot sign in here." });
  await refusal.waitFor();
  assert.match(await refusal.innerText(), /elsewhere\.test/, "the detail names the domain");
  assert.equal(await signedIn(context), false);
  // Said once: the page took the code out of its address, so a reload shows the plain page.
  assert.equal(page.url(), `${base}/login`);
  await page.reload();
  await page.getByRole("link", { name: `Sign in with ${PROVIDER_NAME}` }).waitFor();
  assert.equal(await page.getByText("People with this e-mail domain").count(), 0);
  assert.equal(await page.getByRole("alert").count(), 0);

  // An answer Herald never asked for.
  await page.goto(`${base}/auth/sso/callback?code=x&state=nope`);
  await page.waitForURL((url) => url.pathname === "/login");
  await page.getByRole("alert").filter({ hasText: "That sign-in was already used or has expired. Start again." }).waitFor();
  assert.equal(await signedIn(context), false);
  await context.close();
});

test("Single sign-on: an owner who signed in through the provider turns password sign-in off, and the password form then says so", { timeout: 90_000 }, async () => {
  const passwordSignIn = async (page) => {
    await page.goto(`${base}/login`);
    await page.getByLabel("Email").fill(OWNER.email);
    await page.getByLabel("Password").fill(OWNER.password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
  };

  // Signed in with the password: the provider is there, untried, and turning passwords off is refused.
  let context = await ssoContext();
  let page = await context.newPage();
  await passwordSignIn(page);
  await page.waitForURL(`${base}/`);
  let card = await openSignInCard(page);
  await card.getByText(PROVIDER_NAME, { exact: true }).waitFor();
  await card.getByText(issuer, { exact: true }).waitFor();
  await card.getByText("You have not signed in with it yet.").waitFor();
  let toggle = card.getByRole("checkbox", { name: "Allow password sign-in" });
  assert.equal(await toggle.isChecked(), true);
  await toggle.click();
  await card.getByRole("alert").filter({ hasText: /sign in through the identity provider yourself first/ }).waitFor();
  await page.waitForFunction(() => {
    const box = document.getElementById("password-sign-in");
    return box.checked && !box.disabled;
  });
  assert.equal(await toggle.isChecked(), true, "still allowed");
  await context.close();

  // Signed in through the provider (linked to the owner by e-mail): now it may be turned off.
  context = await ssoContext();
  page = await context.newPage();
  await signInThroughProvider(page, "olive");
  await page.waitForURL(`${base}/`);
  await page.getByRole("listitem").filter({ hasText: `(${ORG.slug})` }).filter({ hasText: "owner" }).waitFor();
  card = await openSignInCard(page);
  await card.getByText("You have signed in with it.").waitFor();
  toggle = card.getByRole("checkbox", { name: "Allow password sign-in" });
  await toggle.click();
  await card.getByRole("status").filter({ hasText: "Password sign-in is off: members sign in through the identity provider." }).waitFor();
  assert.equal(await toggle.isChecked(), false);
  await card.getByText(/sign in through the identity provider only/).waitFor();
  assert.equal(await card.getByRole("alert").isVisible(), false, "no refusal this time");
  // Still off after a reload.
  card = await openSignInCard(page);
  assert.equal(await card.getByRole("checkbox", { name: "Allow password sign-in" }).isChecked(), false);
  await context.close();

  // The right password is now told where to go instead, and signs nobody in.
  context = await ssoContext();
  page = await context.newPage();
  await passwordSignIn(page);
  const told = page.getByRole("alert").filter({ hasText: "Acme signs its members in through its identity provider" });
  await told.waitFor();
  assert.match(await told.innerText(), /use its button instead/);
  assert.equal(new URL(page.url()).pathname, "/login");
  assert.equal(await signedIn(context), false);
  // The button it points to is on the same page.
  assert.equal(await page.getByRole("link", { name: `Sign in with ${PROVIDER_NAME}` }).isVisible(), true);
  await context.close();
});
