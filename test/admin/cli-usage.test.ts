import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliDatabase } from '../helpers/admin-cli.js';
import { OPERATOR_TOKEN } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/**
 * The operator command line's answers to bad usage, in process (`runAdminCommandLine`, what the
 * built binary runs; cli-binary.test.ts checks the binary's exit status): exit 2, our words and the
 * command's short usage on stderr, and nothing changed.
 */
describe.each(DIALECTS)('operator command line usage (%s)', (dialect) => {
  let database: CliDatabase;

  beforeAll(async () => {
    database = await CliDatabase.open(dialect);
  });
  afterAll(() => database.close());

  const cli = (args: string[], env: Record<string, string> = {}, input?: string) => database.cli(args, env, input);

  it.each([
    [['help'], 0, 'Usage: npm run admin'],
    [['--help'], 0, 'Usage: npm run admin'],
    [[], 2, 'Error: Give a command'],
    [['launch-rockets'], 2, 'Unknown command "launch-rockets"'],
    [['create-clinic'], 2, 'create-clinic needs --name'],
    [['create-clinic', '--name', '  '], 2, '--name must not be blank'],
    [['create-clinic', '--name', 'North\u202eside'], 2, '--name must not contain bidirectional control characters'],
    [['create-clinic', '--name', '1234'], 2, '--name must contain at least one letter'],
    [['add-carrier', '--name', 'Fast\u200b'], 2, '--name must not contain zero-width characters'],
    [['issue-key', '--clinic', 'abc'], 2, '--clinic must be a UUID'],
    [
      ['issue-key', '--clinic', '00000000-0000-4000-8000-000000000000', '--environment', 'staging'],
      2,
      '--environment must be development or production',
    ],
    [
      ['set-free-shipping', '--clinic', '00000000-0000-4000-8000-000000000000', '--enabled', 'yes'],
      2,
      '--enabled must be true or false',
    ],
    [
      ['add-service', '--carrier', 'ups', '--name', 'X', '--price', '1.234'],
      2,
      '--price must be US dollars with at most two decimals',
    ],
    [
      ['add-service', '--carrier', 'ups', '--name', 'X', '--price', '1', '--state-price', 'CA:1'],
      2,
      '--state-price must look like CA=12.50',
    ],
    [['list-clinics', '--name', 'x'], 2, 'list-clinics does not take --name'],
    [['list-clinics', '--bogus'], 2, 'Error: Unknown flag --bogus\nUsage: npm run admin -- list-clinics\n'],
    [['launch-rockets', '--now'], 2, 'Unknown command "launch-rockets"'],
    // A sign-off is the pharmacist's own (issue 39): the command line says so rather than "unknown".
    [
      ['sign-off', '--order', '00000000-0000-4000-8000-000000000000'],
      2,
      'The command line cannot sign off: a sign-off is recorded only by the pharmacist signed in to the console as themselves',
    ],
    [
      ['add-medication', '--clinic'],
      2,
      'Error: --clinic needs a value\nUsage: npm run admin -- add-medication --clinic <clinic id>',
    ],
    [['add-medication', '--name', '--clinic', 'x'], 2, '--name needs a value'],
    [['create-clinic', '--name', 'A', '--free-shipping=yes'], 2, '--free-shipping takes no value'],
    [
      ['remove-medication', '--clinic', '00000000-0000-4000-8000-000000000000', '--medication', 'x'],
      2,
      '--medication must be a UUID',
    ],
    [
      ['move-order', '--order', '00000000-0000-4000-8000-000000000000', '--status', 'pending'],
      2,
      '--status must be processing, shipped, delivered or cancelled, got "pending"',
    ],
    [
      ['update-service', '--carrier', 'ups', '--service', 'ups_ground', '--clear-state-prices', '--state-price', 'CA=1'],
      2,
      'not both',
    ],
    [['retry-delivery'], 2, 'retry-delivery needs --delivery'],
    [['roll-key', '--key-id', '00000000-0000-4000-8000-000000000000'], 2, 'roll-key needs --expires-in'],
    [
      ['roll-key', '--key-id', '00000000-0000-4000-8000-000000000000', '--expires-in', '8d'],
      2,
      '--expires-in must be at most 7d (the old key works at most 7 days more), got "8d"',
    ],
    [
      ['roll-key', '--key-id', '00000000-0000-4000-8000-000000000000', '--expires-in', '1w'],
      2,
      '--expires-in must be a duration such as 30m, 1h or 7d, got "1w"',
    ],
    [
      ['roll-key', '--key-id', '00000000-0000-4000-8000-000000000000', '--expires-in', '1.5h'],
      2,
      '--expires-in must be a duration such as 30m, 1h or 7d, got "1.5h"',
    ],
    [
      ['issue-key', '--clinic', '00000000-0000-4000-8000-000000000000', '--scopes', 'orders:write,orders:delete'],
      2,
      '--scopes: unknown scope "orders:delete"; known: practitioners:read',
    ],
    [
      ['issue-key', '--clinic', '00000000-0000-4000-8000-000000000000', '--scopes', 'orders:write,'],
      2,
      '--scopes must list scopes separated by commas',
    ],
    [
      ['issue-key', '--clinic', '00000000-0000-4000-8000-000000000000', '--expires-in', '0'],
      2,
      '--expires-in must be at least 1s, got "0"',
    ],
    [
      ['revoke-key', '--key-id', '00000000-0000-4000-8000-000000000000', '--expires-in', '1h'],
      2,
      'revoke-key does not take --expires-in',
    ],
    [['list-clinics', 'extra'], 2, 'Unexpected argument "extra"'],
  ])('when the arguments are %j, then exit %i saying %j', async (args, code, text) => {
    const result = await cli(args);
    expect(result.code).toBe(code);
    expect(code === 0 ? result.stdout : result.stderr).toContain(text);
    // Bad usage is answered in our words and a short usage, not Node's parser messages or the whole help.
    if (code !== 0) {
      expect(result.stderr).toContain('Usage: npm run admin -- ');
      expect(result.stderr).not.toContain('Commands:');
      expect(result.stderr).not.toContain('positional argument');
    }
  });

  it.each([
    ['a password under 12 characters', ['--role', 'admin', '--password-stdin'], 'short\n', /at least 12 characters/],
    [
      'an unknown role',
      ['--role', 'owner', '--password-stdin'],
      'long enough passphrase\n',
      /--role must be admin, pharmacist or technician/,
    ],
    ['no --password-stdin and no terminal', ['--role', 'admin'], 'long enough passphrase\n', /--password-stdin/],
  ])('when create-staff gets %s, then exit 2 and no account', async (_what, flags, input, message) => {
    const res = await cli(['create-staff', '--email', 'nobody@pharmacy.example', '--name', 'Nobody', ...flags], {}, input);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(message);
    await database.withApp(async (app) => {
      const list = await app.inject({
        method: 'GET',
        url: '/api/admin/staff',
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
      });
      expect(JSON.stringify(list.json())).not.toContain('nobody@pharmacy.example');
    });
  });

  it('when create-staff gets --role technician (issue 39), then the account is a technician', async () => {
    const res = await cli(
      ['create-staff', '--email', 'tech@pharmacy.example', '--name', 'Terry Tech', '--role', 'technician', '--password-stdin'],
      {},
      'technician passphrase 2026\n',
    );
    expect(res.code, res.stderr).toBe(0);
    await database.withApp(async (app) => {
      const list = await app.inject({
        method: 'GET',
        url: '/api/admin/staff',
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
      });
      const staff = list.json<{ data: { staff: { email: string; role: string }[] } }>().data.staff;
      expect(staff.find((member) => member.email === 'tech@pharmacy.example')?.role).toBe('technician');
    });
  });
});
