// An open-loop load at a steady rate, for the webhook scenario. autocannon's `overallRate` is a
// per-connection budget renewed every second, so it sends each second's requests in one burst at
// the start of the second; a webhook backlog measured behind such bursts says more about the bursts
// than about the worker. Here request n is due at start + n / rate, sent as soon as it is due over
// at most `connections` keep-alive sockets, and its latency counts from when it was due (queueing
// behind busy sockets included), so a slow server cannot hide its delay.
import { Buffer } from 'node:buffer';
import { URL } from 'node:url';
import { clearInterval, clearTimeout, setInterval, setTimeout } from 'node:timers';
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
  const figures = { non2xx: 0, errors: 0, timeouts: 0 };
  let sent = 0;
  let settled = 0;
  let finished = false;
  let giveUpTimer = null;
  const start = performance.now();

  return new Promise((resolve) => {
    const finish = () => {
      finished = true;
      clearTimeout(giveUpTimer);
      agent.destroy();
      const elapsed = (performance.now() - start) / 1000;
      resolve({
        requests: settled,
        requestsPerSecond: settled / Math.max(seconds, elapsed),
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        ...figures,
      });
    };
    const finishIfDone = () => {
      if (!finished && sent === total && settled === sent) finish();
    };
    // A server slower than the rate leaves a queue behind: wait for it as long as the interval
    // lasted (at least 5 s), then count what is still unanswered as timeouts, so that the run ends.
    const giveUp = () => {
      if (finished) return;
      figures.timeouts = sent - settled;
      finish();
    };
    const send = (n) => {
      const due = start + (n * 1000) / rate;
      const { method, path, body } = requestOf(n);
      // Exactly once per request, whichever way it ends: an answer, a socket error, or a response
      // cut off half-way (which emits no 'end' and no request 'error', only 'close').
      let over = false;
      const settle = (outcome) => {
        if (over || finished) return;
        over = true;
        outcome();
        settled++;
        finishIfDone();
      };
      const request = http.request({ agent, host: hostname, port, method, path, headers }, (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.once('end', () =>
          settle(() => {
            latencies.push(performance.now() - due);
            if (response.statusCode < 200 || response.statusCode > 299) figures.non2xx++;
            onAnswer(response.statusCode, Buffer.concat(chunks).toString('utf8'));
          }),
        );
        response.once('close', () => settle(() => figures.errors++));
      });
      request.once('error', () => settle(() => figures.errors++));
      request.once('close', () => settle(() => figures.errors++));
      request.end(body);
    };
    const timer = setInterval(() => {
      const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate) + 1);
      while (sent < due) send(sent++);
      if (sent >= total) {
        clearInterval(timer);
        giveUpTimer = setTimeout(giveUp, Math.max(5, seconds) * 1000);
        finishIfDone();
      }
    }, 1);
  });
}
