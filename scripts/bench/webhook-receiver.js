// The webhook receiver: a node:http server of its own (a child process on the load core, never the
// server's), answering every delivery 204 at once and noting when each order.created arrived, by
// its order id. The benchmark takes the arrivals over IPC (`take`), which also forgets them.
import { Buffer } from 'node:buffer';
import http from 'node:http';
import process from 'node:process';

let arrivals = [];

const server = http.createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.once('end', () => {
    // The moment the whole delivery is here, on the clock the load generator also uses.
    const at = Date.now();
    response.writeHead(204).end();
    try {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (event.type === 'order.created') arrivals.push([event.data.medication_request_id, at]);
    } catch {
      // Not an event of ours: nothing to note.
    }
  });
});

process.on('message', (message) => {
  if (message === 'take') {
    process.send({ arrivals });
    arrivals = [];
  }
});
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on ${server.address().port}\n`));
