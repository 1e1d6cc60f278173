// Signing in through /login with the demo account, the account overview, and
// signing out (which ends the session on the server, not just in the browser).

import { strict as assert } from "node:assert";
import { after, before, test } from "node:test";
import { env, launch, newContext, screenshot } from "./lib.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test("the inbox sends a signed-out visitor to /login", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  const page = await context.newPage();
  await page.goto(`${env.url}/`);
  await page.waitForURL(`${env.url}/login`);
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
  await context.close();
});

test("a wrong password is refused with a message, and nothing is signed in", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  const page = await context.newPage();
  await page.goto(`${env.url}/login`);
  await page.getByLabel("Email").fill(env.email);
  await page.getByLabel("Password").fill(`${env.password}-wrong`);
  await page.getByRole("button", { name: "Sign in" }).click();
  const banner = page.getByRole("alert");
  await banner.waitFor({ state: "visible" });
  assert.match(await banner.innerText(), /\S/, "the banner says why");
  assert.equal(new URL(page.url()).pathname, "/login");
  assert.equal((await context.cookies()).length, 0, "no session cookie");
  await context.close();
});

test("after repeated failed sign-ins the page says how long to wait and counts down", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  const page = await context.newPage();
  await page.goto(`${env.url}/login`);
  // An email without an account is throttled like one with (and the demo account stays usable).
  await page.getByLabel("Email").fill("throttled-visitor@example.com");
  await page.getByLabel("Password").fill("not the password at all");
  const banner = page.getByRole("alert");
  const button = page.locator("form button[type=submit]");
  // The fifth failure starts the back-off; a few more submissions meet it whatever the pace.
  let told = "";
  for (let attempt = 0; attempt < 10 && !/Try again in/.test(told); attempt += 1) {
    await button.click();
    await banner.waitFor({ state: "visible" });
    await page.waitForFunction(() => !document.querySelector("form button[type=submit]").disabled || /Try again in/.test(document.querySelector("[role=alert]").textContent));
    told = await banner.innerText();
  }
  assert.match(told, /^Too many failed sign-ins\. Try again in \d+ seconds?\.$/);
  // The button waits with it, counting down, and comes back when the wait is over.
  assert.equal(await button.isDisabled(), true);
  assert.match(await button.innerText(), /^Sign in \(0:\d\d\)$/);
  await page.waitForFunction(() => !document.querySelector("form button[type=submit]").disabled, null, { timeout: 40_000 });
  assert.equal(await button.innerText(), "Sign in");
  await context.close();
});

test("sign in through /login, see the account overview, sign out", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  const page = await context.newPage();
  const response = await page.goto(`${env.url}/login`);
  assert.equal(response.status(), 200);
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
  // The fields say what they are, to password managers too.
  assert.equal(await page.getByLabel("Email").getAttribute("type"), "email");
  assert.equal(await page.getByLabel("Password").getAttribute("type"), "password");
  assert.equal(await page.getByLabel("Password").getAttribute("autocomplete"), "current-password");
  await screenshot(page, "login.png");

  await page.getByLabel("Email").fill(env.email);
  await page.getByLabel("Password").fill(env.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${env.url}/`);

  // The overview: the inbox, the account's organisation and role, and who is signed in.
  await page.getByRole("heading", { name: "Inbox", level: 1 }).waitFor();
  await page.getByRole("heading", { name: "Your organisations" }).waitFor();
  const org = page.locator("ul.orgs li");
  assert.equal(await org.count(), 1);
  assert.match(await org.innerText(), /Herald Demo\s*\(demo\)\s*owner/);
  const header = page.locator("body > header");
  assert.ok((await header.innerText()).includes(env.email), "the bar names who is signed in");

  // The session cookie is HttpOnly and SameSite=Strict.
  const [cookie] = (await context.cookies()).filter((c) => c.name.endsWith("herald_session"));
  assert.ok(cookie, "a session cookie");
  assert.equal(cookie.httpOnly, true);
  assert.equal(cookie.sameSite, "Strict");
  const me = await context.request.get(`${env.url}/api/v1/me`);
  assert.equal(me.status(), 200);

  await header.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(`${env.url}/login`);
  await page.getByRole("heading", { name: "Sign in" }).waitFor();

  // Ended on the server: the old cookie no longer works, even replayed.
  const replay = await fetch(`${env.url}/api/v1/me`, { headers: { cookie: `${cookie.name}=${cookie.value}` } });
  assert.equal(replay.status, 401);
  // And the dashboard sends the visitor back to sign in.
  await page.goto(`${env.url}/`);
  await page.waitForURL(`${env.url}/login`);
  await context.close();
});
