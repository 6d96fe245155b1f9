// Over 250 lines: the admin CLI's one table of commands (usage, flags, parsing), from which the help is generated; split, the help and the parser would drift.
import { parseArgs } from 'node:util';
import { MAX_KEY_LIFETIME_SECONDS, MAX_ROLL_OVERLAP_SECONDS } from '../clinics/api-key.js';
import { ALL_SCOPES, isScope, type Scope } from '../clinics/scopes.js';
import { ORDER_STATUSES } from '../orders/order-status.js';
import { PARTNER_USER_ROLES } from '../portal/partner-user.tables.js';
import { STAFF_ROLES } from '../staff/staff.tables.js';
import { checkText } from '../shared/text.js';
import { orList } from '../shared/words.js';

/*
 * The operator command line's commands and their parsing: pure, so that bad usage is refused before
 * any database is opened. Execution is cli-execute.ts (the same service functions as /api/admin).
 */

/** Bad usage: the CLI prints the message and the command's usage (or the general one), and exits with status 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose usage line to show; undefined when the command itself is missing or unknown. */
    readonly command?: CommandName,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Every flag, with its kind: a value, a repeatable value, or a switch without value. */
const FLAGS = {
  name: 'value',
  'free-shipping': 'switch',
  clinic: 'value',
  environment: 'value',
  'key-id': 'value',
  'client-id': 'value',
  'jwks-file': 'value',
  scopes: 'value',
  'expires-in': 'value',
  strength: 'value',
  'dosage-form': 'value',
  enabled: 'value',
  carrier: 'value',
  id: 'value',
  service: 'value',
  price: 'value',
  'state-price': 'repeated',
  'clear-state-prices': 'switch',
  medication: 'value',
  formula: 'value',
  delivery: 'value',
  webhook: 'value',
  since: 'value',
  order: 'value',
  status: 'value',
  'tracking-number': 'value',
  reason: 'value',
  email: 'value',
  role: 'value',
  'password-stdin': 'switch',
  /** Every command's: who is acting, for the audit trail and the order history (default: the OS user). */
  operator: 'value',
} as const;

export type Flag = keyof typeof FLAGS;
type ValueFlag = { [F in Flag]: (typeof FLAGS)[F] extends 'value' ? F : never }[Flag];

interface CommandSpec {
  summary: string;
  required: Flag[];
  optional: Flag[];
}

/** A hold needs a reason and a resume goes back where the order was: neither is a plain move. */
const STATUSES_TO_MOVE_TO = ORDER_STATUSES.filter((status) => status !== 'pending' && status !== 'on_hold');

export const COMMANDS = {
  'create-clinic': { summary: '--name <name> [--free-shipping]', required: ['name'], optional: ['free-shipping'] },
  'list-clinics': { summary: '', required: [], optional: [] },
  'set-free-shipping': { summary: '--clinic <clinic id> --enabled true|false', required: ['clinic', 'enabled'], optional: [] },
  'issue-key': {
    summary:
      '--clinic <clinic id> [--environment development|production] [--scopes orders:write,carriers:read] [--expires-in 90d]',
    required: ['clinic'],
    optional: ['environment', 'scopes', 'expires-in'],
  },
  'list-keys': { summary: '--clinic <clinic id>', required: ['clinic'], optional: [] },
  'revoke-key': { summary: '--key-id <api key id>', required: ['key-id'], optional: [] },
  'roll-key': {
    summary: '--key-id <api key id> --expires-in <0 to 7d, e.g. 30m, 1h>',
    required: ['key-id', 'expires-in'],
    optional: [],
  },
  'create-oauth-client': {
    summary:
      '--clinic <clinic id> --scopes orders:write,carriers:read [--environment development|production] [--jwks-file <JWK Set file>]',
    required: ['clinic', 'scopes'],
    optional: ['environment', 'jwks-file'],
  },
  'list-oauth-clients': { summary: '--clinic <clinic id>', required: ['clinic'], optional: [] },
  'revoke-oauth-client': { summary: '--client-id <client id>', required: ['client-id'], optional: [] },
  'add-medication': {
    summary: '--clinic <clinic id> --name <name> [--strength <s>] [--dosage-form <f>] [--formula <json>]',
    required: ['clinic', 'name'],
    optional: ['strength', 'dosage-form', 'formula'],
  },
  'list-medications': { summary: '--clinic <clinic id>', required: ['clinic'], optional: [] },
  'remove-medication': {
    summary: '--clinic <clinic id> --medication <medication id>',
    required: ['clinic', 'medication'],
    optional: [],
  },
  'add-carrier': { summary: '--name <name> [--id <carrier id>]', required: ['name'], optional: ['id'] },
  'list-carriers': { summary: '', required: [], optional: [] },
  'add-service': {
    summary: '--carrier <carrier id> --name <name> --price <dollars> [--id <service id>] [--state-price CA=12.50 ...]',
    required: ['carrier', 'name', 'price'],
    optional: ['id', 'state-price'],
  },
  'update-service': {
    summary:
      '--carrier <carrier id> --service <service id> [--name <name>] [--price <dollars>] [--state-price CA=12.50 ... | --clear-state-prices]',
    required: ['carrier', 'service'],
    optional: ['name', 'price', 'state-price', 'clear-state-prices'],
  },
  'retry-delivery': { summary: '--delivery <delivery id>', required: ['delivery'], optional: [] },
  'recover-endpoint': {
    summary: '--webhook <webhook id> [--since <ISO 8601 date-time, at most 7 days ago>]',
    required: ['webhook'],
    optional: ['since'],
  },
  'move-order': {
    summary: `--order <order id> --status ${STATUSES_TO_MOVE_TO.join('|')} [--tracking-number <n> (with shipped)] [--reason <why> (with cancelled)]`,
    required: ['order', 'status'],
    optional: ['tracking-number', 'reason'],
  },
  'rotate-encryption-key': { summary: '', required: [], optional: [] },
  'create-staff': {
    summary: `--email <email> --name <name> --role ${STAFF_ROLES.join('|')} [--password-stdin]`,
    required: ['email', 'name', 'role'],
    optional: ['password-stdin'],
  },
  'invite-partner-user': {
    summary: '--clinic <clinic id> --email <email> --role developer|viewer',
    required: ['clinic', 'email', 'role'],
    optional: [],
  },
  'reinvite-partner-user': { summary: '--email <email>', required: ['email'], optional: [] },
  deprecations: { summary: '', required: [], optional: [] },
  help: { summary: '', required: [], optional: [] },
} satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMANDS;

