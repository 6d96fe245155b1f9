/**
 * The types of every call the front end makes, read from the types generated from the server's
 * OpenAPI document (console/src/generated/, `npm run generate:client`; `npm run lint` fails when they
 * are out of date): no answer's shape is written by hand. `api()` (api.ts) takes a documented method
 * and path and answers that operation's `data`; pages name the shapes they keep by operation id:
 * `OperatorData<'getOperatorClinic'>`.
 */
import type { operations as OperatorOperations, paths as OperatorPaths } from './generated/operator';
import type { operations as PortalOperations, paths as PortalPaths } from './generated/portal';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Every path the front end calls: the operator API's (/api/admin) and the portal API's (/api/portal).
 * openapi-typescript writes `Record<string, never>` for a document without paths (the portal's,
 * before its routes): then the operator's alone.
 */
export type ApiPaths = string extends keyof PortalPaths ? OperatorPaths : OperatorPaths & PortalPaths;

/** The operation `method` of a path item (never when the path does not answer it). */
type OperationOf<Item, M extends HttpMethod> = Item extends Partial<Record<Lowercase<M>, infer Op>> ? NonNullable<Op> : never;

/** The operation of `method` at `path`. */
export type Operation<P extends keyof ApiPaths, M extends HttpMethod> = OperationOf<ApiPaths[P], M>;

/** The documented paths that answer `method`: `api('PUT', '/api/admin/clinics')` does not compile. */
export type PathOf<M extends HttpMethod> = {
  [P in keyof ApiPaths]: [Operation<P, M>] extends [never] ? never : P;
}[keyof ApiPaths];

/** The `data` of an operation's 200 answer (the envelope `{success, data, message}` around it). */
export type DataOf<Op> = Op extends {
  responses: { 200: { content: { 'application/json': { data: infer Data } } } };
}
  ? Data
  : never;

/** An operation's JSON request body (never when it takes none). */
export type BodyOf<Op> = Op extends { requestBody?: infer Body }
  ? NonNullable<Body> extends { content: { 'application/json': infer Json } }
    ? Json
    : never
  : never;

/** An operation's query parameters (never when it takes none). */
export type QueryOf<Op> = Op extends { parameters: { query?: infer Query } } ? NonNullable<Query> : never;

/** A query as `api()` takes it: only the documented names, each value typed or any text (left out when empty). */
export type QueryInput<Query> = { [Name in keyof Query]?: Query[Name] | string | null | undefined };

/** An operation's path parameters (never when its path has none). */
type PathParamsOf<Op> = Op extends { parameters: { path: infer Params } } ? NonNullable<Params> : never;

/**
 * What a call gives besides the method and path: `path` fills the path's `{name}`s, `query` is the
 * query string (only the documented names; a value may be any text, as filters read from the
 * address bar are: the server validates them), `body` the JSON body.
 */
export type CallOptions<Op> = ([PathParamsOf<Op>] extends [never]
  ? { path?: never }
  : { path: { [Name in keyof PathParamsOf<Op>]: string } }) &
  ([QueryOf<Op>] extends [never] ? { query?: never } : { query?: QueryInput<QueryOf<Op>> }) &
  ([BodyOf<Op>] extends [never]
    ? { body?: never }
    : Op extends { requestBody: object }
      ? { body: BodyOf<Op> }
      : { body?: BodyOf<Op> });

/** The options as the last argument: optional when nothing in them is required. */
export type CallArgs<Op> = object extends CallOptions<Op> ? [options?: CallOptions<Op>] : [options: CallOptions<Op>];

/**
 * A list the front end keeps at run time (a filter's options) checked against the API's enum:
 * `Check<ListsAll<DeliveryStatus, typeof DELIVERY_STATUSES>>` compiles only while the list names
 * every value the API does.
 */
export type ListsAll<Union, List extends readonly Union[]> = [Exclude<Union, List[number]>] extends [never]
  ? true
  : { missing: Exclude<Union, List[number]> };
export type Check<T extends true> = T;

/** The `data` of an operator operation, by operation id: `OperatorData<'getOperatorSession'>`. */
export type OperatorData<Id extends keyof OperatorOperations> = DataOf<OperatorOperations[Id]>;
/** The request body of an operator operation. */
export type OperatorBody<Id extends keyof OperatorOperations> = BodyOf<OperatorOperations[Id]>;
/** The query of an operator operation, as `api()` takes it. */
export type OperatorQuery<Id extends keyof OperatorOperations> = QueryInput<QueryOf<OperatorOperations[Id]>>;

/** The `data` of a portal operation, by operation id: `PortalData<'portalGetSession'>`. */
export type PortalData<Id extends keyof PortalOperations> = DataOf<PortalOperations[Id]>;
/** The request body of a portal operation. */
export type PortalBody<Id extends keyof PortalOperations> = BodyOf<PortalOperations[Id]>;
/** The query of a portal operation, as `api()` takes it. */
export type PortalQuery<Id extends keyof PortalOperations> = QueryInput<QueryOf<PortalOperations[Id]>>;
