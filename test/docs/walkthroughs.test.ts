import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killServerProcesses, sandboxCredentials, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import {
  FILL_INS,
  fillInOf,
  listedPages,
  readPage,
  shellBlocks,
  walkthroughPages,
  type ShellBlock,
} from './walkthrough-blocks.js';
import { bannerOf, missingSample, samplesOf, variableProblems } from './walkthrough-rules.js';

/**
 * Issue 28: every walkthrough of the README and docs/ runs as written, in order, in one bash shell
 * (`set -euo pipefail`), against the built server, so that the pages cannot drift from the server
 * again. Issue 38: as a newcomer walks them. The server starts as the README's Quick start starts
 * it, in a clone of its own (the repository's files, linked, beside a fresh data/), on ports chosen
 * here and given to the shell as the README's "another port" line would. Each curl that answers
 * other than 2xx fails the run, unless its step's marker expects that status; each answer a step
 * shows (`# → …`) must be in what it printed (walkthrough-blocks.ts and walkthrough-rules.ts).
 */

const ROOT = path.resolve(import.meta.dirname, '../..');

const blocks = walkthroughPages().flatMap((page) => shellBlocks(page));

/** The shell's process group while it runs: killed after the suite too, should a step hang past the timeout. */
let shellGroup: number | undefined;

function killShellGroup(): void {
  if (shellGroup === undefined) return;
  try {
    process.kill(-shellGroup, 'SIGTERM');
  } catch {
    // The group is gone: nothing was left running.
  }
  shellGroup = undefined;
}

describe('the walkthroughs of the README and docs/', () => {
  it('when a page of docs/ has steps to run, then the README lists it among the walkthroughs, in their order', () => {
    // Steps are read page by page in the walked order: the pages with steps, once each, are the list.
    expect([...new Set(steps().map((block) => block.page))]).toEqual(['README.md', ...listedPages()]);
  });

  it('when a shell block is shown, then it is marked as a step to run or says why it is not run', () => {
    expect(blocks.filter((block) => block.marker === null).map((block) => block.where)).toEqual([]);
  });

  it('when a step leaves a value to fill in, then it is one the server prints (the others come from answers or files)', () => {
    const unfillable = steps().flatMap((block) =>
      block.code.split('\n').flatMap((line) => {
        const name = fillInOf(line);
        return name === undefined || (FILL_INS as readonly string[]).includes(name) ? [] : [`${block.where}: ${line.trim()}`];
      }),
    );
    expect(unfillable).toEqual([]);
  });

  it('when a page sets a shell variable, then it is named after the page, and no other page sets it', () => {
    expect(variableProblems(steps())).toEqual([]);
  });
});

describe('the walkthroughs, run in one shell as a newcomer runs them', { timeout: 240_000 }, () => {
  let clone: string;
  let server: ServerProcess;
  let env: Record<string, string>;

  beforeAll(async () => {
    clone = cloneOfTheRepository();
    // `npm start` in a fresh clone: no ADMIN_TOKEN, no data key, no DATABASE_URL: the server makes
    // ./data (its database, its operator token in data/admin-token, its development data key).
    // The first suite after a change of src/ builds the server (test/helpers/server-process.ts).
    server = await startServerProcess({ ADMIN_TOKEN: '', DATA_ENCRYPTION_KEY: '', PORT: '0' }, { cwd: clone });
    const { clinicId, apiKey } = sandboxCredentials(server);
    const port = new URL(server.baseUrl).port;
    env = {
      PORT: port,
      RECEIVER_PORT: String(await freePort()),
      WALK_KEY: apiKey,
      WALK_CLINIC: clinicId,
      WALK_DIR: clone,
      // The steps' mktemp files (a receiver's log, a session's cookies) go with the clone.
      TMPDIR: path.join(clone, '.walkthrough'),
    };
  }, 180_000);

  afterAll(async () => {
    killShellGroup();
    await killServerProcesses();
    if (clone) rmSync(clone, { recursive: true, force: true });
  });

  it('when the server starts for the first time, then it prints the banner the README shows', () => {
    expect(bannerOf(server.stdout())).toEqual(bannerOf(readPage('README.md')));
    expect(bannerOf(server.stdout()).length).toBeGreaterThan(5);
  });

  it('when every step runs in order, then each succeeds, every curl answers 2xx or the status its step expects, and each prints the answers it shows', async () => {
    const runnable = steps();
    const run = await runShell(script(runnable), env);
    const outputs = runnable.map((_, index) => stepOutput(index));
    // The last step that began: the one that failed, when one did.
    const last = outputs.filter((output) => output !== undefined).length - 1;
    const failed = `--- the output of ${runnable[last]?.where ?? 'no step'} ---\n${(outputs[last] ?? '').slice(-4000)}`;
    expect(run.code, `${run.stderr.slice(-4000)}\n${failed}`).toBe(0);
    // Every step ran, up to the last one (each announces itself on stderr before it runs).
    expect(run.stderr).toContain(`::: ${runnable.at(-1)?.where ?? 'no step'}\n`);
    expect(runnable.length).toBeGreaterThan(40);
    const missing = runnable.flatMap((block, index) => {
      const sample = missingSample(outputs[index] ?? '', samplesOf(block.code));
      return sample === undefined ? [] : [`${block.where} shows ${sample}\n  but printed: ${outputs[index] ?? ''}`];
    });
    expect(missing.join('\n')).toBe('');
  });

  function stepOutput(index: number): string | undefined {
    try {
      return readFileSync(path.join(clone, '.walkthrough', `step-${index}.out`), 'utf8');
    } catch {
      return undefined;
    }
  }
});