/**
 * Commands the command line refuses on purpose, with why: a sign-off is recorded only by the
 * pharmacist signed in to the console as themselves (issue 39; docs/compounding.md#sign-offs), and
 * the command line signs no one in.
 */
const REFUSED_COMMANDS: Readonly<Record<string, string>> = Object.fromEntries(
  ['sign-off', 'signoff', 'sign-off-order'].map((name) => [
    name,
    'The command line cannot sign off: a sign-off is recorded only by the pharmacist signed in to the console as themselves (the order\u2019s page, or POST /api/admin/medication-requests/{id}/signoffs with their session; docs/compounding.md#sign-offs)',
  ]),
);

export interface ParsedCommand {
  command: CommandName;
  flags: Partial<Record<ValueFlag, string>> & {
    'free-shipping'?: boolean;
    'clear-state-prices'?: boolean;
    'password-stdin'?: boolean;
    'state-price'?: string[];
  };
}

const USAGE = 'Usage: npm run admin -- <command> [--flags] [--operator "<your name>"]';

export const HELP = [
  'Operator command line of the Partner Fulfillment API (no running server needed).',
  USAGE,
  '',
  'Every command takes --operator "<your name>": what it changes is recorded in the audit trail and an',
  'order\u2019s status history under that name (default: the OS user running the command).',
  '',
  'Commands:',
  ...Object.entries(COMMANDS).map(([name, spec]) => `  ${name} ${spec.summary}`.trimEnd()),
  '',
  'The database is the one DATABASE_URL selects (default ./data/fulfillment.sqlite); keys are issued for',
  'FULFILLMENT_ENV (default development) unless --environment says otherwise. Results are printed as JSON.',
  'update-service: --state-price replaces the whole set of state prices; --clear-state-prices removes them.',
  'issue-key --scopes restricts the key (comma-separated <resource>:read|write; write implies read; none: full access).',
  'roll-key issues the key\u2019s successor (same clinic, environment, scopes) and lets the old key work --expires-in more.',
  'Durations: a whole number with s, m, h or d (30m, 1h, 7d; a bare number is seconds; 0: at once).',
  'create-oauth-client prints the client_id and its secret (shown once); with --jwks-file (public keys, a JWK Set) the',
  'client authenticates with private_key_jwt instead and has no secret. See docs/oauth.md.',
  'deprecations lists the deprecated routes, parameters and fields and who still uses them (per key or OAuth client).',
  'rotate-encryption-key re-encrypts every webhook secret under DATA_ENCRYPTION_KEY (see docs/webhooks.md).',
  'create-staff asks for the password at the terminal, or reads it from standard input with --password-stdin',
  '(e.g. for the first admin of a deployment: printf %s "$PASSWORD" | npm run admin -- create-staff ... --password-stdin).',
  'invite-partner-user makes a partner portal account for a person of a clinic and prints its single-use link (72 hours;',
  'on PUBLIC_BASE_URL, or the address the start banner prints, http://127.0.0.1:PORT): send it to them. reinvite-partner-user makes a new link (the old one',
  'stops working): a lost invitation, or a forgotten password. See docs/portal.md.',
].join('\n');

