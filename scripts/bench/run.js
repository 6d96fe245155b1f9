// `npm run bench`: the benchmark of issue 12. Starts the project server (SQLite, and PostgreSQL
// with Redis when they answer) and the ceilings, provisions them through the HTTP APIs, runs the
// interleaved rounds, prints the Markdown report and writes it with the JSON to --out. Whatever it
// started is stopped and removed at the end, on failure and on Ctrl-C too.
// Run from the package folder (npm does). `--help` lists the flags.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { checkComposites } from './composites.js';
import { log } from './log.js';
import { describeMachine } from './machine.js';
import { HELP, parseOptions } from './options.js';
import { killAll } from './processes.js';
import { memoryMb } from './load-runner.js';
import { markdown, writeReport } from './report.js';
import { runRounds } from './rounds.js';
import { runsOn, SCENARIO_NAMES, SCENARIOS } from './scenarios.js';
import { setUp } from './setup.js';
import { summariseCeiling, summariseScenario } from './summary.js';

/** Undo steps, run last-registered first. */
const cleanups = [];
let cleaning = null;
function cleanUp() {
  cleaning ??= (async () => {
    for (const step of cleanups.reverse()) {
      try {
        await step();
      } catch (error) {
        log(`cleanup: ${error.message}`);
      }
    }
    await killAll();
  })();
  return cleaning;
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    log(`${signal}: stopping and cleaning up`);
    cleanUp().finally(() => process.exit(130));
  });
}

function chosenScenarios(options) {
  if (!options.only) return SCENARIOS;
  const unknown = options.only.filter((name) => !SCENARIO_NAMES.includes(name));
  if (unknown.length > 0) throw new Error(`unknown scenario ${unknown.join(', ')}; one of ${SCENARIO_NAMES.join(', ')}`);
  return SCENARIOS.filter((scenario) => options.only.includes(scenario.name));
}

async function bench(options) {
  const scenarios = chosenScenarios(options);
  if (!existsSync(options.server))
    throw new Error(`no compiled server at ${options.server}: run \`npm run bench\` (it builds first)`);
  const startedAt = new Date();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'fulfillment-bench-'));
  cleanups.push(() => (process.env.BENCH_KEEP_TMP ? log(`kept ${tmp}`) : rmSync(tmp, { recursive: true, force: true })));
  const onCleanup = (step) => cleanups.push(step);

  const { targets, ceilings, receiver, created } = await setUp({ options, tmp, onCleanup, scenarios });
  const compositeDifferences = await checkComposites({ targets, ceilings });
  const figures = await runRounds({ options, targets, ceilings, receiver, scenarios });
  // Every project process: the main server on each database (keyed by the database, as before), the
  // drain's server, and the server and workers of the workers-apart scenario.
  const serverPeakMb = Object.fromEntries(
    targets.flatMap((t) => t.processes.map(({ label, pid }) => [label, memoryMb(pid, 'VmHWM')])),
  );

  const rows = targets.flatMap(({ database }) =>
    scenarios
      .filter((scenario) => runsOn(scenario, database))
      .map((scenario) => {
        const ceilingKey = scenario.ceiling(database);
        const compositeKey = scenario.composite(database);
        return summariseScenario({
          scenarioName: scenario.name,
          database,
          rounds: figures.scenarios[`${database}/${scenario.name}`],
          ceilingRounds: ceilingKey ? figures.ceilings[ceilingKey] : null,
          compositeRounds: compositeKey ? figures.ceilings[compositeKey] : null,
          webhookRate: options.webhookRate,
        });
      }),
  );
  const report = {
    startedAt: startedAt.toISOString(),
    seconds: Math.round((Date.now() - startedAt.getTime()) / 1000),
    machine: describeMachine(),
    options,
    databases: targets.map((t) => t.database),
    serverPeakMb,
    rows,
    ceilings: Object.entries(figures.ceilings).map(([key, rounds]) => summariseCeiling(key, rounds)),
    compositeDifferences,
    created,
  };
  const text = `${markdown(report)}\nPeak RSS of each project process over the whole run (VmHWM): ${Object.entries(serverPeakMb)
    .map(([database, mb]) => `${database} ${mb === null ? '–' : `${Math.round(mb)} MB`}`)
    .join(', ')}. Run took ${report.seconds} s.\n`;
  process.stdout.write(text);
  const files = writeReport(options.out, report, text);
  log(`wrote ${files.markdown} and ${files.json}`);
}

let options;
try {
  options = parseOptions(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${error.message}\n\n${HELP}`);
  process.exit(2);
}
if (options.help) {
  process.stdout.write(HELP);
} else {
  try {
    await bench(options);
  } catch (error) {
    // After Ctrl-C the children are killed on purpose: their ends are no failure to report.
    if (!cleaning) log(`failed: ${error.stack ?? error}`);
    process.exitCode = 1;
  } finally {
    await cleanUp();
  }
}
