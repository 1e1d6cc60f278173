// A configurable OpenID Provider for Herald's tests: the certified `oidc-provider` 9.13.3
// (tests/peers/node/node_modules), bound to 127.0.0.1, with test control endpoints.
//
//   tests/peers/node/node_modules/.bin/node tests/peers/oidc/provider.mjs [CONFIG.json]
//   OIDC_CONFIG='{"clients":[...],"accounts":[...]}' PORT=0 .../node tests/peers/oidc/provider.mjs
//
// The first line on stdout is `listening <port>`; the issuer is http://127.0.0.1:<port>.
// Nothing else is ever written to stdout (oidc-provider's console.info NOTICEs are sent to
// stderr). See README.md beside this file for the config document and the /_test/* endpoints.
//
// Nothing is fetched from the network and nothing is written to disk: signing keys are made at
// start, all state lives in this process's memory (TestAdapter below).

import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import * as querystring from 'node:querystring';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

// ---------------------------------------------------------------- stdout discipline
// oidc-provider prints its NOTICEs with console.info (stdout); keep stdout for the readiness line.
for (const name of ['log', 'info', 'debug']) {
  console[name] = (...args) => console.error(...args);
}
const log = (...args) => console.error('[oidc]', ...args);
const verbose = process.env.OIDC_VERBOSE === '1';

// ---------------------------------------------------------------- the process clock
// POST /_test/clock shifts Date.now() for the whole process. oidc-provider takes every
// timestamp (iat, exp, auth_time, TTL bookkeeping of the in-memory adapter) from Date.now(),
// so a negative offset makes it issue tokens that are already expired in real time.
// `new Date()` is left alone; Set-Cookie `expires` values are corrected back to real time (see
// fixSetCookie) so that a real browser does not drop the provider's cookies.
const realNow = Date.now.bind(Date);
let clockOffsetMs = 0;
Date.now = () => realNow() + clockOffsetMs;

// ---------------------------------------------------------------- modules from tests/peers/node
const here = path.dirname(fileURLToPath(import.meta.url));
const nodeDir = path.resolve(here, '..', 'node');
const requireFromPeers = createRequire(path.join(nodeDir, 'package.json'));
const oidcEntry = requireFromPeers.resolve('oidc-provider');
const { Provider, errors } = await import(pathToFileURL(oidcEntry).href);
const requireFromOidc = createRequire(oidcEntry);
const { generateKeyPair, exportJWK, calculateJwkThumbprint } = await import(
  pathToFileURL(requireFromOidc.resolve('jose')).href
);

// ---------------------------------------------------------------- configuration document
function loadConfig() {
  let text;
  let source;
  if (process.argv[2]) {
    source = process.argv[2];
    text = fs.readFileSync(source, 'utf8');
  } else if (process.env.OIDC_CONFIG) {
    const env = process.env.OIDC_CONFIG.trim();
    if (env.startsWith('{')) {
      source = 'env OIDC_CONFIG';
      text = env;
    } else {
      source = env;
      text = fs.readFileSync(env, 'utf8');
    }
  } else {
    source = '(none: empty configuration)';
    text = '{}';
  }
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new Error(`config from ${source} is not JSON: ${err.message}`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new Error(`config from ${source} must be a JSON object`);
  }
  const arr = (v, what) => {
    if (v === undefined) return [];
    if (!Array.isArray(v)) throw new Error(`config: ${what} must be an array`);
    return v;
  };
  const num = (v, what) => {
    if (v === undefined) return undefined;
    if (!Number.isInteger(v) || v <= 0) throw new Error(`config: ${what} must be a positive integer (seconds)`);
    return v;
  };
  const cfg = {
    clients: arr(doc.clients, 'clients'),
    accounts: arr(doc.accounts, 'accounts'),
    idTokenTtl: num(doc.idTokenTtl, 'idTokenTtl') ?? 3600,
    accessTokenTtl: num(doc.accessTokenTtl, 'accessTokenTtl'),
    resourceServers: doc.resourceServers ?? {},
    registration: doc.registration === true,
    useGrantedResource: doc.useGrantedResource === true,
    rotateRefreshToken: doc.rotateRefreshToken,
    refreshTokens: doc.refreshTokens ?? 'always',
    clientIdMetadataDocument: doc.clientIdMetadataDocument === true,
  };
  if (!['always', 'offline_access'].includes(cfg.refreshTokens)) {
    throw new Error('config: refreshTokens must be "always" or "offline_access"');
  }
  checkResourceServers(cfg.resourceServers, 'config: resourceServers');
  if (cfg.rotateRefreshToken !== undefined && typeof cfg.rotateRefreshToken !== 'boolean') {
    throw new Error('config: rotateRefreshToken must be a boolean');
  }
  for (const c of cfg.clients) {
    if (typeof c?.client_id !== 'string') throw new Error('config: every client needs a client_id');
  }
  return { cfg, source };
}

