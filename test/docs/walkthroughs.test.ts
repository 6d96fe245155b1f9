import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killServerProcesses, sandboxCredentials, startServerProcess } from '../helpers/server-process.js';
import { FILL_INS, WALKTHROUGH_PAGES, fillInOf, shellBlocks, type ShellBlock } from './walkthrough-blocks.js';

/**
 * Issue 28: every walkthrough of the README and docs/ runs as written, in order, in one bash shell
 * (`set -euo pipefail`), against the built server on port 3100 with a fresh database, so that the
 * pages cannot drift from the server again. Each curl that answers other than 2xx fails the run,
 * unless its step's marker expects that status (walkthrough-blocks.ts says how blocks are marked).
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const PORT = '3100';

const blocks = WALKTHROUGH_PAGES.flatMap((page) => shellBlocks(page));

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
  it('when a page of docs/ has shell blocks, then it is read in a known order', () => {
    const pages = readdirSync(path.join(ROOT, 'docs')).filter((file) => file.endsWith('.md'));
    expect(pages.map((page) => `docs/${page}`).filter((page) => !WALKTHROUGH_PAGES.includes(page))).toEqual([]);
  });

  it('when a shell block is shown, then it is marked as a step to run or says why it is not run', () => {
    expect(blocks.filter((block) => block.marker === null).map((block) => block.where)).toEqual([]);
  });

  it('when a step leaves a value to fill in, then it is one the server prints (the others come from answers)', () => {
    const unfillable = steps().flatMap((block) =>
      block.code.split('\n').flatMap((line) => {
        const name = fillInOf(line);
        return name === undefined || (FILL_INS as readonly string[]).includes(name) ? [] : [`${block.where}: ${line.trim()}`];
      }),
    );
    expect(unfillable).toEqual([]);
  });
});

describe('the walkthroughs, run in one shell on port 3100', { timeout: 120_000 }, () => {
  let folder: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    folder = mkdtempSync(path.join(tmpdir(), 'docs-walkthrough-'));
    const adminToken = randomBytes(24).toString('base64url');
    const dataKey = randomBytes(32).toString('base64');
    // A fresh database of its own; the operator token and data key set, so that nothing is written
    // into the clone's ./data (a developer's own server keeps its database).
    const shared = { DATABASE_URL: path.join(folder, 'fulfillment.sqlite'), DATA_ENCRYPTION_KEY: dataKey };
    const server = await startServerProcess({ ...shared, PORT, ADMIN_TOKEN: adminToken });
    const { clinicId, apiKey } = sandboxCredentials(server);
    env = { ...shared, WALK_KEY: apiKey, WALK_CLINIC: clinicId, WALK_ADMIN_TOKEN: adminToken, WALK_DIR: folder };
    // The first suite after a change of src/ builds the server (test/helpers/server-process.ts).
  }, 180_000);

  afterAll(async () => {
    killShellGroup();
    await killServerProcesses();
    rmSync(folder, { recursive: true, force: true });
  });

  it('when every step runs in order, then each succeeds and every curl answers 2xx or the status its step expects', async () => {
    const runnable = steps();
    const run = await runShell(script(runnable), env);
    expect(run.code, `${run.stderr.slice(-4000)}\n--- stdout ---\n${run.stdout.slice(-4000)}`).toBe(0);
    // Every step ran, up to the last one (each announces itself on stderr before it runs).
    expect(run.stderr).toContain(`::: ${runnable.at(-1)?.where ?? 'no step'}\n`);
    expect(runnable.length).toBeGreaterThan(40);
  });
});

function steps(): ShellBlock[] {
  return blocks.filter((block) => block.marker?.run === true);
}

/**
 * One bash script: a `curl` that records each answer's status (on stderr, through -w) and fails on a
 * status its step does not expect, then every step in order, its fill-ins given the server's values.
 */
function script(runnable: ShellBlock[]): string {
  const prelude = `set -euo pipefail
cd ${JSON.stringify(ROOT)}
command -v jq >/dev/null || { echo 'walkthrough: the walkthroughs pick ids out of answers with jq: install it (apt-get install jq)' >&2; exit 1; }
WALK_STATUSES="$WALK_DIR/statuses"
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
  const body = runnable.map((block) => {
    const expects = block.marker?.run === true ? block.marker.expects.join(' ') : '';
    const code = block.code
      .split('\n')
      .map((line) => {
        const name = fillInOf(line);
        return name !== undefined && (FILL_INS as readonly string[]).includes(name) ? `${name}="$WALK_${name}"` : line;
      })
      .join('\n');
    return `\n# ${block.where}\nWALK_STEP=${JSON.stringify(block.where)} WALK_EXPECTS=${JSON.stringify(expects)}\necho "::: $WALK_STEP" >&2\n${code}\n`;
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
    // The shell starts as a new terminal would: the port and addresses come from the README's steps.
    if (value !== undefined && !['PORT', 'BASE', 'RECEIVER_PORT', 'WEBHOOK_URL', 'HOST'].includes(name))
      environment[name] = value;
  }
  const child = spawn('bash', ['-c', text], { cwd: ROOT, env: { ...environment, ...extra }, detached: true });
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
