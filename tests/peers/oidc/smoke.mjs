// Smoke test for tests/peers/oidc/provider.mjs, end to end over loopback HTTP.
//
//   tests/peers/node/node_modules/.bin/node tests/peers/oidc/smoke.mjs
//
// Starts provider.mjs as a child (same node binary), opens a local redirect_uri listener and
// drives the authorization-code flow with PKCE using fetch only: redirects are followed by hand
// and cookies carried by hand. Prints one `ok - ...` line per check and exits 0, or prints
// `FAIL - ...` with details (and the provider's stderr) and exits 1.
// SMOKE_VERBOSE=1 streams the provider's stderr as it runs.

import { spawn } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as http from 'node:http';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const requireFromPeers = createRequire(path.resolve(here, '..', 'node', 'package.json'));
const requireFromOidc = createRequire(requireFromPeers.resolve('oidc-provider'));
const jose = await import(pathToFileURL(requireFromOidc.resolve('jose')).href);

const verbose = process.env.SMOKE_VERBOSE === '1';
let checks = 0;
let providerStderr = '';
let child;

// Never leave the provider behind, even when stdout is a closed pipe (EPIPE) or on a crash.
process.on('exit', () => child?.kill('SIGTERM'));
process.stdout.on('error', () => process.exit(1));

class CheckFailed extends Error {}
function ok(name) {
  checks += 1;
  console.log(`ok - ${name}`);
}
function check(name, condition, detail) {
  if (!condition) {
    const d = detail === undefined ? '' : `\n  detail: ${typeof detail === 'string' ? detail : JSON.stringify(detail, null, 2)}`;
    throw new CheckFailed(`${name}${d}`);
  }
  ok(name);
}
const eq = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const b64url = (buf) => Buffer.from(buf).toString('base64url');
const sha256hex = (s) => crypto.createHash('sha256').update(s).digest('hex');

// ---------------------------------------------------------------- redirect_uri listener
async function startRedirectListener() {
  const hits = [];
  const server = http.createServer((req, res) => {
    hits.push(new URL(req.url, 'http://127.0.0.1'));
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('callback received\n');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: server.address().port, hits, close: () => server.close() };
}

// ---------------------------------------------------------------- provider child
async function startProvider(config) {
  child = spawn(process.execPath, [path.join(here, 'provider.mjs')], {
    env: { ...process.env, OIDC_CONFIG: JSON.stringify(config), PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => {
    providerStderr += d;
    if (verbose) process.stderr.write(d.replace(/^(?=.)/gm, '  [provider] '));
  });
  const stdoutLines = [];
  const rl = createInterface({ input: child.stdout });
  const first = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('provider printed no line within 20 s')), 20000);
    rl.on('line', (line) => {
      stdoutLines.push(line);
      if (stdoutLines.length === 1) {
        clearTimeout(timer);
        resolve(line);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`provider exited with ${code} before printing its port`));
    });
  });
  const line = await first;
  const m = /^listening (\d+)$/.exec(line);
  check('provider prints `listening <port>` as its first stdout line', m, line);
  return { port: Number(m[1]), stdoutLines };
}

// ---------------------------------------------------------------- cookies by hand
class Jar {
  cookies = new Map(); // name -> {value, path}

  store(res) {
    for (const sc of res.headers.getSetCookie()) {
      const [pair, ...attrs] = sc.split(';').map((s) => s.trim());
      const i = pair.indexOf('=');
      const name = pair.slice(0, i);
      const value = pair.slice(i + 1);
      let cpath = '/';
      let expired = value === '';
      for (const a of attrs) {
        const [k, v = ''] = a.split('=');
        const key = k.toLowerCase();
        if (key === 'path') cpath = v;
        if (key === 'expires' && Date.parse(v) <= Date.now()) expired = true;
        if (key === 'max-age' && Number(v) <= 0) expired = true;
        if (key === 'secure') throw new CheckFailed(`cookie ${name} is Secure over plain http: ${sc}`);
      }
      const k = `${name}\u0000${cpath}`;
      if (expired) this.cookies.delete(k);
      else this.cookies.set(k, { name, value, path: cpath });
    }
  }