// resource indicator URL -> {scope, audience?, accessTokenFormat?, accessTokenTTL?}; throws on a bad one.
function checkResourceServers(servers, what) {
  if (typeof servers !== 'object' || Array.isArray(servers) || servers === null) {
    throw new Error(`${what} must be an object mapping resource indicator URL -> {scope, audience?, accessTokenFormat?, accessTokenTTL?}`);
  }
  for (const [indicator, rs] of Object.entries(servers)) {
    if (!URL.canParse(indicator)) throw new Error(`${what} key ${indicator} is not an absolute URL`);
    if (typeof rs?.scope !== 'string') throw new Error(`${what}[${indicator}].scope must be a space-separated string`);
    if (rs.accessTokenFormat !== undefined && !['jwt', 'opaque'].includes(rs.accessTokenFormat)) {
      throw new Error(`${what}[${indicator}].accessTokenFormat must be "jwt" or "opaque"`);
    }
    if (rs.accessTokenTTL !== undefined && (!Number.isInteger(rs.accessTokenTTL) || rs.accessTokenTTL <= 0)) {
      throw new Error(`${what}[${indicator}].accessTokenTTL must be a positive integer (seconds)`);
    }
  }
}

function normaliseAccount(a) {
  if (typeof a?.sub !== 'string' || !a.sub) throw new Error('account needs a non-empty string "sub"');
  if (a.groups !== undefined && (!Array.isArray(a.groups) || a.groups.some((g) => typeof g !== 'string'))) {
    throw new Error(`account ${a.sub}: groups must be an array of strings`);
  }
  return {
    sub: a.sub,
    email: a.email,
    email_verified: a.email_verified ?? true,
    name: a.name,
    groups: a.groups ?? [],
  };
}

const { cfg, source: configSource } = loadConfig();
const accounts = new Map(cfg.accounts.map((a) => {
  const n = normaliseAccount(a);
  return [n.sub, n];
}));

// scope -> claims. `openid` and `offline_access` are oidc-provider's built-in scopes.
const CLAIMS = {
  acr: null,
  auth_time: null,
  iss: null,
  sid: null,
  openid: ['sub'],
  email: ['email', 'email_verified'],
  profile: ['name'],
  groups: ['groups'],
};
const OIDC_SCOPES = new Set(['openid', 'offline_access', 'email', 'profile', 'groups']);

// ---------------------------------------------------------------- storage
// A process-wide in-memory adapter (oidc-provider's adapter interface). The built-in memory
// adapter keeps a separate store per Provider instance, and /_test/rotate-keys re-constructs
// the Provider, so sessions, grants, codes and tokens must live outside it. No size limit (the
// built-in one is an LRU of 1000 entries); expiry uses the (possibly shifted) Date.now().
const store = new Map(); // `${model}:${id}` -> { payload, expiresAt }
const grantIndex = new Map(); // grantId -> Set of store keys
const uidIndex = new Map(); // session uid -> session id
const userCodeIndex = new Map(); // device user code -> id

function live(key) {
  const entry = store.get(key);
  if (!entry) return undefined;
  if (entry.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
    store.delete(key);
    return undefined;
  }
  return entry.payload;
}

class TestAdapter {
  constructor(model) {
    this.model = model;
  }

  key(id) {
    return `${this.model}:${id}`;
  }

