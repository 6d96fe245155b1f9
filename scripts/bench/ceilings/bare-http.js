// Ceiling: a bare node:http server answering every request with a small JSON body, about the size
// of GET /api/external/carriers' answer (BENCH_BODY_BYTES, measured by the benchmark at start).
import { Buffer } from 'node:buffer';
import http from 'node:http';
import process from 'node:process';

const size = Number(process.env.BENCH_BODY_BYTES ?? 600);
const filler = 'x'.repeat(Math.max(0, size - 60));
const body = JSON.stringify({ success: true, data: { filler }, message: 'Carriers retrieved successfully' });

const server = http.createServer((request, response) => {
  // Drain any body, then answer: keep-alive stays usable.
  request.resume();
  request.once('end', () => {
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening on ${server.address().port}\n`);
});
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