function steps(): ShellBlock[] {
  return blocks.filter((block) => block.marker?.run === true);
}

/**
 * A folder that looks like a fresh clone: every entry of the repository linked, but no data/, so
 * that the server makes its own and `cat data/admin-token` reads it (a developer's own ./data, and
 * its database, are never touched).
 */
function cloneOfTheRepository(): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'docs-walkthrough-'));
  for (const entry of readdirSync(ROOT)) if (entry !== 'data') symlinkSync(path.join(ROOT, entry), path.join(folder, entry));
  mkdirSync(path.join(folder, '.walkthrough'));
  return folder;
}

/** A port nothing listens on now, for the webhook receiver the steps start. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * One bash script: a `curl` that records each answer's status (on stderr, through -w) and fails on a
 * status its step does not expect, then every step in order, its fill-ins given the server's values,
 * its output kept in a file of its own to be compared with the answers it shows.
 */
function script(runnable: ShellBlock[]): string {
  const prelude = `set -euo pipefail
cd "$WALK_DIR"
command -v jq >/dev/null || { echo 'walkthrough: the walkthroughs pick ids out of answers with jq: install it (apt-get install jq)' >&2; exit 1; }
WALK_STATUSES="$WALK_DIR/.walkthrough/statuses"
curl() {
  local failed=0
  command curl -w '%{stderr}%{http_code}\\n' "$@" 2>>"$WALK_STATUSES" || failed=$?
  if [ "$failed" -ne 0 ]; then echo "walkthrough $WALK_STEP: curl $* failed ($failed)" >&2; return "$failed"; fi
  local status; status=$(tail -n 1 "$WALK_STATUSES")
  case " $WALK_EXPECTS " in *" $status "*) return 0 ;; esac
  case "$status" in 2??) return 0 ;; esac
  echo "walkthrough $WALK_STEP: curl $* answered $status" >&2
  return 1
}
`;
  const body = runnable.map((block, index) => {
    const expects = block.marker?.run === true ? block.marker.expects.join(' ') : '';
    const code = block.code
      .split('\n')
      .map((line) => {
        const name = fillInOf(line);
        return name !== undefined && (FILL_INS as readonly string[]).includes(name) ? `${name}="$WALK_${name}"` : line;
      })
      .join('\n');
    return `\n# ${block.where}\nWALK_STEP=${JSON.stringify(block.where)} WALK_EXPECTS=${JSON.stringify(expects)}\necho "::: $WALK_STEP" >&2\nexec >"$WALK_DIR/.walkthrough/step-${index}.out"\n${code}\n`;
  });
  return prelude + body.join('');
}

/** Runs the script in a process group of its own, killed afterwards with whatever a step left running (a receiver). */
async function runShell(
  text: string,
  extra: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    // The shell starts as a new terminal would: the ports come from the test (as the README's
    // "another port" line gives them), the rest from the README's steps.
    if (value !== undefined && !OWN_VARIABLES.test(name)) environment[name] = value;
  }
  const child = spawn('bash', ['-c', text], { cwd: extra.WALK_DIR, env: { ...environment, ...extra }, detached: true });
  shellGroup = child.pid;
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const closed = new Promise((resolve) => child.once('close', resolve));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  // A receiver a failed step left running holds the shell's stderr open: end it, then read to the end.
  killShellGroup();
  await closed;
  return { code, stdout, stderr };
}

/** The variables the README's steps set, or the server reads: none comes from the test runner's own environment. */
const OWN_VARIABLES =
  /^(PORT|BASE|KEY|CLINIC|H|ADMIN|ADMIN_TOKEN|PRACTITIONER|PATIENT|RECEIVER_PORT|WEBHOOK_URL|WEBHOOK_SECRET|HOST|DATABASE_URL|DATA_ENCRYPTION_KEY)$/;
