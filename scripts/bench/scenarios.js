// What the benchmark measures: the scenarios of issue 12 (item 3) and issue 18 (item 8), the two
// ceilings each is compared to (issue 19, item 1), and the issues' targets (issue 12 item 5, issue 18
// item 8, issue 19 item 2).

/**
 * Issue 12, item 5 (p99, peak RSS); issue 19, item 2: every measured route at least 0.8× its
 * composite ceiling; the webhook ones of issue 18, item 8: live delivery end to end (p50, p99, and a
 * backlog when the load stops of less than one second of orders), and the drain after a recovery.
 */
export const TARGETS = {
  p99Ms: 50,
  peakRssMb: 200,
  compositeRatio: 0.8,
  webhookP50Ms: 50,
  webhookP99Ms: 500,
  webhookBacklogSeconds: 1,
  drainEventsPerSecond: 2000,
};

const DATABASE_NAMES = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

/**
 * The scenarios that have a composite ceiling: a process of their own (ceilings/<script>.js), Fastify
 * doing the same work as the project for that route in plain code, on a database migrated and
 * provisioned by the project (setup.js). POST refill-request has none yet: a refill reads the order's
 * chain, takes a refill from each medication by a conditional update and writes a refill request, a
 * new order and two events; written plainly it would be a second copy of the refill rules.
 */
const COMPOSITE_SCENARIOS = [
  'get-carriers',
  'get-carrier-services',
  'get-order',
  'post-practitioner',
  'post-patient',
  'post-order',
];

/** The key of `scenario`'s composite ceiling on `database`. */
const compositeKey = (scenario, database) => `composite/${database}/${scenario}`;

/**
 * The ceilings, each its own server (servers.js) running ceilings/<script>.js. `database` null:
 * compared by every database. The bare ones do less than the project (a fixed body; a transaction
 * of five inserts into tables of their own); a composite one (`scenario`) does the same work as the
 * project for one route.
 */
export const CEILINGS = {
  bare: { name: 'bare-node-http', label: 'bare node:http', database: null, script: 'bare-http', scenario: null },
  'raw-sqlite': {
    name: 'raw-sqlite-tx',
    label: 'raw better-sqlite3 tx',
    database: 'sqlite',
    script: 'raw-sqlite',
    scenario: null,
  },
  'raw-pg': { name: 'raw-pg-tx', label: 'raw pg tx', database: 'postgres', script: 'raw-pg', scenario: null },
  ...Object.fromEntries(
    COMPOSITE_SCENARIOS.flatMap((scenario) =>
      Object.entries(DATABASE_NAMES).map(([database, name]) => [
        compositeKey(scenario, database),
        {
          name: `composite-${scenario}-${database}`,
          label: `composite ${scenario} (${name})`,
          database,
          script: `composite-${scenario}`,
          scenario,
        },
      ]),
    ),
  ),
};

const rawTx = (database) => (database === 'sqlite' ? 'raw-sqlite' : 'raw-pg');
/** `scenario`'s composite ceiling on each database. */
const compositeOf = (scenario) => (database) => compositeKey(scenario, database);

/**
 * Each scenario: the requests the load generator sends (`load`, see load.js), the bare ceiling it is
 * compared to on a database (`ceiling`) and the least ratio the issues ask of it there (`minRatio`,
 * null: shown, no target), and its composite ceiling (`composite`, null: none), of which every
 * measured route must reach TARGETS.compositeRatio.
 * `kind`: `requests` (autocannon against the endpoint), `webhook` (webhook-scenario.js: orders at a
 * steady rate, their deliveries timed) or `drain` (drain-scenario.js). `target`: the server it runs
 * on (setup.js): `main`, the project server with its worker in process; `workers`, a server with
 * RUN_WORKER=false and two worker processes (`workers` of them); `drain`, a server whose retries are
 * hours apart. `databases`: where it runs (null: every database).
 */
