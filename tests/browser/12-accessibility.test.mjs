// Accessibility and feel, measured: text contrast meets WCAG AA in the light
// and the dark scheme, every control has an accessible name, a question can
// be answered with the keyboard alone (with focus visible throughout), and no
// page scrolls sideways at 360 px. The Notifications page is measured with a
// browser-push device in its Devices list.

import { strict as assert } from "node:assert";
import { createECDH, randomBytes, randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import { abortCalls, env, launch, newContext, openInbox, signInByApi, startCall, waitForCard } from "./lib.mjs";

let browser;
let device; // a push device of the demo account's, so the Devices list has a row to measure
before(async () => {
  browser = await launch();
  const context = await newContext(browser);
  await signInByApi(context);
  const response = await context.request.post(`${env.url}/api/v1/me/push/devices`, {
    headers: { origin: env.url },
    data: {
      name: "Accessibility check on a laptop with a long name",
      subscription: {
        endpoint: `http://127.0.0.1:9/push/a11y-${randomUUID()}`,
        expirationTime: null,
        keys: { p256dh: createECDH("prime256v1").generateKeys().toString("base64url"), auth: randomBytes(16).toString("base64url") },
      },
    },
  });
  assert.equal(response.status(), 201, await response.text());
  device = await response.json();
  await context.close();
});
after(async () => {
  abortCalls();
  if (browser && device) {
    const context = await newContext(browser);
    await signInByApi(context);
    await context.request.delete(`${env.url}/api/v1/me/push/devices/${device.id}`, { headers: { origin: env.url } });
    await context.close();
  }
  await browser?.close();
});

const PAGES = ["/", "/console", "/history", "/tokens", "/mutes", "/connect", "/admin/pending", "/admin/members", "/admin/servers", "/admin/webhooks", "/admin/policy", "/admin/audit", "/notifications"];

/** Opens `path` signed in and waits until the page has drawn its heading. */
async function open(context, path) {
  const page = await context.newPage();
  await page.goto(`${env.url}${path}`);
  await page.locator("main h1").first().waitFor();
  // The Notifications page draws its devices after reading the browser and Herald.
  if (path === "/notifications") await page.locator("ul.devices li[data-device]").first().waitFor();
  await page.waitForLoadState("networkidle").catch(() => {});
  return page;
}

// Runs in the page: every visible text's contrast against what is behind it.
const contrastProblems = () => {
  const parse = (c) => {
    let m = c.match(/rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/);
    if (m) return [+m[1], +m[2], +m[3], m[4] === undefined ? 1 : +m[4]];
    m = c.match(/color\(srgb ([\d.]+) ([\d.]+) ([\d.]+)(?: \/ ([\d.]+))?\)/);
    if (m) return [m[1] * 255, m[2] * 255, m[3] * 255, m[4] === undefined ? 1 : +m[4]];
    return null;
  };
  const over = (top, bottom) => {
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + bottom[i] * (1 - a)).concat(1);
  };
  const background = (node) => {
    const layers = [];
    for (let n = node; n; n = n.parentElement) {
      const bg = parse(getComputedStyle(n).backgroundColor);
      if (bg && bg[3] > 0) { layers.push(bg); if (bg[3] === 1) break; }
    }
    let color = [255, 255, 255, 1];
    for (const layer of layers.reverse()) color = over(layer, color);
    return color;
  };
  const luminance = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const problems = [];
  for (const node of document.querySelectorAll("body *")) {
    const text = [...node.childNodes].filter((c) => c.nodeType === 3).map((c) => c.textContent).join("").trim();
    if (!text) continue;
    const style = getComputedStyle(node);
    const box = node.getBoundingClientRect();
    if (style.visibility === "hidden" || style.display === "none" || box.width === 0 || box.height === 0) continue;
    if (node.closest(".sr-only, [hidden], option")) continue;
    const bg = background(node);
    const fgRaw = parse(style.color);
    if (!fgRaw) continue;
    const fg = over(fgRaw, bg);
    const [l1, l2] = [luminance(fg), luminance(bg)].sort((a, b) => b - a);
    const ratio = (l1 + 0.05) / (l2 + 0.05);
    const size = parseFloat(style.fontSize);
    const bold = parseInt(style.fontWeight, 10) >= 700;
    const large = size >= 24 || (bold && size >= 18.66);
    // Disabled controls are exempt (WCAG 1.4.3).
    if (node.closest(":disabled")) continue;
    if (ratio < (large ? 3 : 4.5)) problems.push(`${ratio.toFixed(2)} ${node.tagName.toLowerCase()}.${node.className} "${text.slice(0, 40)}"`);
  }
  return problems;
};

