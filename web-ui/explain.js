// Words for what Herald's policy did with a question, from the record alone
// (`reason`, and what the policy went by in `policy.because`). The inbox's
// notes and the history use them, so a person reads the same explanation
// wherever they look. Every value a server chose is used as text only.

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "1 day", "3 hours", "90 seconds": a policy's durations in words. */
export function duration(secs) {
  const n = Number(secs);
  if (!Number.isFinite(n) || n <= 0) return "a while";
  const unit = (count, word) => `${count} ${word}${count === 1 ? "" : "s"}`;
  if (n % DAY === 0) return unit(n / DAY, "day");
  if (n % HOUR === 0) return unit(n / HOUR, "hour");
  if (n % MINUTE === 0) return unit(n / MINUTE, "minute");
  return unit(n, "second");
}

const relative = new Intl.RelativeTimeFormat("en", { numeric: "auto" });

/** "5 minutes ago", "yesterday": how long ago an RFC 3339 time was. */
export function ago(rfc3339, now = Date.now()) {
  const then = new Date(rfc3339).getTime();
  if (Number.isNaN(then)) return "earlier";
  const secs = Math.round((then - now) / 1000);
  const abs = Math.abs(secs);
  if (abs < MINUTE) return "just now";
  if (abs < HOUR) return relative.format(Math.round(secs / MINUTE), "minute");
  if (abs < DAY) return relative.format(Math.round(secs / HOUR), "hour");
  return relative.format(Math.round(secs / DAY), "day");
}

/** What Decline means for this question, before the person clicks. */
export function declineMeaning(record) {
  const secs = record.policy?.decline_remembered_secs;
  const remembered = secs ? `for ${duration(secs)}` : "for a while";
  return `Decline says no, and Herald remembers it ${remembered}: if ${record.server.name} asks this again, ` +
    "Herald declines for you. Dismiss closes the question without an answer; the server may ask again.";
}

function quoted(message) {
  const text = String(message ?? "").trim();
  if (!text) return "a question";
  return `“${text.length > 80 ? `${text.slice(0, 79)}…` : text}”`;
}

function host(url) {
  try { return new URL(url).host; } catch { return "an address"; }
}

const CAPS = {
  per_user_server_per_minute: (limit, server) =>
    `${server} asked you more than ${limit} question${limit === 1 ? "" : "s"} in a minute, the most your organisation allows`,
  per_server_per_hour: (limit, server) =>
    `${server} asked more than ${limit} question${limit === 1 ? "" : "s"} this hour across your organisation, the most it allows`,
  per_org_per_hour: (limit) =>
    `Your organisation's servers asked more than ${limit} question${limit === 1 ? "" : "s"} this hour, the most it allows`,
};

/**
 * The explanation of a question the policy answered (or ended while shown):
 * `{ title, text, advice, rule, ways }`, where `ways` names the ways back that
 * apply ("ask_again", "unmute", "cut_off", "policy", "servers").
 */
export function explain(record, now = Date.now()) {
  const server = record.server?.name ?? "A server";
  const because = record.policy?.because ?? {};
  const rule = record.reason;
  const tool = record.tool ? ` (tool ${record.tool})` : "";
  switch (rule) {
    case "credential_ask": {
      const found = (because.credential_hits ?? []).map((h) => h.explanation).filter(Boolean);
      return {
        rule, title: "Declined for you: a request for a credential",
        text: `${server} asked for a credential${tool}, so Herald declined for you.` +
          (found.length ? ` Herald found: ${found.join(" ")}` : ""),
        advice: "Never type passwords, keys or codes into a server's form: a server that needs you to sign in should send you to its own sign-in page. " +
          "If this was not a credential request, an admin can allow-list the word in the organisation's policy.",
        ways: ["cut_off", "policy"],
      };
    }
    case "previously_declined": {
      const when = because.declined_at ? ago(because.declined_at, now) : "earlier";
      const kept = because.remembered_secs ? ` Herald remembers a decline for ${duration(because.remembered_secs)}.` : "";
      const muted = because.muted_for_pestering
        ? ` It kept asking after you declined, so Herald also muted ${server} for you.` : "";
      return {
        rule, title: because.muted_for_pestering ? `Declined again, and ${server} muted` : "Declined again for you",
        text: `${server} asked ${quoted(record.message)} again${tool}. You declined this question ${when}, so Herald declined it for you.${kept}${muted}`,
        advice: "Changed your mind? Ask me again shows this question the next time it is asked.",
        ways: because.muted_for_pestering ? ["ask_again", "unmute"] : ["ask_again"],
      };
    }
    case "muted":
      return {
        rule, title: `Declined for you: ${server} is muted`,
        text: `${server} asked ${quoted(record.message)}${tool}. You muted it, so Herald declined for you without showing it.`,
        advice: "Unmute it to see its questions again.",
        ways: ["unmute"],
      };
    case "rate_capped": {
      const words = (CAPS[because.cap] ?? CAPS.per_user_server_per_minute)(because.limit ?? "the allowed number of", server);
      return {
        rule, title: "Cancelled for you: too many questions",
        text: `${words}, so Herald cancelled ${quoted(record.message)}${tool}.`,
        advice: "The server may ask again once the time is up. Admins set these limits in the policy.",
        ways: ["policy"],
      };
    }
    case "too_many_pending":
      return {
        rule, title: "Cancelled for you: too many questions waiting",
        text: `You had ${because.limit ?? "as many"} questions waiting, the most your organisation allows, so Herald cancelled ${quoted(record.message)} from ${server}${tool}.`,
        advice: "Answer or dismiss a waiting question, and the server can ask again.",
        ways: ["policy"],
      };
    case "url_refused":
      return {
        rule, title: "Cancelled for you: an address your organisation refuses",
        text: `${server} asked you to open ${host(record.url)}${tool}, which your organisation's URL rules refuse` +
          (because.url_refusal?.reason ? ` (${because.url_refusal.reason})` : "") + ", so Herald cancelled the question.",
        advice: "Admins set which addresses servers may send people to in the policy.",
        ways: ["policy"],
      };
    case "cut_off":
      return {
        rule, title: `Cancelled for you: ${server} is cut off`,
        text: `${server} is cut off for your organisation, so Herald cancelled ${quoted(record.message)}${tool}.`,
        advice: "An admin can restore the server on the Servers page.",
        ways: ["servers"],
      };
    default:
      return {
        rule, title: "Answered for you by your organisation's policy",
        text: `Herald's policy answered ${quoted(record.message)} from ${server}${tool} for you (${rule ?? record.action}).`,
        advice: "", ways: [],
      };
  }
}