const DEFINED = [
  {
    name: 'get-carriers',
    label: 'GET /api/external/carriers',
    load: () => ({ kind: 'fixed', method: 'GET', path: '/api/external/carriers' }),
    ceiling: () => 'bare',
    minRatio: () => 0.3,
    composite: compositeOf('get-carriers'),
  },
  {
    name: 'get-carrier-services',
    label: 'GET /api/external/carriers/{id}/services?patientId=',
    load: (clinic) => ({
      kind: 'rotate',
      method: 'GET',
      paths: clinic.patients.map(({ patientId }) => `/api/external/carriers/fedex/services?patientId=${patientId}`),
    }),
    ceiling: () => 'bare',
    minRatio: () => null,
    composite: compositeOf('get-carrier-services'),
  },
  {
    name: 'get-order',
    label: 'GET /api/external/medication-order/{id}',
    load: (clinic) => ({
      kind: 'rotate',
      method: 'GET',
      paths: clinic.orderIds.map((id) => `/api/external/medication-order/${id}`),
    }),
    ceiling: () => 'bare',
    minRatio: () => null,
    composite: compositeOf('get-order'),
  },
  {
    name: 'post-practitioner',
    label: 'POST /api/external/practitioner',
    load: (clinic) => ({ kind: 'practitioner', clinicId: clinic.clinicId }),
    ceiling: rawTx,
    minRatio: () => null,
    composite: compositeOf('post-practitioner'),
  },
  {
    name: 'post-patient',
    label: 'POST /api/external/patient',
    load: (clinic) => ({ kind: 'patient', clinicId: clinic.clinicId, practitionerIds: clinic.practitionerIds }),
    ceiling: rawTx,
    minRatio: () => null,
    composite: compositeOf('post-patient'),
  },
  {
    name: 'post-order',
    label: 'POST /api/external/medication-order',
    load: (clinic) => ({ kind: 'order', clinicId: clinic.clinicId, patients: clinic.patients }),
    ceiling: rawTx,
    minRatio: (database) => (database === 'sqlite' ? 0.5 : 0.8),
    composite: compositeOf('post-order'),
  },
  {
    // Issue 38, item 7: an entry with a formula, each order for a patient with none in use (a pool
    // provisioned before each run, one patient per request): the duplicate-therapy lookup and the
    // allergy comparison run and find nothing. Its composite is the plain order's, which does neither.
    name: 'post-order-formula',
    label: 'POST /api/external/medication-order (formula, distinct patients)',
    load: (clinic, pool) => ({ kind: 'order-once', clinicId: clinic.clinicId, patients: pool }),
    pool: 'patients',
    ceiling: rawTx,
    minRatio: () => null,
    composite: compositeOf('post-order'),
  },
  {
    // Every order held at intake for duplicate therapy: the clinic's patients each have one in use.
    name: 'post-order-held',
    label: 'POST /api/external/medication-order (held at intake)',
    load: (clinic) => ({ kind: 'order', clinicId: clinic.clinicId, patients: clinic.patients, formula: true }),
    ceiling: rawTx,
    minRatio: () => null,
    composite: compositeOf('post-order'),
  },
  {
    name: 'post-refill',
    label: 'POST /api/external/refill-request',
    // The pool of shipped orders is filled just before each run (rounds.js): one order per request.
    load: (clinic, pool) => ({ kind: 'refill', orderIds: pool }),
    pool: 'refills',
    ceiling: rawTx,
    minRatio: () => null,
  },
  {
    name: 'webhook-delivery',
    label: 'webhook delivery (order.created)',
    kind: 'webhook',
    workers: 0,
    load: null,
    ceiling: () => null,
    minRatio: () => null,
  },
  {
    // Workers apart share the database through PostgreSQL (SKIP LOCKED, NOTIFY): SQLite is for one process.
    name: 'webhook-delivery-2-workers',
    label: 'webhook delivery (order.created), 2 workers',
    kind: 'webhook',
    target: 'workers',
    workers: 2,
    databases: ['postgres'],
    load: null,
    ceiling: () => null,
    minRatio: () => null,
  },
  {
    name: 'webhook-drain',
    label: 'webhook drain after recover',
    kind: 'drain',
    target: 'drain',
    load: null,
    ceiling: () => null,
    minRatio: () => null,
  },
];
// `pool`: what is provisioned before each run, used once per request (rounds.js): `refills` (shipped
// orders) or `patients` (patients with no order); null for none.

export const SCENARIOS = DEFINED.map((scenario) => ({
  kind: 'requests',
  target: 'main',
  databases: null,
  composite: () => null,
  pool: null,
  ...scenario,
}));

export const SCENARIO_NAMES = SCENARIOS.map((scenario) => scenario.name);

/** Whether `scenario` runs on `database`. */
export const runsOn = (scenario, database) => scenario.databases === null || scenario.databases.includes(database);
