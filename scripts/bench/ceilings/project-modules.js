// What the ceilings take from the compiled server (BENCH_DIST: dist/ or the test build, given by the
// benchmark), and nothing else: the route schemas (validation and serialization, the response schema
// being the PHI allow-list), the validation rules and JSON body parser every partner route has, and
// small pure helpers and constants (security headers, log redaction, state names, NPI check). All
// I/O, hooks and plumbing of the ceilings is their own plain code.
import path from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

const DIST = process.env.BENCH_DIST;
if (!DIST) throw new Error('BENCH_DIST (the compiled server’s folder) is not set');

/** Where the order area's modules are, and its names, in each layout of the sources. */
const ORDER_AREAS = {
  'medication-requests': {
    schemas: 'medication-requests/medication-request.schemas.js',
    names: { body: 'CreateMedicationRequestBody', created: 'CreateMedicationRequestData', view: 'MedicationRequestView' },
  },
  orders: {
    schemas: 'orders/order.schemas.js',
    names: { body: 'CreateOrderBody', created: 'CreateOrderData', view: 'OrderView' },
  },
};
/** The one line to switch once src/medication-requests/ has become src/orders/ (issue 19, item 5). */
const ORDER_AREA = ORDER_AREAS.orders;

const load = (file) => import(pathToFileURL(path.join(DIST, file)).href);

const [orderSchemas, carrierSchemas, practitionerSchemas, patientSchemas, httpSchemas] = await Promise.all([
  load(ORDER_AREA.schemas),
  load('shipping/carrier.schemas.js'),
  load('practitioners/practitioner.schemas.js'),
  load('patients/patient.schemas.js'),
  load('contracts/schemas.js'),
]);
const [
  errors,
  errorHandler,
  validation,
  jsonBody,
  securityHeaders,
  logging,
  frameworkErrors,
  negotiation,
  address,
  states,
  npi,
  dates,
] = await Promise.all([
  load('errors.js'),
  load('contracts/error-handler.js'),
  load('contracts/validation.js'),
  load('http/json-body.js'),
  load('http/security-headers.js'),
  load('http/logging.js'),
  load('http/framework-errors.js'),
  load('http/content-negotiation.js'),
  load('http/client-address.js'),
  load('reference/us-states.js'),
  load('practitioners/npi.js'),
  load('reference/calendar-date.js'),
]);
/** The first of `files` a build has (its rooms moved in issue 38), or `fallback` when it has none. */
async function loadFirst(files, fallback) {
  for (const file of files) {
    try {
      return await load(file);
    } catch {
      // Not in this build's layout: the next one.
    }
  }
  return fallback;
}
// A build from before holds (issue 29) has none: the same scripts bench it too.
const holdReasons = await loadFirst(['holds/hold-reasons.js', 'orders/hold-reasons.js'], { HOLD_REASONS: [] });
// A build from before shipments (issue 31) has no tracking pages.
const trackingUrls = await loadFirst(['shipments/tracking-url.js', 'orders/tracking-url.js'], { trackingUrl: () => null });

/** `{ success: true, data, message }` around a data schema (contracts/schemas.ts). */
export const { Envelope } = httpSchemas;

// The order as partners read it, assembled above the pharmacy's rooms since issue 38; before, beside the body.
const orderViewSchemas = await loadFirst(['fulfillment/order-view.schemas.js'], orderSchemas);

export const ORDER = {
  body: orderSchemas[ORDER_AREA.names.body],
  created: orderSchemas[ORDER_AREA.names.created],
  view: orderViewSchemas[ORDER_AREA.names.view],
  idParams: orderSchemas.IdParams,
};
/** The hold reasons catalog, whose texts the order view shows (`hold.reason`). */
export const { HOLD_REASONS } = holdReasons;
/** The carrier's public tracking page of a tracking number (pure). */
export const { trackingUrl } = trackingUrls;
export const CARRIERS = carrierSchemas;
export const PRACTITIONER = {
  body: practitionerSchemas.PractitionerCreateBody,
  created: practitionerSchemas.PractitionerCreated,
};
export const PATIENT = { body: patientSchemas.PatientCreateBody, created: patientSchemas.PatientCreated };

/** The project's error type and its one mapping to the error envelope (refusals only: the benchmark sends none). */
export const { AppError } = errors;
export const { registerErrorHandler } = errorHandler;
/** The project's Ajv set-up (text rules, sizes first, formats) and its JSON body parser (shape limits, no prototype keys). */
export const { validatorCompiler } = validation;
export const { registerJsonParser } = jsonBody;
/** Helmet's headers as the project computes them once, and the no-store it adds. */
export const { HELMET_HEADERS, BASELINE_SECURITY_HEADERS } = securityHeaders;
export const { LOG_REDACT_PATHS } = logging;
/** Host required, Expect only 100-continue; Accept and Content-Type JSON: the checks of every partner request. */
export const { checkHttpRules } = frameworkErrors;
export const { checkContentNegotiation } = negotiation;
export const { addressBucketOf, clientAddress } = address;
export const { stateName } = states;
export const { isValidNpi } = npi;
export const { dobProblem } = dates;
