import { parseArgs } from 'node:util';
import { ORDER_STATUSES } from '../orders/order-status.js';
import { STAFF_ROLES } from '../staff/staff.tables.js';

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
  delivery: 'value',
  webhook: 'value',
  since: 'value',
  order: 'value',
  status: 'value',
  'tracking-number': 'value',
  email: 'value',
  role: 'value',
  'password-stdin': 'switch',
} as const;

export type Flag = keyof typeof FLAGS;
type ValueFlag = { [F in Flag]: (typeof FLAGS)[F] extends 'value' ? F : never }[Flag];

interface CommandSpec {
  summary: string;
  required: Flag[];
  optional: Flag[];
}

const STATUSES_TO_MOVE_TO = ORDER_STATUSES.filter((status) => status !== 'pending');

export const COMMANDS = {
  'create-clinic': { summary: '--name <name> [--free-shipping]', required: ['name'], optional: ['free-shipping'] },
  'list-clinics': { summary: '', required: [], optional: [] },
  'set-free-shipping': { summary: '--clinic <clinic id> --enabled true|false', required: ['clinic', 'enabled'], optional: [] },
  'issue-key': {
    summary: '--clinic <clinic id> [--environment development|production]',
    required: ['clinic'],
    optional: ['environment'],
  },
  'list-keys': { summary: '--clinic <clinic id>', required: ['clinic'], optional: [] },
  'revoke-key': { summary: '--key-id <api key id>', required: ['key-id'], optional: [] },
  'add-medication': {
    summary: '--clinic <clinic id> --name <name> [--strength <s>] [--dosage-form <f>]',
    required: ['clinic', 'name'],
    optional: ['strength', 'dosage-form'],
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
    summary: `--order <order id> --status ${STATUSES_TO_MOVE_TO.join('|')} [--tracking-number <n> (with shipped)]`,
    required: ['order', 'status'],
    optional: ['tracking-number'],
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
  flags: Partial<Record<ValueFlag, string>> & {
    'free-shipping'?: boolean;
    'clear-state-prices'?: boolean;
    'password-stdin'?: boolean;
    'state-price'?: string[];
  };
}

const USAGE = 'Usage: npm run admin -- <command> [--flags]';

export const HELP = [
  'Operator command line of the Partner Fulfillment API (no running server needed).',
  USAGE,
  '',
  'Commands:',
  ...Object.entries(COMMANDS).map(([name, spec]) => `  ${name} ${spec.summary}`.trimEnd()),
  '',
  'The database is the one DATABASE_URL selects (default ./data/fulfillment.sqlite); keys are issued for',
  'FULFILLMENT_ENV (default development) unless --environment says otherwise. Results are printed as JSON.',
  'update-service: --state-price replaces the whole set of state prices; --clear-state-prices removes them.',
  'rotate-encryption-key re-encrypts every webhook secret under DATA_ENCRYPTION_KEY (see docs/webhooks.md).',
  'create-staff asks for the password at the terminal, or reads it from standard input with --password-stdin',
  '(e.g. for the first admin of a deployment: printf %s "$PASSWORD" | npm run admin -- create-staff ... --password-stdin).',
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
  if (!Object.hasOwn(COMMANDS, name)) throw new UsageError(`Unknown command "${name}"`);
  const command = name as CommandName;
  const refuse = (message: string): never => {
    throw new UsageError(message, command);
  };
  if (problem) refuse(problem);
  if (extra.length > 0) refuse(`Unexpected argument "${extra[0] ?? ''}": values are given with --flags`);
  const spec: CommandSpec = COMMANDS[command];
  for (const flag of Object.keys(flags) as Flag[]) {
    if (!spec.required.includes(flag) && !spec.optional.includes(flag)) refuse(`${command} does not take --${flag}`);
  }
  for (const flag of spec.required) {
    if (flags[flag] === undefined) refuse(`${command} needs --${flag}`);
  }
  try {
    checkValues(flags);
  } catch (error) {
    if (error instanceof UsageError) refuse(error.message);
    throw error;
  }
  return { command, flags };
}

/** The values' forms (ids, prices, enumerations); the services check the rest as the API does. */
function checkValues(flags: ParsedCommand['flags']): void {
  for (const flag of ['name', 'strength', 'dosage-form', 'tracking-number'] as const) {
    const value = flags[flag];
    if (value !== undefined && value.trim() === '') throw new UsageError(`--${flag} must not be blank`);
    if (value !== undefined && value.length > 200) throw new UsageError(`--${flag} must be at most 200 characters`);
  }
  for (const flag of ['clinic', 'key-id', 'medication', 'delivery', 'webhook', 'order'] as const) {
    const value = flags[flag];
    if (value !== undefined && !UUID.test(value)) throw new UsageError(`--${flag} must be a UUID, got "${value}"`);
  }
  oneOf(flags, 'environment', ['development', 'production']);
  oneOf(flags, 'enabled', ['true', 'false']);
  oneOf(flags, 'status', STATUSES_TO_MOVE_TO);
  oneOf(flags, 'role', STAFF_ROLES);
  if (flags.price !== undefined && !DOLLARS.test(flags.price)) {
    throw new UsageError(`--price must be US dollars with at most two decimals (e.g. 32.44), got "${flags.price}"`);
  }
  for (const entry of flags['state-price'] ?? []) parseStatePrice(entry);
  if (flags['state-price'] !== undefined && flags['clear-state-prices']) {
    throw new UsageError('give either --state-price or --clear-state-prices, not both');
  }
  if (flags.email !== undefined && !EMAIL.test(flags.email))
    throw new UsageError(`--email must be an email address, got "${flags.email}"`);
}

function oneOf(flags: ParsedCommand['flags'], flag: ValueFlag, allowed: readonly string[]): void {
  const value = flags[flag];
  if (value !== undefined && !allowed.includes(value)) {
    throw new UsageError(`--${flag} must be ${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1) ?? ''}, got "${value}"`);
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
