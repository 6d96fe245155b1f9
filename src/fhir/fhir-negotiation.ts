import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

/*
 * The FHIR API speaks JSON only (docs/fhir.md): `application/fhir+json`, or `application/json` for a
 * client that asks for that. `_format` overrides Accept (FHIR R4 §3.1.0.1.6). XML, Turtle or any other
 * type is a 406. A search or read carries no body, so Content-Type is not looked at.
 */

export const FHIR_JSON = 'application/fhir+json';

/** Media types we answer: FHIR's JSON, its DSTU2 spelling, plain JSON and the wildcards. */
const ACCEPTED = new Set([FHIR_JSON, 'application/json+fhir', 'application/json', 'application/*', '*/*']);
/** `_format`'s JSON spellings (FHIR R4 §3.1.0.1.6), besides the media types. */
const FORMATS = new Set(['json', FHIR_JSON, 'application/json+fhir', 'application/json']);

/** 406 unless the request accepts FHIR JSON, by `_format` when given, else by Accept. */
export function checkFhirNegotiation(request: FastifyRequest): void {
  const format = (request.query as Record<string, unknown> | undefined)?._format;
  if (typeof format === 'string') {
    const type = format.split(';')[0]?.trim().toLowerCase() ?? '';
    if (!FORMATS.has(type)) throw notAcceptable(`_format=${format.slice(0, 60)}`);
    return;
  }
  const accept = request.headers.accept;
  if (accept === undefined || accept.trim() === '') return;
  const accepted = accept.split(',').some((range) => {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    return ACCEPTED.has(type) && !(q !== undefined && Number(q.slice(2)) === 0);
  });
  if (!accepted) throw notAcceptable(`Accept: ${accept.slice(0, 60)}`);
}

const notAcceptable = (asked: string) =>
  new AppError('NOT_ACCEPTABLE', 406, `Not acceptable (${asked}): this FHIR server answers ${FHIR_JSON} only`);
