// URL mode: the server asks the person to open an address. The card shows the
// whole URL with its host highlighted; nothing is fetched until the person
// clicks; the click opens a new tab with no opener and no referrer; the agent
// hears the person agreed.

import { strict as assert } from "node:assert";
import { after, before, test } from "node:test";
import { abortCalls, elicitation, launch, newContext, openInbox, signInByApi, startCall, UI_TIMEOUT, waitForCard } from "./lib.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { abortCalls(); await browser?.close(); });

test("connect_account: the URL is shown in full and opened only on click, in a new tab without opener", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  // auth.example.com is not reachable from here: answer it in the browser, and
  // see every request made to it.
  const seen = [];
  await context.route("https://auth.example.com/**", (route) => {
    seen.push({ url: route.request().url(), headers: route.request().headers() });
    return route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>Sign in</title><p>stand-in</p>" });
  });
  const page = await openInbox(context);

  const url = "https://auth.example.com/connect?provider=github";
  const call = startCall("connect_account", { provider: "github" });
  const { id, card } = await waitForCard(page, "Open the github sign-in page to connect your account.");
  assert.equal(await card.getByRole("heading", { level: 2 }).innerText(), "Demo Server");
  assert.match(await card.locator("header p").innerText(), / · connect_account · /);

  const shown = card.locator("p.url");
  assert.equal(await shown.innerText(), url, "the whole URL");
  assert.equal(await shown.locator("strong").innerText(), "auth.example.com", "its host highlighted");
  assert.equal(await card.locator("a[href]").count(), 0, "no link to follow by accident");
  assert.deepEqual(seen, [], "nothing fetched before the click");

  const popupOpened = context.waitForEvent("page", { timeout: UI_TIMEOUT });
  await card.getByRole("button", { name: "Open in a new tab" }).click();
  const popup = await popupOpened;
  await popup.waitForURL(url);
  assert.equal(await popup.evaluate(() => window.opener === null), true, "no opener");
  assert.equal(seen.length, 1);
  assert.equal(seen[0].url, url);
  assert.equal(seen[0].headers.referer, undefined, "no referrer");

  const { text, result } = await call.text();
  assert.equal(text, `The user agreed to open ${url} to connect github`);
  assert.deepEqual(result.structuredContent, { provider: "github", url, agreed_to_open: true });
  await card.getByRole("note").filter({ hasText: "Sent." }).waitFor();
  const record = await elicitation(id);
  assert.equal(record.mode, "url");
  assert.equal(record.action, "accept");
  await context.close();
});

test("connect_account: Decline opens nothing", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  const seen = [];
  await context.route("https://auth.example.com/**", (route) => { seen.push(route.request().url()); return route.abort(); });
  const page = await openInbox(context);
  const call = startCall("connect_account", { provider: "gitlab" });
  const { card } = await waitForCard(page, "Open the gitlab sign-in page to connect your account.");
  await card.getByRole("button", { name: "Decline" }).click();
  assert.equal((await call.text()).text, "Connecting gitlab was declined by the user");
  assert.equal(context.pages().length, 1, "no new tab");
  assert.deepEqual(seen, []);
  await context.close();
});
