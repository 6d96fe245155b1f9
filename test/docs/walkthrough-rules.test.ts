import { describe, expect, it } from 'vitest';
import type { ShellBlock } from './walkthrough-blocks.js';
import { assignmentsOf, bannerOf, missingSample, samplesOf, variableProblems } from './walkthrough-rules.js';

/** The rules the walkthrough test holds the pages to (walkthrough-rules.ts), on blocks written here. */

function step(page: string, code: string): ShellBlock {
  return { where: `${page}:1`, page, marker: { run: true, expects: [] }, code };
}

describe('the variables a walkthrough step sets', () => {
  it('when a step assigns, exports or backgrounds, then each variable it keeps is found, and a command’s own variables are not', () => {
    const code = [
      `ORDERS_ORDER=$(curl -s "$BASE/x" -d '{`,
      `  "a": "b; NOT_ME=1"`,
      `}' | jq -r .id)`,
      'export ORDERS_ID=$(echo "$R" | jq -r .id)',
      'BASE=$BASE KEY=$KEY node examples/client.mjs',
      'node examples/receiver.mjs > "$LOG" 2>&1 & ORDERS_RECEIVER=$!',
      'for _ in $(seq 5); do grep -q x && break; ORDERS_TRIED=1; sleep 0.2; done',
      'curl -d a=b   # NOT_A_COMMENT=1',
      'ORDERS_A=1 ORDERS_B=2',
    ].join('\n');
    expect(assignmentsOf(code)).toEqual(['ORDERS_ORDER', 'ORDERS_ID', 'ORDERS_RECEIVER', 'ORDERS_TRIED', 'ORDERS_A', 'ORDERS_B']);
  });

  it('when two pages set one variable, then the rule names it and both pages', () => {
    expect(variableProblems([step('docs/orders.md', 'ORDERS_ORDER=1'), step('docs/webhooks.md', 'ORDERS_ORDER=2')])).toContain(
      'ORDERS_ORDER is set on docs/orders.md and docs/webhooks.md: only one page may set it',
    );
  });

  it('when a page sets a variable not named after it, then the rule names it; the README names its own freely', () => {
    expect(
      variableProblems([step('README.md', 'PATIENT=1'), step('docs/request-log.md', 'PATIENT=2\nREQUEST_LOG_ID=3')]),
    ).toEqual([
      "docs/request-log.md:1: PATIENT is set, but this page's variables are named REQUEST_LOG_…",
      'PATIENT is set on README.md and docs/request-log.md: only one page may set it',
    ]);
    expect(variableProblems([step('README.md', 'PATIENT=1'), step('docs/fhir.md', 'FHIR=(-H x)\nFHIR_TOKEN=1')])).toEqual([]);
  });
});

describe('the answers a walkthrough step shows', () => {
  it('when a step shows answers, then each `# →` comment and the lines indented under it are one answer', () => {
    const code = 'curl …\n# → {"a":1,\n#    "b":2}\n# not an answer\n#    nor this\n# → pending';
    expect(samplesOf(code)).toEqual(['{"a":1, "b":2}', 'pending']);
  });

  it('when the output holds every answer in order, spaces aside and … for anything, then none is missing', () => {
    const output = '{"id": "0193a8f2-4c1e", "status": "shipped", "n": 3}\npending\n';
    expect(missingSample(output, ['{"id":"0193…","status":"shipped",…}', 'pending'])).toBeUndefined();
  });

  it('when an answer shown differs from the output, or comes in another order, then it is the one named', () => {
    expect(missingSample('{"kinds":["hold","hold","answer"]}', ['{"kinds":["hold","answer"]}'])).toBe(
      '{"kinds":["hold","answer"]}',
    );
    expect(missingSample('pending\n{"a":1}', ['{"a":1}', 'pending'])).toBe('pending');
    expect(missingSample('HTTP/1.1 404 Not Found', ['HTTP/1.1 200 OK …'])).toBe('HTTP/1.1 200 OK …');
  });
});

describe('the start banner', () => {
  it('when two first starts differ only in port, paths and secrets, then their banners compare equal', () => {
    const printed = [
      '{"level":30,"msg":"Server listening"}',
      'Partner Fulfillment API (development) on http://127.0.0.1:41234',
      '  database: SQLite /tmp/docs-walkthrough-x/data/fulfillment.sqlite',
      '  operator token (kept in data/admin-token, the same at every start; set ADMIN_TOKEN to choose one): abc',
      '  clinic_id: 01a2',
      '  This key is shown only once: keep it.',
      'later lines',
    ].join('\n');
    const shown = [
      'Partner Fulfillment API (development) on http://127.0.0.1:3000',
      '  database: SQLite /path/to/clone/data/fulfillment.sqlite',
      '  operator token (kept in data/admin-token, the same at every start; set ADMIN_TOKEN to choose one): 8SCZ…',
      '  clinic_id: 8d27',
      '  This key is shown only once: keep it.',
    ].join('\n');
    expect(bannerOf(printed)).toEqual(bannerOf(shown));
    expect(bannerOf(printed)).toHaveLength(5);
    expect(bannerOf(shown.replace('  clinic_id', '  rate limits: counted in this process\n  clinic_id'))).not.toEqual(
      bannerOf(printed),
    );
  });
});