/** The short usage printed after a usage error: the command's own line, or the general one. */
export function usageOf(command: CommandName | undefined): string {
  const hint = 'npm run admin -- help lists every command.';
  if (command === undefined || command === 'help') return `${USAGE}\n${hint}`;
  return `Usage: npm run admin -- ${`${command} ${COMMANDS[command].summary}`.trimEnd()}\n${hint}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DOLLARS = /^\d+(\.\d{1,2})?$/;
/** What the API's `format: email` accepts, near enough for a command line: something@domain.tld. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Parses `<command> [--flags]`; throws UsageError naming what is wrong. */
export function parseCommand(argv: string[]): ParsedCommand {
  const { positionals, flags, help, problem } = parseFlags(argv);
  const [name, ...extra] = positionals;
  if (help) return { command: 'help', flags: {} };
  if (name === undefined) throw new UsageError(problem ?? 'Give a command');
  if (Object.hasOwn(REFUSED_COMMANDS, name)) throw new UsageError(REFUSED_COMMANDS[name] ?? '');
  if (!Object.hasOwn(COMMANDS, name)) throw new UsageError(`Unknown command "${name}"`);
  const command = name as CommandName;
  const refuse = (message: string): never => {
    throw new UsageError(message, command);
  };
  if (problem) refuse(problem);
  if (extra.length > 0) refuse(`Unexpected argument "${extra[0] ?? ''}": values are given with --flags`);
  const spec: CommandSpec = COMMANDS[command];
  for (const flag of Object.keys(flags) as Flag[]) {
    if (flag === 'operator') continue;
    if (!spec.required.includes(flag) && !spec.optional.includes(flag)) refuse(`${command} does not take --${flag}`);
  }
  for (const flag of spec.required) {
    if (flags[flag] === undefined) refuse(`${command} needs --${flag}`);
  }
  try {
    checkValues(command, flags);
    checkTextFlags(command, flags);
    if (flags['expires-in'] !== undefined) keyLifetime(command, flags['expires-in']);
  } catch (error) {
    if (error instanceof UsageError) refuse(error.message);
    throw error;
  }
  return { command, flags };
}

/** The commands whose --name is a name (a letter at least; shared/text.ts), as in the API's bodies. */
const NAMING_COMMANDS: readonly CommandName[] = ['create-clinic', 'add-medication', 'create-staff'];

/** The text rules the API applies to its bodies (docs/errors.md#text-rules): refused, or stored NFC-normalized. */
function checkTextFlags(command: CommandName, flags: ParsedCommand['flags']): void {
  for (const flag of ['name', 'strength', 'dosage-form', 'tracking-number', 'reason', 'operator'] as const) {
    const given = flags[flag];
    if (given === undefined) continue;
    const kind = flag === 'operator' || (flag === 'name' && NAMING_COMMANDS.includes(command)) ? 'name' : 'plain';
    const { value, problem } = checkText(kind, given);
    if (problem) throw new UsageError(`--${flag} ${problem}`);
    flags[flag] = value;
  }
}

/** The values' forms (ids, prices, enumerations); the services check the rest as the API does. */
function checkValues(command: CommandName, flags: ParsedCommand['flags']): void {
  for (const flag of ['name', 'strength', 'dosage-form', 'tracking-number', 'reason', 'operator'] as const) {
    const value = flags[flag];
    if (value !== undefined && value.trim() === '') throw new UsageError(`--${flag} must not be blank`);
    if (value !== undefined && value.length > 200) throw new UsageError(`--${flag} must be at most 200 characters`);
  }
  for (const flag of ['clinic', 'key-id', 'client-id', 'medication', 'delivery', 'webhook', 'order'] as const) {
    const value = flags[flag];
    if (value !== undefined && !UUID.test(value)) throw new UsageError(`--${flag} must be a UUID, got "${value}"`);
  }
  oneOf(flags, 'environment', ['development', 'production']);
  oneOf(flags, 'enabled', ['true', 'false']);
  oneOf(flags, 'status', STATUSES_TO_MOVE_TO);
  oneOf(flags, 'role', command === 'invite-partner-user' ? PARTNER_USER_ROLES : STAFF_ROLES);
  if (flags.price !== undefined && !DOLLARS.test(flags.price)) {
    throw new UsageError(`--price must be US dollars with at most two decimals (e.g. 32.44), got "${flags.price}"`);
  }
  for (const entry of flags['state-price'] ?? []) parseStatePrice(entry);
  if (flags['state-price'] !== undefined && flags['clear-state-prices']) {
    throw new UsageError('give either --state-price or --clear-state-prices, not both');
  }
  if (flags.email !== undefined && !EMAIL.test(flags.email))
    throw new UsageError(`--email must be an email address, got "${flags.email}"`);
  if (flags.scopes !== undefined) parseScopes(flags.scopes);
}

const DURATION = /^(\d{1,10})([smhd]?)$/;
const UNIT_SECONDS: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 };

/** `30m` → 1800: a whole number of seconds, minutes, hours or days (a bare number is seconds). */
export function parseDuration(text: string): number {
  const match = DURATION.exec(text.trim());
  if (!match?.[1]) throw new UsageError(`--expires-in must be a duration such as 30m, 1h or 7d, got "${text}"`);
  return Number(match[1]) * (UNIT_SECONDS[match[2] ?? ''] ?? 1);
}

/** --expires-in in seconds, within what the command allows: roll-key 0 to 7 days, issue-key 1 second to 10 years. */
export function keyLifetime(command: CommandName, text: string): number {
  const seconds = parseDuration(text);
  if (command === 'roll-key' && seconds > MAX_ROLL_OVERLAP_SECONDS) {
    throw new UsageError(`--expires-in must be at most 7d (the old key works at most 7 days more), got "${text}"`);
  }
  if (command !== 'roll-key' && seconds < 1) throw new UsageError(`--expires-in must be at least 1s, got "${text}"`);
  if (command !== 'roll-key' && seconds > MAX_KEY_LIFETIME_SECONDS) {
    throw new UsageError(`--expires-in must be at most 3650d (10 years), got "${text}"`);
  }
  return seconds;
}

/** `orders:write,carriers:read` → the scopes; an unknown or empty one is refused, naming it. */
export function parseScopes(text: string): Scope[] {
  const names = text.split(',').map((name) => name.trim());
  const scopes: Scope[] = [];
  for (const name of names) {
    if (name === '') throw new UsageError('--scopes must list scopes separated by commas, e.g. orders:write,carriers:read');
    if (!isScope(name)) throw new UsageError(`--scopes: unknown scope "${name}"; known: ${ALL_SCOPES.join(', ')}`);
    scopes.push(name);
  }
  return scopes;
}

function oneOf(flags: ParsedCommand['flags'], flag: ValueFlag, allowed: readonly string[]): void {
  const value = flags[flag];
  if (value !== undefined && !allowed.includes(value)) {
    throw new UsageError(`--${flag} must be ${orList(allowed)}, got "${value}"`);
  }
}

/**
 * The flags, by our own rules rather than Node's parser messages: an unknown flag, a flag without
 * its value, or a switch given a value is the `problem` (the first), named after the command is checked.
 */
function parseFlags(argv: string[]): {
  positionals: string[];
  flags: ParsedCommand['flags'];
  help: boolean;
  problem: string | undefined;
} {
  const options = Object.fromEntries(
    Object.entries(FLAGS).map(([name, kind]) => [
      name,
      kind === 'switch' ? { type: 'boolean' as const } : { type: 'string' as const },
    ]),
  );
  const { tokens } = parseArgs({ args: argv, options, allowPositionals: true, strict: false, tokens: true });
  const positionals: string[] = [];
  const flags: Record<string, string | string[] | boolean> = {};
  let help = false;
  let problem: string | undefined;
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value);
    if (token.kind !== 'option') continue;
    if (token.name === 'help' || token.name === 'h') {
      help = true;
      continue;
    }
    if (problem !== undefined) continue;
    const name = token.name as Flag;
    const kind = Object.hasOwn(FLAGS, token.name) ? FLAGS[name] : undefined;
    if (kind === undefined) {
      problem = `Unknown flag ${token.rawName}`;
    } else if (kind === 'switch') {
      if (token.value !== undefined) problem = `--${name} takes no value`;
      else flags[name] = true;
    } else if (token.value === undefined || (!token.inlineValue && token.value.startsWith('--'))) {
      // `--name --clinic …`: the next flag is not this one's value.
      problem = `--${name} needs a value`;
    } else if (kind === 'repeated') {
      flags[name] = [...((flags[name] as string[] | undefined) ?? []), token.value];
    } else {
      flags[name] = token.value;
    }
  }
  return { positionals, flags: flags, help, problem };
}

/** `CA=12.50` → ['CA', 12.5]. The state code itself is checked by the service. */
export function parseStatePrice(entry: string): [string, number] {
  const match = /^([A-Za-z]{2})=(.+)$/.exec(entry);
  if (!match?.[1] || !match[2] || !DOLLARS.test(match[2])) {
    throw new UsageError(`--state-price must look like CA=12.50 (a state code, "=", dollars), got "${entry}"`);
  }
  return [match[1], Number(match[2])];
}
