// An agent built on the official TypeScript SDK, for the compatibility matrix (tests/compat).
//
//   node ts_agent.mjs --sdk v1 --era 2025-11-25     # @modelcontextprotocol/sdk 1.32.2 (2025-11-25 only)
//   node ts_agent.mjs --sdk v2 --era 2026-07-28     # @modelcontextprotocol/client 2.4.0, versionNegotiation pin
//   [--url U --token T --tool NAME --args JSON --answer accept|decline|cancel]
//
// Without --tool it reads one JSON request per stdin line and writes one JSON outcome per line:
// the contract of tests/compat/README.md. Each request gets a fresh Client and transport
// (StreamableHTTPClientTransport, the bearer token in requestInit headers).
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { fill, ROOT_URI, SAMPLING_REPLY } from './answers.mjs';

const modules = new URL('../../peers/node/node_modules/@modelcontextprotocol/', import.meta.url);

async function loadSdk(version) {
  if (version === 'v1') {
    const { Client } = await import(new URL('sdk/dist/esm/client/index.js', modules));
    const { StreamableHTTPClientTransport } = await import(new URL('sdk/dist/esm/client/streamableHttp.js', modules));
    const types = await import(new URL('sdk/dist/esm/types.js', modules));
    return {
      Client, StreamableHTTPClientTransport, options: {},
      // v1 registers handlers by request schema, v2 by method name.
      handlers: { elicit: types.ElicitRequestSchema, sample: types.CreateMessageRequestSchema, roots: types.ListRootsRequestSchema },
    };
  }
  const v2 = await import(new URL('client/dist/index.mjs', modules));
  return {
    Client: v2.Client, StreamableHTTPClientTransport: v2.StreamableHTTPClientTransport,
    options: { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    handlers: { elicit: 'elicitation/create', sample: 'sampling/createMessage', roots: 'roots/list' },
  };
}

function errorOutcome(stage, e) {
  const code = typeof e?.code === 'number' ? e.code : null;
  return { kind: 'error', stage, code, message: String(e?.message ?? e), data: e?.data ?? null };
}

async function runOne(sdk, era, request) {
  const asked = [];
  const answer = request.answer ?? 'accept';
  const capabilities = new Set(request.capabilities ?? []);
  const declared = { elicitation: { form: {}, url: {} } };
  if (capabilities.has('sampling')) declared.sampling = {};
  if (capabilities.has('roots')) declared.roots = { listChanged: true };
  const client = new sdk.Client({ name: 'compat-ts-agent', version: '1.0.0' }, { capabilities: declared, ...sdk.options });
  client.setRequestHandler(sdk.handlers.elicit, async (req) => {
    const params = req.params;
    let result = { action: answer };
    if (answer === 'accept' && params.mode !== 'url') result = { action: 'accept', content: fill(params.requestedSchema) };
    asked.push({ method: 'elicitation/create', params, answer: result });
    return result;
  });
  if (capabilities.has('sampling')) {
    client.setRequestHandler(sdk.handlers.sample, async (req) => {
      asked.push({ method: 'sampling/createMessage', params: req.params });
      return { role: 'assistant', content: { type: 'text', text: SAMPLING_REPLY }, model: 'compat-model' };
    });
  }
  if (capabilities.has('roots')) {
    client.setRequestHandler(sdk.handlers.roots, async () => {
      asked.push({ method: 'roots/list', params: null });
      return { roots: [{ uri: ROOT_URI, name: 'compat' }] };
    });
  }
  const headers = request.token ? { Authorization: `Bearer ${request.token}` } : {};
  const transport = new sdk.StreamableHTTPClientTransport(new URL(request.url), { requestInit: { headers } });
  const timeoutMs = (request.timeout ?? 20) * 1000;
  let stage = 'connect';
  let timer;
  const work = (async () => {
    await client.connect(transport);
    stage = 'call';
    const result = await client.callTool({ name: request.tool, arguments: request.args ?? {} }, undefined, { timeout: timeoutMs });
    return { kind: 'result', result };
  })();
  const deadline = new Promise((resolve) => { timer = setTimeout(() => resolve({ kind: 'timeout', stage }), timeoutMs); });
  let outcome;
  try {
    outcome = await Promise.race([work, deadline]);
  } catch (e) {
    outcome = errorOutcome(stage, e);
  } finally {
    clearTimeout(timer);
    work.catch(() => {});
    await client.close().catch(() => {});
  }
  return { id: request.id, era, outcome, asked };
}

const { values } = parseArgs({
  options: {
    sdk: { type: 'string', default: 'v1' }, era: { type: 'string' }, url: { type: 'string' },
    token: { type: 'string' }, tool: { type: 'string' }, args: { type: 'string', default: '{}' },
    answer: { type: 'string', default: 'accept' }, capabilities: { type: 'string', default: '' },
    timeout: { type: 'string', default: '20' },
  },
});
const sdk = await loadSdk(values.sdk);
if (values.tool) {
  const request = {
    id: 'cli', url: values.url, token: values.token, tool: values.tool, args: JSON.parse(values.args),
    answer: values.answer, timeout: Number(values.timeout), capabilities: values.capabilities.split(',').filter(Boolean),
  };
  console.log(JSON.stringify(await runOne(sdk, values.era, request)));
  process.exit(0);
}
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim()) console.log(JSON.stringify(await runOne(sdk, values.era, JSON.parse(line))));
}