  async upsert(id, payload, expiresIn) {
    const key = this.key(id);
    const expiresAt = typeof expiresIn === 'number' ? Date.now() + (expiresIn + 15) * 1000 : undefined;
    store.set(key, { payload, expiresAt });
    if (payload.grantId) {
      if (!grantIndex.has(payload.grantId)) grantIndex.set(payload.grantId, new Set());
      grantIndex.get(payload.grantId).add(key);
    }
    if (this.model === 'Session' && payload.uid) uidIndex.set(payload.uid, id);
    if (payload.userCode) userCodeIndex.set(payload.userCode, id);
  }

  async find(id) {
    return live(this.key(id));
  }

  async findByUid(uid) {
    const id = uidIndex.get(uid);
    return id === undefined ? undefined : this.find(id);
  }

  async findByUserCode(userCode) {
    const id = userCodeIndex.get(userCode);
    return id === undefined ? undefined : this.find(id);
  }

  async consume(id) {
    const payload = live(this.key(id));
    if (payload) payload.consumed = Math.floor(Date.now() / 1000);
  }

  async destroy(id) {
    store.delete(this.key(id));
  }

  async revokeByGrantId(grantId) {
    for (const key of grantIndex.get(grantId) ?? []) store.delete(key);
    grantIndex.delete(grantId);
  }
}

// ---------------------------------------------------------------- keys
const cookieKeys = [crypto.randomBytes(32).toString('base64url')]; // same across rebuilds
let signingKeys = []; // private JWKs, current signing key first

async function newSigningKey() {
  const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  const jwk = await exportJWK(privateKey);
  jwk.kid = await calculateJwkThumbprint(jwk);
  jwk.alg = 'RS256';
  jwk.use = 'sig';
  return jwk;
}

// ---------------------------------------------------------------- test observation state
const MAX_REQUESTS = 100;
const requestLog = []; // oldest first
const revoked = [];
const MASKED = new Set(['client_secret', 'code_verifier', 'code', 'refresh_token', 'client_assertion', 'token']);
// oidc-provider route names: /auth, /token, /reg (RFC 7591), /token/introspection (RFC 7662),
// /token/revocation (RFC 7009).
const LOGGED_ROUTES = new Set(['authorization', 'token', 'registration', 'introspection', 'revocation']);

function maskParams(params) {
  const out = {};
  for (const [k, v] of Object.entries(params ?? {})) {
    if (MASKED.has(k)) out[k] = Array.isArray(v) ? v.map(() => '***') : '***';
    else out[k] = v;
  }
  return out;
}

const sha256 = (s) => crypto.createHash('sha256').update(s).digest('hex');

