import { createHook } from 'node:async_hooks';
import type { FastifyInstance } from 'fastify';
import { symbols } from 'pino';

/**
 * Counts what one process does around its requests, from outside src/: promises created (async
 * hooks), Fastify lifecycle hooks run (the route's own hook arrays, wrapped), and bytes logged (the
 * app logger's destination, wrapped).
 */

/** Fastify's per-request hooks (fastify/lib/hooks.js `lifecycleHooks`), in the order they run. */
export const LIFECYCLE_HOOKS = [
  'onRequest',
  'preParsing',
  'preValidation',
  'preHandler',
  'preSerialization',
  'onSend',
  'onResponse',
  'onError',
  'onTimeout',
  'onRequestAbort',
] as const;
export type LifecycleHook = (typeof LIFECYCLE_HOOKS)[number];

/** A route's compiled context: one array of (bound) functions per hook, or null. */
export type RouteContext = Partial<Record<LifecycleHook, ((...args: unknown[]) => unknown)[] | null>>;

/** The first own symbol of `target` with this description (Fastify keeps its internals under symbols). */
function symbolNamed(target: object, description: string): symbol {
  const found = Object.getOwnPropertySymbols(target).find((symbol) => symbol.description === description);
  if (!found) throw new Error(`pipeline-probe: no ${description} symbol; has Fastify changed?`);
  return found;
}

/**
 * Notes the route context of every reply sent while open. Fastify exposes no route's hooks after
 * `ready`, but each reply holds its request, which holds its route's context (`fastify.context`):
 * `Reply.prototype.send` is wrapped to read it. Open it over a warm-up request of the route.
 */
export function captureRouteContexts(app: FastifyInstance): { contexts: Set<RouteContext>; stop: () => void } {
  // The app's Reply class (decorated subclasses included) descends from the one whose prototype owns `send`.
  let prototype = (app as unknown as Record<symbol, { prototype: object }>)[symbolNamed(app, 'fastify.Reply')]!.prototype;
  while (!Object.hasOwn(prototype, 'send')) prototype = Object.getPrototypeOf(prototype) as object;
  const owner = prototype as { send: (this: { request: object }, ...args: unknown[]) => unknown };
  const send = owner.send;
  const contexts = new Set<RouteContext>();
  let contextSymbol: symbol | undefined;
  owner.send = function (...args) {
    contextSymbol ??= symbolNamed(this.request, 'fastify.context');
    contexts.add((this.request as Record<symbol, RouteContext>)[contextSymbol]!);
    return send.apply(this, args);
  };
  return {
    contexts,
    stop: () => {
      owner.send = send;
    },
  };
}

/**
 * Counts each hook of these route contexts as it runs, by hook name, until the returned function
 * restores them. The hook runners read a context's arrays at each request and tell callback hooks
 * from async ones by what they return, not by their arity, so a plain wrapper changes nothing else.
 */
export function countHooks(contexts: Iterable<RouteContext>, counts: Partial<Record<LifecycleHook, number>>): () => void {
  const undo: (() => void)[] = [];
  for (const context of contexts) {
    for (const hook of LIFECYCLE_HOOKS) {
      const original = context[hook];
      if (!original) continue;
      context[hook] = original.map((fn) => (...args: unknown[]) => {
        counts[hook] = (counts[hook] ?? 0) + 1;
        return fn(...args);
      });
      undo.push(() => (context[hook] = original));
    }
  }
  return () => {
    for (const restore of undo) restore();
  };
}

/** The registered hooks of these route contexts, by name: what runs on a request that goes the whole way. */
export function registeredHooks(contexts: Iterable<RouteContext>): Partial<Record<LifecycleHook, number>> {
  const registered: Partial<Record<LifecycleHook, number>> = {};
  for (const context of contexts) {
    for (const hook of LIFECYCLE_HOOKS) {
      const length = context[hook]?.length ?? 0;
      if (length > 0) registered[hook] = Math.max(registered[hook] ?? 0, length);
    }
  }
  return registered;
}

/** Counts the promises created in this process (every one: V8's promise hook) until stopped. */
export function countPromises(tally: { promises: number }): () => void {
  const hook = createHook({
    init(_asyncId, type) {
      if (type === 'PROMISE') tally.promises++;
    },
  });
  hook.enable();
  return () => hook.disable();
}

/**
 * Counts the bytes and lines the app's logger writes (its destination stream, shared by every
 * request's child logger), until stopped. A logger at `silent` writes nothing and counts nothing.
 */
export function countLogBytes(app: FastifyInstance, tally: { bytesLogged: number; linesLogged: number }): () => void {
  const stream = (app.log as unknown as Record<symbol, { write: (chunk: string) => unknown } | undefined>)[symbols.streamSym];
  if (!stream) throw new Error('pipeline-probe: the app logger has no destination stream');
  const own = Object.hasOwn(stream, 'write');
  const write = stream.write;
  stream.write = function (this: unknown, chunk: string) {
    tally.bytesLogged += Buffer.byteLength(chunk);
    tally.linesLogged++;
    return write.call(this, chunk);
  };
  return () => {
    if (own) stream.write = write;
    else delete (stream as { write?: unknown }).write;
  };
}
