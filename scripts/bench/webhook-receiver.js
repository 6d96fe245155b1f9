// The webhook receiver: a node:http server of its own (a child process on the load core, never the
// server's). Each endpoint the benchmark registers gets a path of its own (/webhooks/<name>), with
// its state here:
// - `up` (the default): every delivery is answered 204 at once; when down, 503 without Retry-After
//   (an ordinary failed attempt, as a partner's outage looks), and the delivery is only counted as
//   refused (by its webhook-id);
// - each delivery answered 204 is noted: when it arrived, on the clock the load generator also uses
//   (order.created by its order id), whether its webhook-id came before (a duplicate), and whether
//   its Standard Webhooks signature verifies with the endpoint's secret (checked after the answer,
//   so that it costs the answer nothing).
// The benchmark drives it over IPC: `{ id, op: 'configure', path, secret?, up?, reset? }` and
// `{ id, op: 'take', path }`, each answered `{ id, … }`; `take` hands over the arrivals noted since
// the last take (and forgets them) with the endpoint's counters so far.
import { Buffer } from 'node:buffer';
import http from 'node:http';
import process from 'node:process';
import { Webhook } from 'standardwebhooks';

/** Endpoint path → its state. */
const endpoints = new Map();

function fresh() {
  return {
    up: true,
    verifier: null,
    /** [order id, ms] of the order.created delivered since the last take. */
    arrivals: [],
    /** webhook-ids answered 204, and those answered 503 (distinct). */
    delivered: new Set(),
    refused: new Set(),
    /** Deliveries answered 204, duplicates included. */
    deliveries: 0,
    duplicates: 0,
    badSignatures: 0,
    /** Deliveries answered 204 before a secret was known: not checked. */
    unverified: 0,
    firstAt: null,
    lastAt: null,
  };
}

const endpointOf = (path) => {
  let state = endpoints.get(path);
  if (!state) endpoints.set(path, (state = fresh()));
  return state;
};

function signatureValid(state, body, headers) {
  try {
    state.verifier.verify(
      body,
      {
        'webhook-id': headers['webhook-id'] ?? '',
        'webhook-timestamp': headers['webhook-timestamp'] ?? '',
        'webhook-signature': headers['webhook-signature'] ?? '',
      },
      { jsonParse: false },
    );
    return true;
  } catch {
    return false;
  }
}

function note(state, request, body, at) {
  const webhookId = request.headers['webhook-id'] ?? '';
  state.deliveries++;
  state.firstAt ??= at;
  state.lastAt = at;
  if (state.delivered.has(webhookId)) state.duplicates++;
  else state.delivered.add(webhookId);
  if (!state.verifier) state.unverified++;
  else if (!signatureValid(state, body, request.headers)) state.badSignatures++;
  try {
    const event = JSON.parse(body);
    if (event.type === 'order.created') state.arrivals.push([event.data.medication_request_id, at]);
  } catch {
    // Not an event of ours: counted, nothing more to note.
  }
}

const server = http.createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.once('end', () => {
    // The moment the whole delivery is here, on the clock the load generator also uses.
    const at = Date.now();
    const state = endpointOf(request.url);
    if (!state.up) {
      response.writeHead(503, { 'content-type': 'text/plain' }).end('down for the benchmark');
      state.refused.add(request.headers['webhook-id'] ?? '');
      return;
    }
    response.writeHead(204).end();
    note(state, request, Buffer.concat(chunks).toString('utf8'), at);
  });
});

function handle(message) {
  const state = endpointOf(message.path);
  if (message.op === 'configure') {
    if (message.reset) {
      const { verifier, up } = state;
      Object.assign(state, fresh(), { verifier, up });
    }
    if (message.secret !== undefined) state.verifier = message.secret ? new Webhook(message.secret) : null;
    if (message.up !== undefined) state.up = message.up;
    return {};
  }
  if (message.op === 'take') {
    const { arrivals } = state;
    state.arrivals = [];
    return {
      arrivals,
      deliveries: state.deliveries,
      distinct: state.delivered.size,
      refused: state.refused.size,
      duplicates: state.duplicates,
      badSignatures: state.badSignatures,
      unverified: state.unverified,
      firstAt: state.firstAt,
      lastAt: state.lastAt,
    };
  }
  throw new Error(`unknown receiver operation ${message.op}`);
}

process.on('message', (message) => {
  try {
    process.send({ id: message.id, ...handle(message) });
  } catch (error) {
    process.send({ id: message.id, error: String(error?.message ?? error) });
  }
});
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on ${server.address().port}\n`));