function basicAuthClientId(header) {
  if (typeof header !== 'string' || !/^basic /i.test(header)) return null;
  try {
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const i = decoded.indexOf(':');
    return querystring.unescape(i === -1 ? decoded : decoded.slice(0, i));
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------- provider construction
let issuer;
let current; // { provider, callback }

function findResourceServer(indicator) {
  return Object.hasOwn(cfg.resourceServers, indicator) ? cfg.resourceServers[indicator] : undefined;
}

function providerConfiguration() {
  const clientDefaults = {
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    id_token_signed_response_alg: 'RS256',
  };
  const resourceIndicatorsOn = Object.keys(cfg.resourceServers).length > 0;
  const accessTokenTtl = (ctx, token) => token.resourceServer?.accessTokenTTL || cfg.accessTokenTtl || 3600;

  const conf = {
    adapter: TestAdapter,
    clients: structuredClone(cfg.clients),
    clientDefaults,
    jwks: { keys: structuredClone(signingKeys) },
    cookies: {
      keys: cookieKeys,
      // Not `secure`: oidc-provider only marks cookies secure when the request is (ctx.secure).
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
    },
    claims: CLAIMS,
    conformIdTokenClaims: false, // scope-requested claims (email, name, groups) go into the ID token
    responseTypes: ['code'],
    pkce: { required: () => true }, // every code flow request needs code_challenge (S256 only in 9.x)
    async findAccount(ctx, sub) {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return {
        accountId: sub,
        async claims() {
          const a = accounts.get(sub) ?? account;
          const out = { sub, email_verified: a.email_verified, groups: [...a.groups] };
          if (a.email !== undefined) out.email = a.email;
          if (a.name !== undefined) out.name = a.name;
          return out;
        },
      };
    },
    interactions: {
      url: async (ctx, interaction) => `/interaction/${interaction.uid}`,
    },
    ttl: {
      AccessToken: accessTokenTtl,
      ClientCredentials: accessTokenTtl,
      AuthorizationCode: 60,
      IdToken: cfg.idTokenTtl,
      RefreshToken: 14 * 24 * 60 * 60,
      Interaction: 60 * 60,
      Session: 14 * 24 * 60 * 60,
      Grant: 14 * 24 * 60 * 60,
      DeviceCode: 10 * 60,
      BackchannelAuthenticationRequest: 10 * 60,
      PreAuthorizedCode: 10 * 60,
    },
    features: {
      devInteractions: { enabled: false },
      revocation: {
        enabled: true,
        async allowedPolicy(ctx, client, token) { // = the library default, without its NOTICE
          if (token.clientId !== client.clientId) {
            if (client.clientAuthMethod === 'none') return false;
            throw new errors.InvalidRequest('client is not authorized to revoke the presented token');
          }
          return true;
        },
      },
      introspection: {
        enabled: true,
        async allowedPolicy(ctx, client, token) { // = the library default, without its NOTICE
          return !(client.clientAuthMethod === 'none' && token.clientId !== ctx.oidc.client.clientId);
        },
      },
      clientCredentials: { enabled: true },
      registration: { enabled: cfg.registration },
      // OAuth Client ID Metadata Document (draft-02, as the library implements it): a client
      // id that is an https URL is fetched and its document is the client.
      clientIdMetadataDocument: cfg.clientIdMetadataDocument
        ? { enabled: true, ack: 'draft-02' }
        : { enabled: false },
      resourceIndicators: resourceIndicatorsOn
        ? {
          enabled: true,
          async getResourceServerInfo(ctx, indicator) {
            const rs = findResourceServer(indicator);
            if (!rs) throw new errors.InvalidTarget(`unknown resource indicator ${indicator}`);
            const info = { scope: rs.scope, accessTokenFormat: rs.accessTokenFormat ?? 'opaque' };
            if (rs.audience !== undefined) info.audience = rs.audience;
            if (rs.accessTokenTTL !== undefined) info.accessTokenTTL = rs.accessTokenTTL;
            if (info.accessTokenFormat === 'jwt') info.jwt = { sign: { alg: 'RS256' } };
            return info;
          },
          async useGrantedResource() {
            return cfg.useGrantedResource;
          },
        }
        : { enabled: false },
    },
    async renderError(ctx, out) {
      ctx.type = 'html';
      ctx.body = page('Error', `<h1>Error</h1>${Object.entries(out)
        .map(([k, v]) => `<p><strong>${esc(k)}</strong>: <span id="${esc(k)}">${esc(v)}</span></p>`).join('')}`);
    },
  };
  if (cfg.rotateRefreshToken !== undefined) conf.rotateRefreshToken = cfg.rotateRefreshToken;
  // The library refuses to fetch from special-use addresses (its SSRF guard, a dispatcher it
  // passes in); in these tests every client document is on loopback, so the guard is left out.
  // The document's https is still checked (trust the test's certificate: NODE_EXTRA_CA_CERTS).
  if (cfg.clientIdMetadataDocument) {
    conf.fetch = (url, { dispatcher: _guard, ...options }) => globalThis.fetch(url, options);
  }
  // Refresh tokens: "always" (default) whenever the client is allowed the refresh_token grant
  // (the default client metadata gives it), with or without offline_access; "offline_access"
  // keeps the library default: only when the code's scopes have offline_access (which the
  // authorization request keeps only with prompt=consent).
  if (cfg.refreshTokens === 'always') {
    conf.issueRefreshToken = async (ctx, client) => client.grantTypeAllowed('refresh_token');
  }
  return conf;
}

function buildProvider() {
  const provider = new Provider(issuer, providerConfiguration());

  // Test observation: the token and authorization endpoints, and what revocation destroyed.
  provider.use(async (ctx, next) => {
    try {
      await next();
    } finally {
      const route = ctx.oidc?.route;
      if (LOGGED_ROUTES.has(route)) {
        let params;
        if (ctx.method === 'GET') params = querystring.parse(ctx.querystring);
        else params = ctx.oidc.body ?? {};
        const entry = {
          at: new Date(realNow()).toISOString(),
          route,
          method: ctx.method,
          path: ctx.path,
          params: maskParams(params),
          basic_auth_client_id: basicAuthClientId(ctx.get('authorization')),
          status: ctx.status,
        };
        let error = ctx.body && typeof ctx.body === 'object' && !Buffer.isBuffer(ctx.body) ? ctx.body.error : undefined;
        const location = ctx.response.get('location');
        if (!error && location && URL.canParse(location, issuer)) {
          const loc = new URL(location, issuer);
          error = loc.searchParams.get('error') ?? undefined;
        }
        if (error) entry.error = error;
        requestLog.push(entry);
        if (requestLog.length > MAX_REQUESTS) requestLog.splice(0, requestLog.length - MAX_REQUESTS);
      }
      if (route === 'revocation' && ctx.state.revokedTokens) {
        for (const t of ctx.state.revokedTokens) {
          t.grant_revoked = ctx.state.revokedGrants?.has(t.grant_id) ?? false;
          revoked.push(t);
        }
      }
    }
  });

  const onDestroyed = (token) => {
    const ctx = Provider.ctx;
    if (ctx?.oidc?.route !== 'revocation') return;
    ctx.state.revokedTokens ||= [];
    ctx.state.revokedTokens.push({
      at: new Date(realNow()).toISOString(),
      kind: token.kind,
      jti: token.jti, // for opaque tokens this is the token value itself
      sha256: sha256(token.jti),
      client_id: token.clientId,
      account_id: token.accountId,
      grant_id: token.grantId,
      token_type_hint: ctx.oidc.params?.token_type_hint,
    });
  };
  provider.on('refresh_token.destroyed', onDestroyed);
  provider.on('access_token.destroyed', onDestroyed);
  provider.on('client_credentials.destroyed', onDestroyed);
  provider.on('grant.revoked', (ctx, grantId) => {
    if (ctx?.oidc?.route !== 'revocation') return;
    ctx.state.revokedGrants ||= new Set();
    ctx.state.revokedGrants.add(grantId);
  });

  // Diagnostics on stderr.
  provider.on('server_error', (ctx, err) => log('server_error', ctx?.method, ctx?.path, err));
  for (const ev of ['authorization.error', 'grant.error', 'revocation.error', 'introspection.error',
    'registration_create.error', 'userinfo.error', 'jwks.error', 'discovery.error', 'end_session.error']) {
    provider.on(ev, (ctx, err) => log(`${ev}: ${err.error ?? err.name}`
      + `${err.error_description ? ` (${err.error_description})` : ''}`
      + `${err.error_detail ? ` detail: ${err.error_detail}` : ''}`
      + `${err.cause ? ` cause: ${err.cause.message ?? err.cause}` : ''}`));
  }
  return { provider, callback: provider.callback() };
}

// ---------------------------------------------------------------- small http helpers
function esc(v) {
  return String(v ?? '').replace(/[&<>"']/g, (c) => ({
    '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;',
  }[c]));
}

function page(title, body) {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>${esc(title)}</title></head>
<body>
${body}
</body>
</html>
`;
}

function send(res, status, type, body, headers = {}) {
  const buf = Buffer.from(body);
  res.writeHead(status, {
    'content-type': type,
    'content-length': buf.length,
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(buf);
}
const sendJson = (res, status, obj) => send(res, status, 'application/json; charset=utf-8', `${JSON.stringify(obj)}\n`);
const sendHtml = (res, status, html) => send(res, status, 'text/html; charset=utf-8', html);

async function readBody(req, limit = 64 * 1024) {
  const chunks = [];
  let n = 0;
  for await (const chunk of req) {
    n += chunk.length;
    if (n > limit) throw Object.assign(new Error('request body too large'), { status: 413 });
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function readJson(req) {
  const text = (await readBody(req)).trim();
  if (!text) return {};
  try {
    const v = JSON.parse(text);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
    return v;
  } catch (err) {
    throw Object.assign(new Error(`body must be a JSON object: ${err.message}`), { status: 400 });
  }
}

// Cookie `expires` values are computed from the shifted Date.now(); move them back to real time.
// Done once, when the head is written: the cookies module re-sets the whole Set-Cookie list on
// every cookie, and oidc-provider appends the session cookie's expires to the list in place.
function fixSetCookie(res) {
  const writeHead = res.writeHead;
  res.writeHead = function patchedWriteHead(...args) {
    const cookies = res.getHeader('set-cookie');
    if (clockOffsetMs !== 0 && cookies !== undefined) {
      const fix = (c) => String(c).replace(/expires=([^;]+)/gi, (m, d) => {
        const t = Date.parse(d);
        if (Number.isNaN(t) || t <= 0) return m; // deletion cookies (1970)
        return `expires=${new Date(t - clockOffsetMs).toUTCString()}`;
      });
      res.setHeader('set-cookie', Array.isArray(cookies) ? cookies.map(fix) : fix(cookies));
    }
    return writeHead.apply(this, args);
  };
}

// ---------------------------------------------------------------- interactions (login + consent)
function loginForm(uid, details, { error } = {}) {
  const { params } = details;
  const errorHtml = error ? `<p id="error" role="alert">${esc(error)}</p>\n` : '';
  return page('Sign in', `<h1>Sign in</h1>
${errorHtml}<p>Client <code id="client-id">${esc(params.client_id)}</code> asks for scope <code id="scope">${esc(params.scope ?? '')}</code>.</p>
<form method="POST" action="/interaction/${esc(uid)}/login">
  <label for="login">Account</label>
  <input id="login" name="login" type="text" autocomplete="username" autofocus required>
  <button id="sign-in" type="submit">Sign in</button>
</form>`);
}

// Grants everything that was asked for: the OIDC scopes, claims (claims parameter), and for each
// requested resource indicator the requested scopes that resource server knows.
async function grantEverything(provider, details, accountId) {
  const { params, prompt } = details;
  let grant;
  if (details.grantId && details.session?.accountId === accountId) {
    grant = await provider.Grant.find(details.grantId);
  }
  grant ||= new provider.Grant({ accountId, clientId: params.client_id });

  const requested = String(params.scope ?? '').split(' ').filter(Boolean);
  const oidcScopes = requested.filter((s) => OIDC_SCOPES.has(s));
  if (oidcScopes.length) grant.addOIDCScope(oidcScopes.join(' '));
  if (prompt?.details?.missingOIDCScope?.length) grant.addOIDCScope(prompt.details.missingOIDCScope.join(' '));

  const claims = new Set(prompt?.details?.missingOIDCClaims ?? []);
  if (params.claims) {
    try {
      const c = JSON.parse(params.claims);
      for (const part of [c.userinfo, c.id_token]) for (const k of Object.keys(part ?? {})) claims.add(k);
    } catch { /* the provider already validated it */ }
  }
  if (claims.size) grant.addOIDCClaims([...claims]);

  const resources = [params.resource].flat().filter((r) => typeof r === 'string');
  for (const indicator of resources) {
    const rs = findResourceServer(indicator);
    if (!rs) continue;
    const known = new Set(rs.scope.split(' ').filter(Boolean));
    const scopes = requested.filter((s) => known.has(s));
    if (scopes.length) grant.addResourceScope(indicator, scopes.join(' '));
  }
  for (const [indicator, scopes] of Object.entries(prompt?.details?.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  return grant.save();
}

async function handleInteraction(req, res, url) {
  const m = url.pathname.match(/^\/interaction\/([^/]+)(?:\/(login|abort))?\/?$/);
  if (!m) return sendHtml(res, 404, page('Not found', '<p id="error">no such interaction route</p>'));
  const [, uid, action] = m;
  const { provider } = current;

  let details;
  try {
    details = await provider.interactionDetails(req, res);
  } catch (err) {
    return sendHtml(res, 400, page('Interaction not found', `<h1>Interaction not found</h1>
<p id="error">${esc(err.error_description ?? err.message)}</p>`));
  }
  if (details.uid !== uid) {
    return sendHtml(res, 400, page('Interaction mismatch', `<p id="error">interaction cookie is for ${esc(details.uid)}, not ${esc(uid)}</p>`));
  }

  if (req.method === 'GET' && !action) {
    if (details.prompt.name === 'login') return sendHtml(res, 200, loginForm(uid, details));
    if (details.prompt.name === 'consent' && details.session?.accountId) {
      // Signed in already but the grant lacks something: consent automatically.
      const grantId = await grantEverything(provider, details, details.session.accountId);
      return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    }
    return sendHtml(res, 400, page('Unsupported prompt', `<p id="error">unsupported prompt ${esc(details.prompt.name)}</p>`));
  }

  if (req.method === 'POST' && action === 'abort') {
    await readBody(req);
    return provider.interactionFinished(req, res, {
      error: 'access_denied', error_description: 'End-User aborted interaction',
    }, { mergeWithLastSubmission: false });
  }

  if (req.method === 'POST' && action === 'login') {
    const form = querystring.parse(await readBody(req));
    const login = typeof form.login === 'string' ? form.login.trim() : '';
    if (!accounts.has(login)) {
      return sendHtml(res, 400, loginForm(uid, details, { error: `Unknown account: ${login || '(empty)'}` }));
    }
    const grantId = await grantEverything(provider, details, login);
    log(`interaction ${uid}: signed in ${login}, granted scope "${details.params.scope ?? ''}"`);
    return provider.interactionFinished(req, res, {
      login: { accountId: login },
      consent: { grantId },
    }, { mergeWithLastSubmission: false });
  }

  return sendHtml(res, 405, page('Method not allowed', '<p id="error">method not allowed</p>'));
}

// ---------------------------------------------------------------- /_test control endpoints
// Clients registered at /reg (RFC 7591), oldest first; the secret itself is not shown.
function registeredClients() {
  const out = [];
  for (const key of store.keys()) {
    if (!key.startsWith('Client:')) continue;
    const c = live(key);
    if (!c) continue;
    const { client_secret: secret, registration_access_token: _token, ...shown } = c;
    out.push({ ...shown, has_secret: typeof secret === 'string' });
  }
  return out;
}

// Live (not expired, not revoked) access and refresh tokens, oldest first. Opaque tokens' `jti`
// is the token value, so a test can introspect or present it.
function liveTokens() {
  const out = [];
  for (const key of store.keys()) {
    const [model] = key.split(':', 1);
    if (!['AccessToken', 'RefreshToken', 'ClientCredentials'].includes(model)) continue;
    const t = live(key);
    if (!t) continue;
    out.push({
      kind: model,
      jti: t.jti,
      sha256: sha256(t.jti),
      client_id: t.clientId,
      account_id: t.accountId,
      grant_id: t.grantId,
      scope: t.scope,
      aud: t.aud,
      exp: t.exp,
      consumed: t.consumed !== undefined,
    });
  }
  return out;
}

async function rotateKeys({ drop_old: dropOld = false } = {}) {
  const key = await newSigningKey();
  const previous = signingKeys.map((k) => k.kid);
  signingKeys = dropOld ? [key] : [key, ...signingKeys];
  current = buildProvider(); // same issuer, cookie keys and TestAdapter store; new keystore
  log(`rotated signing key: now ${key.kid}${dropOld ? ' (old keys dropped)' : ''}`);
  return { kid: key.kid, previous_kids: previous, kids: signingKeys.map((k) => k.kid) };
}

function clockState() {
  return {
    offset_seconds: clockOffsetMs / 1000,
    now: Math.floor(Date.now() / 1000),
    real_now: Math.floor(realNow() / 1000),
  };
}

async function handleTest(req, res, url) {
  const route = `${req.method} ${url.pathname.replace(/\/$/, '')}`;
  switch (route) {
    case 'POST /_test/rotate-keys': {
      const body = await readJson(req);
      return sendJson(res, 200, await rotateKeys({ drop_old: body.drop_old === true }));
    }
    case 'GET /_test/keys':
      return sendJson(res, 200, { kid: signingKeys[0].kid, kids: signingKeys.map((k) => k.kid) });
    case 'POST /_test/clock': {
      const body = await readJson(req);
      if (typeof body.offset_seconds !== 'number' || !Number.isFinite(body.offset_seconds)) {
        return sendJson(res, 400, { error: 'offset_seconds must be a number' });
      }
      clockOffsetMs = Math.round(body.offset_seconds * 1000);
      log(`clock offset set to ${body.offset_seconds}s`);
      return sendJson(res, 200, clockState());
    }
    case 'GET /_test/clock':
      return sendJson(res, 200, clockState());
    case 'POST /_test/accounts': {
      const body = await readJson(req);
      let account;
      try {
        account = normaliseAccount(body);
      } catch (err) {
        return sendJson(res, 400, { error: err.message });
      }
      const replaced = accounts.has(account.sub);
      accounts.set(account.sub, account);
      return sendJson(res, 200, { ...account, replaced });
    }
    case 'GET /_test/accounts':
      return sendJson(res, 200, [...accounts.values()]);
    case 'GET /_test/revoked':
      return sendJson(res, 200, revoked);
    case 'DELETE /_test/revoked':
      revoked.length = 0;
      return sendJson(res, 200, revoked);
    case 'GET /_test/clients':
      return sendJson(res, 200, registeredClients());
    case 'GET /_test/tokens':
      return sendJson(res, 200, liveTokens());
    case 'POST /_test/resource-servers': {
      const body = await readJson(req);
      try {
        checkResourceServers(body, 'body');
      } catch (err) {
        return sendJson(res, 400, { error: err.message });
      }
      const wasOn = Object.keys(cfg.resourceServers).length > 0;
      Object.assign(cfg.resourceServers, body);
      // Turning RFC 8707 on changes the provider's features: re-construct it (as rotate-keys
      // does; the store, keys and issuer stay).
      if (!wasOn && Object.keys(cfg.resourceServers).length > 0) current = buildProvider();
      log(`resource servers: ${Object.keys(cfg.resourceServers).join(', ')}`);
      return sendJson(res, 200, cfg.resourceServers);
    }
    case 'GET /_test/resource-servers':
      return sendJson(res, 200, cfg.resourceServers);
    case 'GET /_test/requests':
      return sendJson(res, 200, requestLog);
    case 'DELETE /_test/requests':
      requestLog.length = 0;
      return sendJson(res, 200, requestLog);
    default:
      return sendJson(res, 404, { error: `no test endpoint ${route}` });
  }
}

// ---------------------------------------------------------------- server
async function handle(req, res) {
  const url = new URL(req.url, issuer);
  if (verbose) log(req.method, req.url);
  if (!current) return sendJson(res, 503, { error: 'starting' });
  if (url.pathname.startsWith('/_test/')) return handleTest(req, res, url);
  fixSetCookie(res);
  if (url.pathname.startsWith('/interaction/')) return handleInteraction(req, res, url);
  return current.callback(req, res);
}

signingKeys = [await newSigningKey()];

const server = http.createServer((req, res) => {
  handle(req, res).catch((err) => {
    log('handler error', req.method, req.url, err);
    if (!res.headersSent) sendJson(res, err.status ?? 500, { error: err.message });
    else res.destroy();
  });
});

const requestedPort = process.env.PORT ? Number(process.env.PORT) : 0;
if (!Number.isInteger(requestedPort) || requestedPort < 0 || requestedPort > 65535) {
  throw new Error(`PORT must be 0..65535, got ${process.env.PORT}`);
}
await new Promise((resolve, reject) => {
  server.once('error', reject);
  server.listen(requestedPort, '127.0.0.1', resolve);
});
const { port } = server.address();
issuer = `http://127.0.0.1:${port}`;
current = buildProvider();
// oidc-provider validates static client metadata lazily, on first use: check it now.
for (const c of cfg.clients) {
  try {
    await current.provider.Client.find(c.client_id);
  } catch (err) {
    log(`config: client ${c.client_id} is invalid: ${err.error_description ?? err.message}`);
    process.exit(1);
  }
}
log(`issuer ${issuer} (config: ${configSource}; ${cfg.clients.length} client(s), ${accounts.size} account(s), `
  + `resource servers: ${Object.keys(cfg.resourceServers).length}, registration: ${cfg.registration})`);

await new Promise((resolve) => {
  process.stdout.write(`listening ${port}\n`, resolve);
});

for (const sig of ['SIGTERM', 'SIGINT']) {
  process.on(sig, () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  });
}
