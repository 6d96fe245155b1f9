import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
import { defaultIn, valuesOf, type Environment, type Setting, type Settings, type Values } from './setting.js';

/**
 * Reads declared settings from the environment. A variable that is unset or empty (blank, unless the
 * setting is `untrimmed`) takes its default; a whole number must be digits only and a flag one of
 * true/1/yes, false/0/no; then TypeBox's Value applies the defaults and checks the schemas' bounds,
 * every error at once. Each refused variable adds one problem naming it and reads as its default, so
 * that the rules between settings (config/derived.ts) never report a refused value a second time.
 *
 * Why TypeBox's Value and not env-schema (Ajv): Value checks by walking the schema, a few
 * milliseconds; env-schema compiles an Ajv validator of its options on import and one of ours on the
 * first call, about 0.2 s in every process, and so in every test file that builds a configuration.
 * The server loads `@sinclair/typebox/value` anyway (the type provider's validator compiler).
 */
export function readSettings<T extends Settings>(
  settings: T,
  env: NodeJS.ProcessEnv,
  environment: Environment,
  problems: string[],
): Values<T> {
  const given: Record<string, unknown> = {};
  const refused = new Map<string, string>();
  for (const [name, declaration] of Object.entries(settings)) {
    const raw = env[name];
    const value = raw === undefined ? '' : declaration.untrimmed ? raw : raw.trim();
    if (value === '') continue;
    const typed = typedValue(declaration, value);
    if (typed === undefined) refused.set(name, typeProblem(name, declaration, raw ?? ''));
    else given[name] = typed;
  }

  const schema = objectSchema(settings, environment);
  const values = Value.Default(schema, given) as Record<string, unknown>;
  for (const failure of [...Value.Errors(schema, values)]) {
    const name = failure.path.slice(1);
    const declaration = settings[name];
    if (declaration === undefined || refused.has(name)) continue;
    refused.set(name, boundsProblem(name, declaration, failure));
    values[name] = defaultIn(declaration, environment);
  }
  // One problem per variable, in the order of the declarations.
  for (const name of Object.keys(settings)) {
    const problem = refused.get(name);
    if (problem !== undefined) problems.push(problem);
  }
  return values as Values<T>;
}

/** The typed value of a variable's text, or undefined when it is not of its setting's type. */
function typedValue(declaration: Setting, value: string): unknown {
  switch (declaration.schema.type) {
    case 'integer':
      return /^\d+$/.test(value) ? Number(value) : undefined;
    case 'boolean': {
      const word = value.toLowerCase();
      if (['true', '1', 'yes'].includes(word)) return true;
      return ['false', '0', 'no'].includes(word) ? false : undefined;
    }
    default:
      return value;
  }
}

function typeProblem(name: string, declaration: Setting, raw: string): string {
  if (declaration.problem !== undefined) return declaration.problem;
  return declaration.schema.type === 'integer'
    ? `${name} must be a whole number, got "${raw}"`
    : `${name} must be true or false, got "${raw}"`;
}

function boundsProblem(name: string, declaration: Setting, failure: ValueError): string {
  if (declaration.problem !== undefined) return declaration.problem;
  const schema = declaration.schema as { minimum?: number; maximum?: number };
  switch (failure.type) {
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.IntegerMaximum:
      return `${name} must be between ${String(schema.minimum)} and ${String(schema.maximum)}, got ${String(failure.value)}`;
    case ValueErrorType.Union:
      return `${name} must be one of ${valuesOf(declaration.schema).join(', ')}, got "${String(failure.value).slice(0, 100)}"`;
    default:
      return `${name} is not valid: ${failure.message}`;
  }
}

/** The schema of one environment's settings, its defaults included: built once per group and environment. */
const objectSchemas = new WeakMap<Settings, Map<Environment, TObject>>();

function objectSchema(settings: Settings, environment: Environment): TObject {
  const cached = objectSchemas.get(settings)?.get(environment);
  if (cached) return cached;
  const properties: Record<string, TSchema> = {};
  for (const [name, declaration] of Object.entries(settings)) {
    const fallback = defaultIn(declaration, environment);
    properties[name] = Type.Optional(fallback === undefined ? declaration.schema : { ...declaration.schema, default: fallback });
  }
  const schema = Type.Object(properties, { additionalProperties: false });
  objectSchemas.set(settings, new Map([...(objectSchemas.get(settings) ?? []), [environment, schema]]));
  return schema;
}
