import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { AppError, fieldError } from '../errors.js';
import { jsonShapeProblem } from './json-shape.js';

/**
 * JSON bodies: an empty body is no body (a partner sending the spec's required Content-Type on
 * a POST without a body is not refused), a body nested too deep or holding too many entries is
 * refused before it is parsed (json-shape.ts), and prototype-poisoning keys (`__proto__`,
 * `constructor.prototype`) are refused rather than silently dropped.
 */
export function registerJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    const problem = jsonShapeProblem(text);
    if (problem) {
      done(fieldError('body', problem), undefined);
      return;
    }
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch (error) {
      done(bodyError(error), undefined);
    }
  });
}

function bodyError(error: unknown): AppError {
  const message = error instanceof Error ? error.message : '';
  if (/prototype property/i.test(message)) {
    // secure-json-parse says the same words for both keys.
    return new AppError('VALIDATION_ERROR', 400, 'Forbidden key in request body: __proto__ or constructor.prototype', {
      body: 'must not contain the keys __proto__ or constructor.prototype',
    });
  }
  // The parser's position helps; its other words may quote the body back, so they are left out.
  const position = /at position (\d+)/.exec(message)?.[1];
  return new AppError('VALIDATION_ERROR', 400, `Malformed JSON in request body${position ? ` at position ${position}` : ''}`, {
    body: 'must be valid JSON',
  });
}
