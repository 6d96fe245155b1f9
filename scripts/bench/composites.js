// The composite ceilings' side of the set-up (issue 19, item 1): their database, migrated and
// provisioned by the project itself, and a check, before the rounds, that each answers as the route.
import path from 'node:path';
import { fetch } from 'undici';
import { orderBody, patientBody, practitionerBody } from './bodies.js';
import { log } from './log.js';
import { projectEnvironment } from './servers.js';
import { issueKey, provisionClinic } from './provision.js';
import { CEILINGS, SCENARIOS } from './scenarios.js';

/**
 * The home of each database's composite ceilings: a database of their own (SQLite: a file; PostgreSQL:
 * a schema of the raw database), apart from the project server's, so that the project's worker never
 * dispatches their events while they are measured. The project itself makes it what the project's
 * is: a project server started on it migrates it and seeds its catalogue, a clinic is provisioned
 * through the HTTP APIs as the main one is (formulary, practitioners, patients, orders to read), a
 * key is issued to each composite ceiling, and the server is stopped before any ceiling starts.
 * `startProvisioner({ database, env })` starts that server (setup.js). Resolves with
 * `{ database: { url, redisUrl, clinic, keys, pid } }`.
 */
export async function provisionCompositeHomes({ tmp, needed, databases, postgres, startProvisioner }) {
  // Each database's at once (as setup.js starts the servers); every provisioning server is stopped here.
  const outcomes = await Promise.allSettled(
    databases.map(async ({ database, redisUrl }) => {
      const keys = [...needed].filter((key) => CEILINGS[key].scenario && CEILINGS[key].database === database);
      if (keys.length === 0) return null;
      const url = database === 'sqlite' ? path.join(tmp, 'composite.sqlite') : await postgres.schemaUrl('composite');
      const server = await startProvisioner({ database, env: projectEnvironment({ databaseUrl: url, redisUrl }) });
      log(`composite ceilings on ${database}: provisioning their database through a project server (pid ${server.pid})`);
      try {
        const clinic = await provisionClinic(server.baseUrl, `Bench composite clinic (${database})`);
        const issued = {};
        for (const key of keys) issued[key] = await issueKey(clinic);
        return [database, { url, redisUrl, clinic, keys: issued, pid: server.pid }];
      } finally {
        await server.stop();
      }
    }),
  );
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return Object.fromEntries(outcomes.map((outcome) => outcome.value).filter(Boolean));
}

/*
 * Before the rounds, each composite ceiling is sent its scenario's first request, and the project the
 * same request on its own clinic. Both must answer alike: the same status, the same header names, and
 * a body of the same shape (keys and kinds of value, recursively; ids and times differ). A ceiling
 * that answers otherwise does other work than the route, and its ratio means little: the differences
 * are logged and printed under the table.
 */

/** The first request of a load (scenarios.js `load`, load.js): method, path and body. */
function firstRequest(load) {
  switch (load.kind) {
    case 'fixed':
      return { method: load.method, path: load.path };
    case 'rotate':
      return { method: load.method, path: load.paths[0] };
    case 'practitioner':
      return { method: 'POST', path: '/api/external/practitioner', body: practitionerBody(load.clinicId, 'check') };
    case 'patient':
      return {
        method: 'POST',
        path: '/api/external/patient',
        body: patientBody(load.clinicId, load.practitionerIds[0], 'check'),
      };
    case 'order': {
      const [{ patientId, practitionerId }] = load.patients;
      return {
        method: 'POST',
        path: '/api/external/medication-order',
        body: orderBody(load.clinicId, patientId, practitionerId),
      };
    }
    default:
      throw new Error(`no check for load kind ${load.kind}`);
  }
}

async function answer(baseUrl, key, { method, path, body }) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    // Compared as a shape below: not JSON is a shape of its own.
  }
  return { status: response.status, headers: [...response.headers.keys()].sort(), body: json };
}

/** Keys and kinds of value, recursively; an array by its first element. */
function shapeOf(value) {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])];
  if (value === null) return null;
  if (typeof value === 'object') return Object.fromEntries(Object.keys(value).map((key) => [key, shapeOf(value[key])]));
  return typeof value;
}

/** What differs between the project's answer and the ceiling's, in words (empty: none). */
function differences(project, ceiling) {
  const found = [];
  if (project.status !== ceiling.status) found.push(`status ${project.status} vs ${ceiling.status}`);
  const only = (a, b) => a.headers.filter((name) => !b.headers.includes(name));
  if (only(project, ceiling).length > 0) found.push(`headers only the project sends: ${only(project, ceiling).join(', ')}`);
  if (only(ceiling, project).length > 0) found.push(`headers only the ceiling sends: ${only(ceiling, project).join(', ')}`);
  const [a, b] = [JSON.stringify(shapeOf(project.body)), JSON.stringify(shapeOf(ceiling.body))];
  if (a !== b) found.push(`body shape ${a} vs ${b}`);
  return found;
}

/**
 * Checks every composite ceiling of `ceilings` against the project server of its database
 * (`targets`); resolves with `[{ ceiling, differences }]`, one per ceiling that answers otherwise.
 */
export async function checkComposites({ targets, ceilings }) {
  const found = [];
  for (const [key, ceiling] of Object.entries(ceilings)) {
    const { scenario: name, database, label } = CEILINGS[key];
    if (!name) continue;
    const target = targets.find((t) => t.database === database);
    const scenario = SCENARIOS.find((s) => s.name === name);
    const project = await answer(target.server.baseUrl, target.clinic.key, firstRequest(scenario.load(target.clinic)));
    const own = await answer(ceiling.baseUrl, ceiling.apiKey, firstRequest(ceiling.load));
    const seen = differences(project, own);
    if (seen.length > 0) {
      log(`${label} does not answer as the project: ${seen.join('; ')}`);
      found.push({ ceiling: CEILINGS[key].name, differences: seen });
    }
  }
  return found;
}
