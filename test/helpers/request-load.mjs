/**
 * The client side of test/helpers/request-costs.ts, in a process of its own so that none of its
 * promises, sockets or timers are counted as the server's. Forked with an IPC channel; the first
 * message is the request, every later one `{ count }`: that many requests are sent one after the
 * other over one keep-alive connection, then `{ statuses, failure? }` is sent back. `{{seq}}` in the
 * path, a header value or the body becomes a token unique to each request (an Idempotency-Key).
 * Exits when the channel closes.
 */
import { Buffer } from 'node:buffer';
import http from 'node:http';
import process from 'node:process';
import { URL } from 'node:url';

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let request;
let seq = 0;

/** One request; resolves with its status and body once the whole answer has arrived. */
function send(origin) {
  const token = `${request.runId}-${++seq}`;
  const fill = (text) => text.replaceAll('{{seq}}', token);
  const body = request.body === undefined ? undefined : fill(request.body);
  const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, fill(value)]));
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(fill(request.path), origin), { method: request.method, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function run(count) {
  const statuses = {};
  let failure;
  for (let i = 0; i < count; i++) {
    const answer = await send(request.origin);
    statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    if (answer.status !== request.expectStatus && failure === undefined) failure = `${answer.status} ${answer.body}`;
  }
  return { statuses, ...(failure === undefined ? {} : { failure }) };
}

process.on('message', (message) => {
  if (request === undefined) {
    request = message;
    return;
  }
  run(message.count).then(
    (result) => process.send(result),
    (error) => process.send({ statuses: {}, failure: String(error?.stack ?? error) }),
  );
});
process.on('disconnect', () => {
  agent.destroy();
  process.exit(0);
});