  header(url) {
    const p = new URL(url).pathname;
    const matches = [...this.cookies.values()].filter((c) => p === c.path || p.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`));
    return matches.map((c) => `${c.name}=${c.value}`).join('; ');
  }
}

async function request(jar, url, { method = 'GET', headers = {}, body } = {}) {
  const h = { ...headers };
  const cookie = jar?.header(url);
  if (cookie) h.cookie = cookie;
  const res = await fetch(url, { method, headers: h, body, redirect: 'manual' });
  jar?.store(res);
  return res;
}

function pkcePair() {
  const verifier = b64url(crypto.randomBytes(32));
  const challenge = b64url(crypto.createHash('sha256').update(verifier).digest());
  return { verifier, challenge };
}

const basic = (id, secret) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

// ---------------------------------------------------------------- main
const redirect = await startRedirectListener();
const redirectUri = `http://127.0.0.1:${redirect.port}/cb`;
const mcpResource = `http://127.0.0.1:${redirect.port}/mcp`;
const client = { client_id: 'herald', client_secret: 'herald-secret' };

const config = {
  clients: [
    { ...client, redirect_uris: [redirectUri] },
    { client_id: 'svc', client_secret: 'svc-secret', grant_types: ['client_credentials'], response_types: [], redirect_uris: [] },
  ],
  accounts: [{ sub: 'alice', email: 'alice@example.test', name: 'Alice Example', groups: ['admins', 'staff'] }],
  idTokenTtl: 3600,
  registration: true,
  resourceServers: { [mcpResource]: { scope: 'mcp:tools mcp:admin', accessTokenFormat: 'jwt' } },
};

async function main() {
  const { port, stdoutLines } = await startProvider(config);
  const issuer = `http://127.0.0.1:${port}`;

  // Discovery.
  const disco = await (await fetch(`${issuer}/.well-known/openid-configuration`)).json();
  check('discovery: issuer is http://127.0.0.1:<port>', disco.issuer === issuer, disco.issuer);
  check('discovery: authorization_response_iss_parameter_supported (RFC 9207)', disco.authorization_response_iss_parameter_supported === true);
  check('discovery: code_challenge_methods_supported is [S256]', eq(disco.code_challenge_methods_supported, ['S256']), disco.code_challenge_methods_supported);
  check('discovery: revocation, introspection and registration endpoints present',
    disco.revocation_endpoint && disco.introspection_endpoint && disco.registration_endpoint, disco);
  check('discovery: scopes include openid email profile groups',
    ['openid', 'email', 'profile', 'groups'].every((s) => disco.scopes_supported.includes(s)), disco.scopes_supported);

  const jwksNow = async () => (await fetch(disco.jwks_uri)).json();
  const jwks0 = await jwksNow();
  check('jwks: one RS256 signing key at start', jwks0.keys.length === 1 && jwks0.keys[0].alg === 'RS256' && !jwks0.keys[0].d, jwks0);

  // PKCE is required.
  {
    const u = new URL(disco.authorization_endpoint);
    u.search = new URLSearchParams({ client_id: client.client_id, response_type: 'code', scope: 'openid', redirect_uri: redirectUri, state: 'nopkce' });
    const res = await request(null, u.href);
    const loc = new URL(res.headers.get('location') ?? 'about:blank');
    check('authorization request without code_challenge is refused (invalid_request, iss on the redirect)',
      res.status === 303 && loc.href.startsWith(redirectUri) && loc.searchParams.get('error') === 'invalid_request'
      && loc.searchParams.get('iss') === issuer && loc.searchParams.get('state') === 'nopkce',
      { status: res.status, location: loc.href });
  }

  // One authorization: follows redirects by hand, fills the form when it is shown.
  async function authorize(jar, { scope, login, resource, expectForm = true, label = '' }) {
    const { verifier, challenge } = pkcePair();
    const state = b64url(crypto.randomBytes(12));
    const nonce = b64url(crypto.randomBytes(12));
    const u = new URL(disco.authorization_endpoint);
    u.search = new URLSearchParams({
      client_id: client.client_id, response_type: 'code', scope, redirect_uri: redirectUri,
      state, nonce, code_challenge: challenge, code_challenge_method: 'S256',
    });
    if (resource) u.searchParams.append('resource', resource);
    let url = u.href;
    let formsShown = 0;
    for (let hop = 0; hop < 12; hop += 1) {
      if (url.startsWith(redirectUri)) {
        const cb = new URL(url);
        const res = await fetch(url); // deliver it to the redirect_uri listener too
        await res.text();
        return { cb, verifier, state, nonce, formsShown };
      }
      const res = await request(jar, url);
      if (res.status === 303 || res.status === 302) {
        url = new URL(res.headers.get('location'), url).href;
        continue;
      }
      const html = await res.text();
      const m = /<form method="POST" action="(\/interaction\/[^"]+\/login)">/.exec(html);
      if (res.status !== 200 || !m) throw new CheckFailed(`${label}: unexpected ${res.status} at ${url}\n${html.slice(0, 800)}`);
      formsShown += 1;
      if (!expectForm) throw new CheckFailed(`${label}: the sign-in form was shown although a session exists`);
      if (formsShown === 1 && label === 'alice') {
        check('interaction page: form POST /interaction/<uid>/login, input name="login" labelled Account, button#sign-in "Sign in"',
          /<label for="login">Account<\/label>/.test(html) && /<input id="login" name="login"/.test(html)
          && /<button id="sign-in" type="submit">Sign in<\/button>/.test(html), html);
        const bad = await request(jar, new URL(m[1], url).href, {
          method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'login=mallory',
        });
        const badHtml = await bad.text();
        check('unknown account: 400 page saying so', bad.status === 400 && badHtml.includes('Unknown account: mallory'), { status: bad.status, badHtml });
      }
      const post = await request(jar, new URL(m[1], url).href, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ login }).toString(),
      });
      if (post.status !== 303) throw new CheckFailed(`${label}: login POST gave ${post.status}: ${await post.text()}`);
      url = new URL(post.headers.get('location'), url).href;
    }
    throw new CheckFailed(`${label}: too many redirects, last ${url}`);
  }

  async function tokenRequest(params, auth = basic(client.client_id, client.client_secret)) {
    const res = await fetch(disco.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth },
      body: new URLSearchParams(params).toString(),
    });
    return { status: res.status, body: await res.json() };
  }

  async function verifyIdToken(idToken, { currentDate } = {}) {
    const keySet = jose.createLocalJWKSet(await jwksNow());
    const { payload, protectedHeader } = await jose.jwtVerify(idToken, keySet, {
      issuer, audience: client.client_id, currentDate,
    });
    return { payload, header: protectedHeader };
  }

  // ---- alice: the whole flow
  const aliceJar = new Jar();
  const a1 = await authorize(aliceJar, { scope: 'openid email profile groups', login: 'alice', label: 'alice' });
  check('redirect to redirect_uri carries code, the same state and iss = issuer (RFC 9207)',
    a1.cb.searchParams.get('code') && a1.cb.searchParams.get('state') === a1.state && a1.cb.searchParams.get('iss') === issuer,
    a1.cb.href);
  const hit = redirect.hits.at(-1);
  check('the local redirect_uri listener received code, state and iss',
    hit?.pathname === '/cb' && hit.searchParams.get('code') === a1.cb.searchParams.get('code') && hit.searchParams.get('iss') === issuer,
    hit?.href);

  const t1 = await tokenRequest({
    grant_type: 'authorization_code', code: a1.cb.searchParams.get('code'), redirect_uri: redirectUri, code_verifier: a1.verifier,
  });
  check('token endpoint: code + code_verifier (client_secret_basic) gives access, ID and refresh tokens',
    t1.status === 200 && t1.body.access_token && t1.body.id_token && t1.body.refresh_token && t1.body.token_type === 'Bearer', t1);
  check('refresh token issued although the scope has no offline_access',
    t1.body.refresh_token && !t1.body.scope.split(' ').includes('offline_access'), t1.body.scope);
  const id1 = await verifyIdToken(t1.body.id_token);
  ok('ID token: signature verifies against jwks_uri, iss and aud match');
  check('ID token: nonce echoed', id1.payload.nonce === a1.nonce, id1.payload);
  check('ID token: email, email_verified, name, groups present (scope claims in the ID token)',
    id1.payload.sub === 'alice' && id1.payload.email === 'alice@example.test' && id1.payload.email_verified === true
    && id1.payload.name === 'Alice Example' && eq(id1.payload.groups, ['admins', 'staff']), id1.payload);
  check('ID token: exp - iat = idTokenTtl (3600) and kid is the JWKS key', id1.payload.exp - id1.payload.iat === 3600
    && id1.header.kid === jwks0.keys[0].kid, { payload: id1.payload, header: id1.header });

  // ---- what the provider recorded about those requests
  {
    const reqs = await (await fetch(`${issuer}/_test/requests`)).json();
    const tok = reqs.filter((r) => r.route === 'token').at(-1);
    const auth = reqs.filter((r) => r.route === 'authorization' && r.params.state === a1.state).at(-1);
    check('/_test/requests: token request has grant_type/redirect_uri visible, code and code_verifier masked',
      tok && tok.method === 'POST' && tok.path === '/token' && tok.params.grant_type === 'authorization_code'
      && tok.params.redirect_uri === redirectUri && tok.params.code === '***' && tok.params.code_verifier === '***'
      && tok.basic_auth_client_id === 'herald' && tok.status === 200, tok);
    check('/_test/requests: authorization request shows code_challenge_method=S256 and scope',
      auth && auth.method === 'GET' && auth.path === '/auth' && auth.params.code_challenge_method === 'S256'
      && auth.params.scope === 'openid email profile groups', auth);
    const refused = reqs.find((r) => r.route === 'authorization' && r.params.state === 'nopkce');
    check('/_test/requests: the refused request is logged with its error', refused?.error === 'invalid_request', refused);
  }

  // ---- introspection
  {
    const res = await fetch(disco.introspection_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(client.client_id, client.client_secret) },
      body: new URLSearchParams({ token: t1.body.access_token }).toString(),
    });
    const body = await res.json();
    check('introspection: access token is active for alice', res.status === 200 && body.active === true && body.sub === 'alice', body);
  }

  // ---- a second authorization reuses the session and grant: no form
  const a2 = await authorize(aliceJar, { scope: 'openid email profile groups', login: 'alice', expectForm: false, label: 'alice again' });
  check('second authorization with the session cookie skips the form and still returns code + iss',
    a2.formsShown === 0 && a2.cb.searchParams.get('code') && a2.cb.searchParams.get('iss') === issuer, a2.cb.href);
  {
    const bad = await tokenRequest({
      grant_type: 'authorization_code', code: a2.cb.searchParams.get('code'), redirect_uri: redirectUri, code_verifier: pkcePair().verifier,
    });
    check('token endpoint: a wrong code_verifier is rejected (invalid_grant)', bad.status === 400 && bad.body.error === 'invalid_grant', bad);
  }

  // ---- resource indicator (RFC 8707) with JWT access token; the grant gets extended by auto-consent
  {
    const a3 = await authorize(aliceJar, {
      scope: 'openid mcp:tools', login: 'alice', resource: mcpResource, expectForm: false, label: 'alice resource',
    });
    const t3 = await tokenRequest({
      grant_type: 'authorization_code', code: a3.cb.searchParams.get('code'), redirect_uri: redirectUri,
      code_verifier: a3.verifier, resource: mcpResource,
    });
    const at = t3.status === 200 ? jose.decodeJwt(t3.body.access_token) : {};
    check('resource indicator: JWT access token with aud = resource and scope = mcp:tools (new scope consented automatically)',
      t3.status === 200 && at.aud === mcpResource && at.scope === 'mcp:tools' && at.sub === 'alice', { t3, at });
    const reqs = await (await fetch(`${issuer}/_test/requests`)).json();
    const tok = reqs.filter((r) => r.route === 'token').at(-1);
    const auth = reqs.filter((r) => r.route === 'authorization' && r.params.state === a3.state).at(-1);
    check('/_test/requests: resource visible on both the authorization and the token request',
      tok.params.resource === mcpResource && auth.params.resource === mcpResource, { tok, auth });
  }

  // ---- key rotation
  const rot = await (await fetch(`${issuer}/_test/rotate-keys`, { method: 'POST' })).json();
  const jwks1 = await jwksNow();
  check('rotate-keys: new kid, JWKS lists the new key first and still the old one',
    rot.kid !== jwks0.keys[0].kid && eq(jwks1.keys.map((k) => k.kid), [rot.kid, jwks0.keys[0].kid]), { rot, jwks1 });
  {
    const r = await tokenRequest({ grant_type: 'refresh_token', refresh_token: t1.body.refresh_token });
    const v = r.status === 200 ? await verifyIdToken(r.body.id_token) : undefined;
    check('refresh grant after rotation: new ID token signed with the new kid', r.status === 200 && v.header.kid === rot.kid, { r, header: v?.header });
  }
  const rot2 = await (await fetch(`${issuer}/_test/rotate-keys`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ drop_old: true }),
  })).json();
  const jwks2 = await jwksNow();
  check('rotate-keys {"drop_old":true}: JWKS lists only the newest key', eq(jwks2.keys.map((k) => k.kid), [rot2.kid]), jwks2);

  // ---- revocation
  {
    const res = await fetch(disco.revocation_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(client.client_id, client.client_secret) },
      body: new URLSearchParams({ token: t1.body.refresh_token, token_type_hint: 'refresh_token' }).toString(),
    });
    check('revocation endpoint: 200 for the refresh token', res.status === 200, res.status);
    const revoked = await (await fetch(`${issuer}/_test/revoked`)).json();
    const entry = revoked.find((r) => r.sha256 === sha256hex(t1.body.refresh_token));
    check('/_test/revoked lists the refresh token (kind, jti = token, sha256, client_id)',
      entry && entry.kind === 'RefreshToken' && entry.jti === t1.body.refresh_token && entry.client_id === 'herald'
      && entry.grant_revoked === true, revoked);
    const r = await tokenRequest({ grant_type: 'refresh_token', refresh_token: t1.body.refresh_token });
    check('revoked refresh token no longer works (invalid_grant)', r.status === 400 && r.body.error === 'invalid_grant', r);
  }

  // ---- accounts added at run time
  const bobJar = new Jar();
  {
    const res = await fetch(`${issuer}/_test/accounts`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sub: 'bob', email: 'bob@example.test', groups: ['devs', 'ops'] }),
    });
    check('POST /_test/accounts adds bob', res.status === 200 && (await res.json()).sub === 'bob');
    const b = await authorize(bobJar, { scope: 'openid email groups', login: 'bob', label: 'bob' });
    const t = await tokenRequest({
      grant_type: 'authorization_code', code: b.cb.searchParams.get('code'), redirect_uri: redirectUri, code_verifier: b.verifier,
    });
    const v = await verifyIdToken(t.body.id_token);
    check('bob signs in through the form; ID token has his email and groups, signed with the current kid',
      v.payload.sub === 'bob' && v.payload.email === 'bob@example.test' && eq(v.payload.groups, ['devs', 'ops'])
      && v.payload.name === undefined && v.header.kid === rot2.kid, { payload: v.payload, header: v.header });
  }

  // ---- client credentials
  {
    const r = await tokenRequest({ grant_type: 'client_credentials' }, basic('svc', 'svc-secret'));
    check('client_credentials grant for a client that has it', r.status === 200 && r.body.access_token && r.body.token_type === 'Bearer', r);
  }

  // ---- dynamic client registration (RFC 7591), enabled by "registration": true
  {
    const res = await fetch(disco.registration_endpoint, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [redirectUri], client_name: 'smoke' }),
    });
    const body = await res.json();
    check('registration: 201 with client_id and client_secret, defaults applied',
      res.status === 201 && body.client_id && body.client_secret && eq(body.grant_types, ['authorization_code', 'refresh_token'])
      && body.token_endpoint_auth_method === 'client_secret_basic', body);
  }

  // ---- clock shift: already-expired ID tokens
  {
    const res = await fetch(`${issuer}/_test/clock`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ offset_seconds: -7200 }),
    });
    const clock = await res.json();
    check('POST /_test/clock {"offset_seconds":-7200}', res.status === 200 && clock.offset_seconds === -7200
      && Math.abs(clock.real_now - clock.now - 7200) <= 1, clock);
    const b = await authorize(bobJar, { scope: 'openid email groups', login: 'bob', expectForm: false, label: 'bob shifted' });
    const t = await tokenRequest({
      grant_type: 'authorization_code', code: b.cb.searchParams.get('code'), redirect_uri: redirectUri, code_verifier: b.verifier,
    });
    check('code flow works under the shifted clock', t.status === 200 && t.body.id_token, t);
    const realNowS = Math.floor(Date.now() / 1000);
    const claims = jose.decodeJwt(t.body.id_token);
    check('ID token exp is in the real past (about an hour ago) and iat two hours ago',
      claims.exp < realNowS && Math.abs(realNowS - 3600 - claims.exp) <= 5 && Math.abs(realNowS - 7200 - claims.iat) <= 5,
      { realNowS, claims });
    let expiredError;
    try {
      await verifyIdToken(t.body.id_token);
    } catch (err) {
      expiredError = err.code;
    }
    check('a verifier with the real clock rejects it as expired', expiredError === 'ERR_JWT_EXPIRED', expiredError);
    await verifyIdToken(t.body.id_token, { currentDate: new Date(claims.iat * 1000) });
    ok('its signature still verifies');
    // A fresh user agent under the shifted clock: the interaction cookies must not arrive
    // already expired (their `expires` is corrected back to real time).
    const jar = new Jar();
    const first = await request(jar, (() => {
      const u = new URL(disco.authorization_endpoint);
      u.search = new URLSearchParams({
        client_id: client.client_id, response_type: 'code', scope: 'openid', redirect_uri: redirectUri,
        code_challenge: pkcePair().challenge, code_challenge_method: 'S256',
      });
      return u.href;
    })());
    const expires = first.headers.getSetCookie().map((c) => /expires=([^;]+)/i.exec(c)?.[1]).filter(Boolean).map(Date.parse);
    check('under the shifted clock, the interaction cookies expire in one real hour (expires corrected)',
      first.status === 303 && expires.length >= 2
      && expires.every((t) => Math.abs(t - (Date.now() + 3600 * 1000)) < 2 * 60 * 1000), first.headers.getSetCookie());
    const fresh = await authorize(new Jar(), { scope: 'openid groups', login: 'alice', label: 'alice shifted' });
    check('a fresh browser session signs in through the form under the shifted clock',
      fresh.formsShown === 1 && fresh.cb.searchParams.get('code'), fresh.cb.href);
    const reset = await (await fetch(`${issuer}/_test/clock`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ offset_seconds: 0 }),
    })).json();
    check('clock reset to offset 0', reset.offset_seconds === 0, reset);
  }

  check('stdout carried nothing but the `listening` line', stdoutLines.length === 1, stdoutLines);
}

let exitCode = 0;
try {
  await main();
  console.log(`PASS: ${checks} checks`);
} catch (err) {
  exitCode = 1;
  console.log(`FAIL - ${err instanceof CheckFailed ? err.message : err.stack}`);
  if (!verbose && providerStderr) console.log(`--- provider stderr ---\n${providerStderr}`);
} finally {
  child?.kill('SIGTERM');
  redirect.close();
}
process.exit(exitCode);
