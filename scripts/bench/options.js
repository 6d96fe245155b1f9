// The command line of `npm run bench`: flags, their defaults, and --help.
import { parseArgs } from 'node:util';
import { SCENARIO_NAMES } from './scenarios.js';

/** `text` cut at spaces into lines of at most `width` characters, each indented by `indent`. */
function wrap(text, indent, width) {
  const lines = [];
  for (const word of text.split(' ')) {
    const last = lines.at(-1);
    if (last !== undefined && indent + last.length + 1 + word.length <= width) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines.map((line) => `${' '.repeat(indent)}${line}`).join('\n');
}

export const HELP = `Usage: npm run bench -- [flags]

Measures the server against the machine's own ceilings in one run (issue 12): a bare node:http
server, Fastify + better-sqlite3, Fastify + pg, and per route and database a composite ceiling doing
the route's work in plain code (issue 19), with each process's CPU time per request; and its webhook
delivery (issue 18): live, with the worker in the server and (PostgreSQL) in two worker processes,
and the drain of a backlog after a partner's recovery call. Prints a Markdown table and writes it, with a JSON file, to the output folder.

  --rounds N           rounds, each running every ceiling and scenario once (default 3)
  --duration S         measured seconds per scenario (default 10)
  --warmup S           warm-up seconds before each measurement (default 3)
  --connections N      autocannon connections (default 50)
  --webhook-rate N     orders per second in the webhook delivery scenarios (default 500)
  --drain-events N     events waiting when the drain scenario calls recover (default 3000)
  --drain-timeout S    longest wait, in seconds, for each phase of the drain: the first failed
                       attempts, then the drain itself (default 60; it also ends after 15 s without
                       progress and reports what did not arrive)
  --only A,B           only these scenarios, among:
${wrap(SCENARIO_NAMES.join(', '), 23, 100)}
                       (webhook-delivery-2-workers runs on PostgreSQL only)
  --sqlite-only        skip PostgreSQL and Redis even when they answer
  --out DIR            where bench.md and bench.json go (default bench-results/)
  --server PATH        the compiled server to run (default dist/main.js)
  --smoke              one round of 1 s, no warm-up, 4 connections, at most 100 req/s, a drain of 200
                       events: proves every part works
  --help               this text

BENCH_KEEP_TMP=1 keeps the run's temporary folder (the servers' logs) and names it at the end.
BENCH_SERVER_NODE_FLAGS adds Node flags to every server (the project's and the ceilings), e.g.
"--cpu-prof --cpu-prof-dir=prof" for a profile of each (written as it stops).
`;

const DEFAULTS = {
  rounds: 3,
  duration: 10,
  warmup: 3,
  connections: 50,
  webhookRate: 500,
  drainEvents: 3000,
  drainTimeout: 60,
  rateCap: null,
};
/** The smoke run also caps every load at 100 requests a second: it proves the parts work, quickly and lightly. */
const SMOKE = {
  rounds: 1,
  duration: 1,
  warmup: 0,
  connections: 4,
  webhookRate: 50,
  drainEvents: 200,
  drainTimeout: 30,
  rateCap: 100,
};

/** The parsed flags, or `{ help: true }`; throws with a readable message on a bad value. */
export function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      rounds: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      'webhook-rate': { type: 'string' },
      'drain-events': { type: 'string' },
      'drain-timeout': { type: 'string' },
      only: { type: 'string' },
      'sqlite-only': { type: 'boolean', default: false },
      out: { type: 'string', default: 'bench-results' },
      server: { type: 'string', default: 'dist/main.js' },
      smoke: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return { help: true };
  const base = values.smoke ? SMOKE : DEFAULTS;
  return {
    help: false,
    smoke: values.smoke,
    rounds: positive('rounds', values.rounds, base.rounds, true),
    // Whole seconds: autocannon ends a run on its one-second tick.
    duration: positive('duration', values.duration, base.duration, true),
    warmup: positive('warmup', values.warmup, base.warmup, true, true),
    connections: positive('connections', values.connections, base.connections, true),
    webhookRate: positive('webhook-rate', values['webhook-rate'], base.webhookRate, true),
    drainEvents: positive('drain-events', values['drain-events'], base.drainEvents, true),
    drainTimeout: positive('drain-timeout', values['drain-timeout'], base.drainTimeout, true),
    rateCap: base.rateCap,
    only: values.only ? values.only.split(',').map((name) => name.trim()) : null,
    sqliteOnly: values['sqlite-only'],
    out: values.out,
    server: values.server,
  };
}

function positive(name, text, fallback, whole = false, zeroAllowed = false) {
  if (text === undefined) return fallback;
  const value = Number(text);
  const ok = Number.isFinite(value) && (zeroAllowed ? value >= 0 : value > 0) && (!whole || Number.isInteger(value));
  if (!ok) throw new Error(`--${name} must be a ${whole ? 'whole ' : ''}number${zeroAllowed ? '' : ' above 0'}, got "${text}"`);
  return value;
}
