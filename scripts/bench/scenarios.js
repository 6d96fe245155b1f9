// What the benchmark measures: the scenarios of issue 12 (item 3) and issue 18 (item 8), the ceiling
// each is compared to, and the issues' targets (issue 12 item 5, issue 18 item 8).

/**
 * Issue 12, item 5; the webhook ones of issue 18, item 8: live delivery end to end (p50, p99, and a
 * backlog when the load stops of less than one second of orders), and the drain after a recovery.
 */
export const TARGETS = {
  p99Ms: 50,
  peakRssMb: 200,
  webhookP50Ms: 50,
  webhookP99Ms: 500,
  webhookBacklogSeconds: 1,
  drainEventsPerSecond: 2000,
};

/** The ceilings, each its own server (servers.js). `database` null: compared by every database. */
export const CEILINGS = {
  bare: { name: 'bare-node-http', label: 'bare node:http', database: null },
  'raw-sqlite': { name: 'raw-sqlite-tx', label: 'raw better-sqlite3 tx', database: 'sqlite' },
  'raw-pg': { name: 'raw-pg-tx', label: 'raw pg tx', database: 'postgres' },
};

const rawTx = (database) => (database === 'sqlite' ? 'raw-sqlite' : 'raw-pg');

/**
 * Each scenario: the requests the load generator sends (`load`, see load.js), the ceiling it is
 * compared to on a database, and the least ratio the issue asks of it there (null: shown, no target).
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
    minRatio: () => 0.5,
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
    minRatio: () => 0.5,
  },
  {
    name: 'post-practitioner',
    label: 'POST /api/external/practitioner',
    load: (clinic) => ({ kind: 'practitioner', clinicId: clinic.clinicId }),
    ceiling: rawTx,
    minRatio: () => null,
  },
  {
    name: 'post-patient',
    label: 'POST /api/external/patient',
    load: (clinic) => ({ kind: 'patient', clinicId: clinic.clinicId, practitionerIds: clinic.practitionerIds }),
    ceiling: rawTx,
    minRatio: () => null,
  },
  {
    name: 'post-order',
    label: 'POST /api/external/medication-order',
    load: (clinic) => ({ kind: 'order', clinicId: clinic.clinicId, patients: clinic.patients }),
    ceiling: rawTx,
    minRatio: (database) => (database === 'sqlite' ? 0.75 : 1.0),
  },
  {
    name: 'post-refill',
    label: 'POST /api/external/refill-request',
    // The pool of shipped orders is filled just before each run (run.js): one order per request.
    load: (clinic, pool) => ({ kind: 'refill', orderIds: pool }),
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

export const SCENARIOS = DEFINED.map((scenario) => ({ kind: 'requests', target: 'main', databases: null, ...scenario }));

export const SCENARIO_NAMES = SCENARIOS.map((scenario) => scenario.name);

/** Whether `scenario` runs on `database`. */
export const runsOn = (scenario, database) => scenario.databases === null || scenario.databases.includes(database);
