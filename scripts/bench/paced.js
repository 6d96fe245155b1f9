// An open-loop load at a steady rate, for the webhook scenario. autocannon's `overallRate` is a
// per-connection budget renewed every second, so it sends each second's requests in one burst at
// the start of the second; a webhook backlog measured behind such bursts says more about the bursts
// than about the worker. Here request n is due at start + n / rate, sent as soon as it is due over
// at most `connections` keep-alive sockets, and its latency counts from when it was due (queueing
// behind busy sockets included), so a slow server cannot hide its delay.
import { Buffer } from 'node:buffer';
import { URL } from 'node:url';
import { clearInterval, setInterval } from 'node:timers';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { percentile } from './stats.js';

/**
 * Sends `rate` requests a second for `seconds`; `requestOf(n)` gives `{ method, path, body }`,
 * `onAnswer(status, body)` sees each answer. Resolves with autocannon-like figures.
 */
export function runPaced({ url, headers, connections, rate, seconds, requestOf, onAnswer }) {
  const { hostname, port } = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const total = Math.round(rate * seconds);
  const latencies = [];
  const figures = { non2xx: 0, errors: 0 };
  let sent = 0;
  let settled = 0;
  const start = performance.now();

  return new Promise((resolve) => {
    const finishIfDone = () => {
      if (sent < total || settled < sent) return;
      agent.destroy();
      const elapsed = (performance.now() - start) / 1000;
      resolve({
        requests: settled,
        requestsPerSecond: settled / Math.max(seconds, elapsed),
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        ...figures,
        timeouts: 0,
      });
    };
    const send = (n) => {
      const due = start + (n * 1000) / rate;
      const { method, path, body } = requestOf(n);
      const request = http.request({ agent, host: hostname, port, method, path, headers }, (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.once('end', () => {
          latencies.push(performance.now() - due);
          if (response.statusCode < 200 || response.statusCode > 299) figures.non2xx++;
          onAnswer(response.statusCode, Buffer.concat(chunks).toString('utf8'));
          settled++;
          finishIfDone();
        });
      });
      request.once('error', () => {
        figures.errors++;
        settled++;
        finishIfDone();
      });
      request.end(body);
    };
    const timer = setInterval(() => {
      const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate) + 1);
      while (sent < due) send(sent++);
      if (sent >= total) {
        clearInterval(timer);
        finishIfDone();
      }
    }, 1);
  });
}
