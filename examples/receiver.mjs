// A webhook receiver for the Partner Fulfillment API: plain Node.js (20.19+), no build step.
//
//   WEBHOOK_SECRET=whsec_… node examples/receiver.mjs        # listens on http://127.0.0.1:4000
//   RECEIVER_PORT=4100 RECEIVER_HOST=0.0.0.0 WEBHOOK_SECRET=whsec_… node examples/receiver.mjs
//
// Its own variables, RECEIVER_PORT and RECEIVER_HOST, so that a shell that set PORT and HOST for the
// server (README, "Another port") starts the receiver where the walkthrough's WEBHOOK_URL points.
//
// Every request's signature is checked with the Standard Webhooks library (`standardwebhooks`, the
// scheme docs/webhooks.md describes) against the raw body, before anything is parsed: a bad or
// missing signature, or a timestamp more than 5 minutes from this clock, is refused with 400.
// A verified event is answered 204 at once and printed on one line: its type, its webhook-id and the
// ids of its payload, for example
//
//   order.created 4ecbac72-… status=pending medication_request_id=e3052cba-… patient_id=f588d5af-…
//
// Delivery is at least once: an event seen before (same webhook-id) is answered 204 again and
// printed with "(repeat)". A real receiver records the ids in its database and queues the work.
import { Buffer } from 'node:buffer';
import http from 'node:http';
import process from 'node:process';
import { Webhook } from 'standardwebhooks';

const PORT = Number(process.env.RECEIVER_PORT || 4000);
const HOST = process.env.RECEIVER_HOST || '127.0.0.1';
/** Bodies the API sends are a few hundred bytes; anything much larger is not ours. */
const MAX_BODY_BYTES = 1024 * 1024;

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  process.stderr.write('Set WEBHOOK_SECRET to the whsec_… secret the API answered when you registered this endpoint.\n');
  process.exit(1);
}
let webhook;
try {
  webhook = new Webhook(secret);
} catch (error) {
  process.stderr.write(`WEBHOOK_SECRET is not a signing secret (whsec_ followed by base64): ${error.message}\n`);
  process.exit(1);
}

const seen = new Set();

/** `type id status=… <key>=<id> …`: the event's status and every id of its payload, nothing else. */
function describe(id, event) {
  const data = event.data ?? {};
  const fields = Object.entries(data)
    .filter(([key, value]) => typeof value === 'string' && (key === 'status' || key.endsWith('_id') || key === 'refill_of'))
    .map(([key, value]) => `${key}=${value}`);
  return [event.type, id, ...fields].join(' ');
}

const server = http.createServer((req, res) => {
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      res.writeHead(413).end();
      req.destroy();
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    // The raw body, exactly as received: a re-serialized body would not verify.
    const body = Buffer.concat(chunks).toString('utf8');
    let event;
    try {
      event = webhook.verify(body, req.headers);
    } catch (error) {
      process.stderr.write(`refused ${req.method} ${req.url}: ${error.message}\n`);
      res.writeHead(400, { 'content-type': 'text/plain' }).end('invalid signature\n');
      return;
    }
    const id = req.headers['webhook-id'];
    const repeat = seen.has(id);
    seen.add(id);
    process.stdout.write(`${describe(id, event)}${repeat ? ' (repeat)' : ''}\n`);
    res.writeHead(204).end();
  });
});

// A port already taken (another receiver, or the server itself) is one line, not a stack trace.
server.on('error', (error) => {
  const where = `${HOST}:${PORT}`;
  process.stderr.write(
    error.code === 'EADDRINUSE'
      ? `EADDRINUSE: ${where} is already in use: stop what listens there, or choose another port with RECEIVER_PORT (and WEBHOOK_URL to match)\n`
      : `The receiver cannot listen on ${where}: ${error.message}\n`,
  );
  process.exit(1);
});

server.listen(PORT, HOST, () => {
  const { address, port } = server.address();
  const host = address.includes(':') ? `[${address}]` : address;
  process.stdout.write(`Webhook receiver listening on http://${host}:${port}/ (signatures checked with WEBHOOK_SECRET)\n`);
});

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => server.close(() => process.exit(0)));
}
