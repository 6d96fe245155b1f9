// The command line of `npm run bench`: flags, their defaults, and --help.
import { parseArgs } from 'node:util';

export const HELP = `Usage: npm run bench -- [flags]

Measures the server against the machine's own ceilings in one run (issue 12): a bare node:http
server, Fastify + better-sqlite3, Fastify + pg. Prints a Markdown table and writes it, with a JSON
file, to the output folder.

  --rounds N           rounds, each running every ceiling and scenario once (default 3)
  --duration S         measured seconds per scenario (default 10)
  --warmup S           warm-up seconds before each measurement (default 3)
  --connections N      autocannon connections (default 50)
  --webhook-rate N     orders per second in the webhook delivery scenario (default 500)
  --only A,B           only these scenarios (names as in the table: get-carriers, post-order, …)
  --sqlite-only        skip PostgreSQL and Redis even when they answer
  --out DIR            where bench.md and bench.json go (default bench-results/)
  --server PATH        the compiled server to run (default dist/main.js)
  --smoke              one round of 1 s, no warm-up, 4 connections, at most 100 req/s: proves every part works
  --help               this text

BENCH_KEEP_TMP=1 keeps the run's temporary folder (the servers' logs) and names it at the end.
`;

const DEFAULTS = { rounds: 3, duration: 10, warmup: 3, connections: 50, webhookRate: 500, rateCap: null };
/** The smoke run also caps every load at 100 requests a second: it proves the parts work, quickly and lightly. */
const SMOKE = { rounds: 1, duration: 1, warmup: 0, connections: 4, webhookRate: 50, rateCap: 100 };

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
