import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';

/**
 * Route schemas compiled once per process, when first used.
 *
 * Fastify compiles every route's validators (Ajv) and response serializers (fast-json-stringify)
 * as an application is built: 1.3 s of CPU for our few hundred routes, a quarter of a server
 * process's start, and 1.7 s more for each further application built in a process (the suites build
 * one per test file and dialect, often more, and spent half their CPU compiling the same schemas
 * again). Here a schema is compiled the first time a request needs it, and once per process: a
 * process starts, or restarts after a crash, without compiling anything, and a route's first
 * request pays for its own schemas (a few milliseconds, once). CONTRIBUTING.md, "How long the suite
 * takes"; docs/performance.md, "Starting".
 *
 * What is compiled depends on the schema's content alone (and, for a serializer, on the external
 * schemas and options its compiler is built with: one cache per setting). A schema is found by its
 * object (most are module constants, the same objects in every build), else by its JSON (those made
 * as their routes are declared: a new object in every build, the same JSON). JSON is all Ajv and
 * fast-json-stringify read of a schema: TypeBox's symbol keys play no part in either.
 */
export function compiledOnce<Compiled extends (...args: never[]) => unknown>(
  kind: keyof typeof compilations,
  compile: (schema: object, part: string) => Compiled,
): (schema: object, part: string) => Compiled {
  const byObject = new WeakMap<object, Map<string, Compiled>>();
  const byContent = new Map<string, Compiled>();
  return (schema, part) => {
    let byPart = byObject.get(schema);
    if (byPart === undefined) byObject.set(schema, (byPart = new Map<string, Compiled>()));
    let found = byPart.get(part);
    if (found !== undefined) return found;
    const content = `${part}\n${JSON.stringify(schema)}`;
    found = byContent.get(content);
    if (found === undefined) {
      found = onFirstCall(() => {
        compilations[kind]++;
        return compile(schema, part);
      });
      byContent.set(content, found);
    }
    byPart.set(part, found);
    return found;
  };
}

/** A function that compiles itself on its first call (Node runs one call at a time: no race). */
function onFirstCall<F extends (...args: never[]) => unknown>(compile: () => F): F {
  let compiled: F | undefined;
  return ((...args: Parameters<F>) => (compiled ??= compile())(...args)) as F;
}

const compilations = { validators: 0, serializers: 0, other: 0 };
/** How many validators and serializers this process compiled (test/http/compiled-once.test.ts). */
export const compilationCounts = (): Readonly<typeof compilations> => ({ ...compilations });

type Serializer = ReturnType<ReturnType<SerializerFactory>>;
type SerializerCompiler = (route: Parameters<ReturnType<SerializerFactory>>[0]) => Serializer;

const buildDefaultSerializer = SerializerSelector();
/** A compiler per distinct setting (external schemas and options, as JSON). */
const compilersBySetting = new Map<string, SerializerCompiler>();

/**
 * Fastify's own serializer compiler (fast-json-stringify, which reads the route's schema only),
 * compiling each response schema once per process: buildApp's
 * `schemaController.compilersFactory.buildSerializer`.
 */
export const buildSerializerOnce: SerializerFactory = (externalSchemas, options) => {
  const setting = JSON.stringify([externalSchemas ?? null, options ?? null]);
  let compiler = compilersBySetting.get(setting);
  if (compiler === undefined) {
    const compileDefault = buildDefaultSerializer(externalSchemas, options);
    const compile = compiledOnce('serializers', (schema) => compileDefault({ schema, method: '', url: '', httpStatus: '' }));
    compiler = (route) => compile(route.schema as object, 'response');
    compilersBySetting.set(setting, compiler);
  }
  return compiler;
};
