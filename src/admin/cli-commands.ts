import { parseArgs } from 'node:util';
import { createClinic, issueApiKey, listApiKeys, listClinics, revokeApiKey, setFreeShipping } from '../clinics/clinic.service.js';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { addMedication } from '../medications/medication.service.js';
import { addService, createCarrier } from '../shipping/catalogue.service.js';
import { createStaffMember } from '../staff/staff.service.js';
import { STAFF_ROLES, type StaffRole } from '../staff/staff.tables.js';
import { rotateEncryptionKey, type RotationResult } from '../webhooks/secret-encryption.service.js';

/*
 * The operator command line's commands: parsing (pure, so that bad usage is refused before any
 * database is opened) and execution (the same service functions as the /api/admin routes).
 */

/** Bad usage: the CLI prints the message and the help, and exits with status 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

type Flag =
  | 'name'
  | 'free-shipping'
  | 'clinic'
  | 'environment'
  | 'key-id'
  | 'strength'
  | 'dosage-form'
  | 'enabled'
  | 'carrier'
  | 'id'
  | 'price'
  | 'state-price'
  | 'email'
  | 'role'
  | 'password-stdin';

interface CommandSpec {
  summary: string;
  required: Flag[];
  optional: Flag[];
}

export const COMMANDS = {
  'create-clinic': { summary: '--name <name> [--free-shipping]', required: ['name'], optional: ['free-shipping'] },
  'issue-key': {
    summary: '--clinic <clinic id> [--environment development|production]',
    required: ['clinic'],
    optional: ['environment'],
  },
  'revoke-key': { summary: '--key-id <api key id>', required: ['key-id'], optional: [] },
  'list-clinics': { summary: '', required: [], optional: [] },
  'list-keys': { summary: '--clinic <clinic id>', required: ['clinic'], optional: [] },
  'add-medication': {
    summary: '--clinic <clinic id> --name <name> [--strength <s>] [--dosage-form <f>]',
    required: ['clinic', 'name'],
    optional: ['strength', 'dosage-form'],
  },
  'set-free-shipping': { summary: '--clinic <clinic id> --enabled true|false', required: ['clinic', 'enabled'], optional: [] },
  'add-carrier': { summary: '--name <name> [--id <carrier id>]', required: ['name'], optional: ['id'] },
  'add-service': {
    summary: '--carrier <carrier id> --name <name> --price <dollars> [--id <service id>] [--state-price CA=12.50 ...]',
    required: ['carrier', 'name', 'price'],
    optional: ['id', 'state-price'],
  },
  'rotate-encryption-key': { summary: '', required: [], optional: [] },
  'create-staff': {
    summary: '--email <email> --name <name> --role admin|pharmacist [--password-stdin]',
    required: ['email', 'name', 'role'],
    optional: ['password-stdin'],
  },
  help: { summary: '', required: [], optional: [] },
} satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMANDS;

export interface ParsedCommand {
  command: CommandName;
  flags: Partial<Record<Exclude<Flag, 'free-shipping' | 'state-price' | 'password-stdin'>, string>> & {
    'free-shipping'?: boolean;
    'password-stdin'?: boolean;
    'state-price'?: string[];
  };
}

export const HELP = [
  'Operator command line of the Partner Fulfillment API (no running server needed).',
  'Usage: npm run admin -- <command> [--flags]',
  '',
  'Commands:',
  ...Object.entries(COMMANDS).map(([name, spec]) => `  ${name} ${spec.summary}`.trimEnd()),
  '',
  'The database is the one DATABASE_URL selects (default ./data/fulfillment.sqlite); keys are issued for',
  'FULFILLMENT_ENV (default development) unless --environment says otherwise. Results are printed as JSON.',
  'rotate-encryption-key re-encrypts every webhook secret under DATA_ENCRYPTION_KEY (see docs/webhooks.md).',
  'create-staff asks for the password at the terminal, or reads it from standard input with --password-stdin',
  '(e.g. for the first admin of a deployment: printf %s "$PASSWORD" | npm run admin -- create-staff ... --password-stdin).',
].join('\n');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DOLLARS = /^\d+(\.\d{1,2})?$/;
/** What the API's `format: email` accepts, near enough for a command line: something@domain.tld. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Parses `<command> [--flags]`; throws UsageError naming what is wrong. */
export function parseCommand(argv: string[]): ParsedCommand {
  let parsed: ReturnType<typeof parseFlags>;
  try {
    parsed = parseFlags(argv);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const [name, ...extra] = parsed.positionals;
  if (parsed.values.help) return { command: 'help', flags: {} };
  if (name === undefined) throw new UsageError('Give a command');
  if (!Object.hasOwn(COMMANDS, name)) throw new UsageError(`Unknown command "${name}"`);
  if (extra.length > 0) throw new UsageError(`Unexpected argument "${extra[0] ?? ''}": values are given with --flags`);
  const command = name as CommandName;
  const spec: CommandSpec = COMMANDS[command];
  const flags = parsed.values as ParsedCommand['flags'];
  for (const flag of Object.keys(flags) as Flag[]) {
    if (!spec.required.includes(flag) && !spec.optional.includes(flag))
      throw new UsageError(`${command} does not take --${flag}`);
  }
  for (const flag of spec.required) {
    if (flags[flag] === undefined) throw new UsageError(`${command} needs --${flag}`);
  }
  for (const flag of ['name', 'strength', 'dosage-form'] as const) {
    const value = flags[flag];
    if (value !== undefined && value.trim() === '') throw new UsageError(`--${flag} must not be blank`);
    if (value !== undefined && value.length > 200) throw new UsageError(`--${flag} must be at most 200 characters`);
  }
  for (const flag of ['clinic', 'key-id'] as const) {
    const value = flags[flag];
    if (value !== undefined && !UUID.test(value)) throw new UsageError(`--${flag} must be a UUID, got "${value}"`);
  }
  if (flags.environment !== undefined && flags.environment !== 'development' && flags.environment !== 'production') {
    throw new UsageError(`--environment must be development or production, got "${flags.environment}"`);
  }
  if (flags.enabled !== undefined && flags.enabled !== 'true' && flags.enabled !== 'false') {
    throw new UsageError(`--enabled must be true or false, got "${flags.enabled}"`);
  }
  if (flags.price !== undefined && !DOLLARS.test(flags.price)) {
    throw new UsageError(`--price must be US dollars with at most two decimals (e.g. 32.44), got "${flags.price}"`);
  }
  for (const entry of flags['state-price'] ?? []) parseStatePrice(entry);
  if (flags.email !== undefined && !EMAIL.test(flags.email))
    throw new UsageError(`--email must be an email address, got "${flags.email}"`);
  if (flags.role !== undefined && !(STAFF_ROLES as readonly string[]).includes(flags.role)) {
    throw new UsageError(`--role must be ${STAFF_ROLES.join(' or ')}, got "${flags.role}"`);
  }
  return { command, flags };
}

function parseFlags(argv: string[]) {
  const text = { type: 'string' } as const;
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      name: text,
      clinic: text,
      environment: text,
      'key-id': text,
      strength: text,
      'dosage-form': text,
      enabled: text,
      carrier: text,
      id: text,
      price: text,
      email: text,
      role: text,
      'password-stdin': { type: 'boolean' },
      'free-shipping': { type: 'boolean' },
      'state-price': { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** `CA=12.50` → ['CA', 12.5]. The state code itself is checked by the service. */
function parseStatePrice(entry: string): [string, number] {
  const match = /^([A-Za-z]{2})=(.+)$/.exec(entry);
  if (!match?.[1] || !match[2] || !DOLLARS.test(match[2])) {
    throw new UsageError(`--state-price must look like CA=12.50 (a state code, "=", dollars), got "${entry}"`);
  }
  return [match[1], Number(match[2])];
}

/** Checks a new staff member's password as the API does (12 to 256 characters); the problem, or null. */
export function passwordProblem(password: string): string | null {
  // Code points, as the API's maxLength/minLength count them.
  const length = Array.from(password).length;
  if (length < 12) return 'the password must be at least 12 characters';
  if (length > 256) return 'the password must be at most 256 characters';
  return null;
}

/**
 * Runs a parsed command through the services; the result is what the CLI prints. `input.password`
 * is create-staff's, read by the caller (terminal or standard input).
 */
export async function executeCommand(
  ctx: AppContext,
  { command, flags }: ParsedCommand,
  input: { password?: string } = {},
): Promise<unknown> {
  const need = (flag: Flag): string => {
    const value = flags[flag];
    if (typeof value !== 'string') throw new UsageError(`${command} needs --${flag}`);
    return value;
  };
  switch (command) {
    case 'create-clinic':
      return createClinic(ctx, { name: need('name'), free_shipping: flags['free-shipping'] === true });
    case 'issue-key':
      return issueApiKey(ctx, need('clinic'), flags.environment as 'development' | 'production' | undefined);
    case 'revoke-key':
      return revokeApiKey(ctx, need('key-id'));
    case 'list-clinics':
      return { clinics: await listClinics(ctx) };
    case 'list-keys':
      return { api_keys: await listApiKeys(ctx, need('clinic')) };
    case 'add-medication':
      return addMedication(ctx, need('clinic'), {
        name: need('name'),
        ...(flags.strength !== undefined ? { strength: flags.strength } : {}),
        ...(flags['dosage-form'] !== undefined ? { dosage_form: flags['dosage-form'] } : {}),
      });
    case 'set-free-shipping':
      return setFreeShipping(ctx, need('clinic'), need('enabled') === 'true');
    case 'add-carrier':
      return createCarrier(ctx, { name: need('name'), ...(flags.id !== undefined ? { id: flags.id } : {}) });
    case 'add-service':
      return addService(ctx, need('carrier'), {
        name: need('name'),
        price: Number(need('price')),
        ...(flags.id !== undefined ? { id: flags.id } : {}),
        state_prices: Object.fromEntries((flags['state-price'] ?? []).map(parseStatePrice)),
      });
    case 'rotate-encryption-key':
      return rotateSecrets(ctx);
    case 'create-staff': {
      const password = input.password ?? '';
      const problem = passwordProblem(password);
      if (problem) throw new UsageError(problem);
      const staff = await createStaffMember(
        ctx,
        { email: need('email'), name: need('name'), role: need('role') as StaffRole, password },
        null,
      );
      return { staff_id: staff.staff_id, staff };
    }
    case 'help':
      return HELP;
  }
}

/**
 * Re-encrypts the webhook secrets under the current key. Secrets it cannot decrypt make it fail
 * (exit 1) after doing the rest, so that an operator does not drop a key that is still needed.
 */
async function rotateSecrets(ctx: AppContext): Promise<RotationResult> {
  const result = await rotateEncryptionKey(ctx);
  if (result.unreadable.length === 0) return result;
  throw new AppError(
    'CONFLICT',
    409,
    `${result.unreadable.length} webhook secret(s) could not be decrypted and were left as they are ` +
      `(${result.reencrypted} re-encrypted under key ${result.current_key_id}); ` +
      'add their key to DATA_ENCRYPTION_KEY_PREVIOUS and run again, and do not drop any previous key until this succeeds',
    Object.fromEntries(result.unreadable.map((u) => [u.webhook_id, u.reason])),
  );
}