const unnamedControls = () => [...document.querySelectorAll("input, select, textarea, button")]
  .filter((c) => c.type !== "hidden" && c.getClientRects().length)
  .filter((c) => {
    const named = c.getAttribute("aria-label") || c.getAttribute("aria-labelledby") || (c.labels && c.labels.length)
      || (c.tagName === "BUTTON" && c.textContent.trim());
    return !named;
  })
  .map((c) => c.outerHTML.slice(0, 80));

for (const colorScheme of ["light", "dark"]) {
  test(`WCAG AA contrast and named controls on every page, ${colorScheme} scheme`, { timeout: 120_000 }, async () => {
    const context = await newContext(browser, { colorScheme });
    // The sign-in page, signed out.
    const login = await open(context, "/login");
    assert.deepEqual(await login.evaluate(contrastProblems), [], "/login");
    assert.deepEqual(await login.evaluate(unnamedControls), [], "/login");
    await signInByApi(context);
    // With a question in the inbox, so the card, its form and its warning are measured too.
    const inbox = await openInbox(context);
    const call = startCall("book_table", { restaurant: `Contrast ${colorScheme}` });
    const { card } = await waitForCard(inbox, `Book a table at Contrast ${colorScheme}`);
    assert.deepEqual(await inbox.evaluate(contrastProblems), [], "/ with a question");
    assert.deepEqual(await inbox.evaluate(unnamedControls), [], "/ with a question");
    await card.getByRole("button", { name: "Dismiss" }).click();
    await call.outcome();
    for (const path of PAGES.slice(1)) {
      const page = await open(context, path);
      assert.deepEqual(await page.evaluate(contrastProblems), [], path);
      assert.deepEqual(await page.evaluate(unnamedControls), [], path);
      await page.close();
    }
    await context.close();
  });
}

test("the keyboard alone answers a question, with focus visible at every step", { timeout: 60_000 }, async () => {
  const context = await newContext(browser);
  await signInByApi(context);
  const page = await openInbox(context);
  const call = startCall("deploy", { service: "keyboard", environment: "staging" });
  await waitForCard(page, "Deploy keyboard to staging?");
  const focused = () => page.evaluate(() => {
    const el = document.activeElement;
    const style = getComputedStyle(el);
    return {
      // A required field's label ends in " *" (hidden from assistive technology).
      label: (el.labels?.[0]?.textContent ?? el.getAttribute("aria-label") ?? el.textContent.trim()).replace(/ \*$/, ""),
      tag: el.tagName.toLowerCase(),
      visible: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2,
    };
  });
  // Tab from the top of the page to the card's first control.
  let now;
  const path = [];
  for (let i = 0; i < 40; i += 1) {
    await page.keyboard.press("Tab");
    now = await focused();
    path.push(now.label);
    if (now.label === "Confirm deploy") break;
  }
  assert.equal(now.label, "Confirm deploy", `Tab reaches the question's first field: ${path.join(" → ")}`);
  assert.ok(now.visible, "focus is visible on the checkbox");
  await page.keyboard.press("Space");
  await page.keyboard.press("Tab");
  assert.equal((await focused()).label, "Note");
  await page.keyboard.type("typed, not clicked");
  await page.keyboard.press("Tab");
  now = await focused();
  assert.deepEqual([now.tag, now.label, now.visible], ["button", "Submit", true]);
  await page.keyboard.press("Enter");
  const { text } = await call.text();
  assert.equal(text, "Deployed keyboard to staging");
  await context.close();
});

test("at 360 px wide no page scrolls sideways", { timeout: 90_000 }, async () => {
  const context = await newContext(browser, { viewport: { width: 360, height: 740 } });
  await signInByApi(context);
  const inbox = await openInbox(context);
  const call = startCall("book_table", { restaurant: "A restaurant with a rather long name for a narrow screen" });
  const { card } = await waitForCard(inbox, "Book a table at A restaurant with a rather long name for a narrow screen");
  const overflow = (page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  // What sticks out, for the failure message.
  const culprits = (page) => page.evaluate(() => [...document.querySelectorAll("body *")]
    .filter((n) => n.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
    .slice(-3).map((n) => `${n.tagName.toLowerCase()}.${n.className}: ${n.textContent.slice(0, 60)}`));
  assert.equal(await overflow(inbox), 0, "/ with a question");
  await card.getByRole("button", { name: "Dismiss" }).click();
  await call.outcome();
  for (const path of PAGES.slice(1)) {
    const page = await open(context, path);
    assert.equal(await overflow(page), 0, `${path}: ${(await culprits(page)).join(" | ")}`);
    await page.close();
  }
  await context.close();
});
