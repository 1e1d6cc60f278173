// An https front for a plain-http server, for tests that need Herald on https (a Client ID
// Metadata Document must be served from an https URL). Node's own https and http modules;
// nothing is fetched, nothing is written.
//
//   node tests/peers/tls/front.mjs CERT.pem KEY.pem http://127.0.0.1:<port>
//
// The first line on stdout is `listening <port>` (on 127.0.0.1). Every request is passed to
// the target as it came (streamed both ways, so server-sent events flow), with
// `X-Forwarded-Proto: https`; the target's answer is passed back as it is.

import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';

const [certFile, keyFile, target] = process.argv.slice(2);
if (!certFile || !keyFile || !target) {
  console.error('usage: front.mjs CERT.pem KEY.pem http://host:port');
  process.exit(2);
}
const upstream = new URL(target);

const server = https.createServer(
  { cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) },
  (req, res) => {
    const forwarded = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, 'x-forwarded-proto': 'https' },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`front: ${err.message}`);
    });
    req.pipe(forwarded);
  },
);
server.listen(0, '127.0.0.1', () => {
  console.log(`listening ${server.address().port}`);
});
