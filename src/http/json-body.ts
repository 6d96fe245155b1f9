import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { AppError, fieldError } from '../errors.js';
import { jsonShapeProblem, MAX_JSON_DEPTH } from './json-shape.js';

/**
 * JSON bodies: bytes that are not valid UTF-8 are refused naming the field that holds them (they
 * were once read as U+FFFD and stored so), an empty body is no body (a partner sending the spec's
 * required Content-Type on a POST without a body is not refused), a body nested too deep or holding
 * too many entries is refused before it is parsed (json-shape.ts), and prototype-poisoning keys
 * (`__proto__`, `constructor.prototype`) are refused rather than silently dropped.
 */
export function registerJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, bytes: Buffer, done) => {
    try {
      done(null, parseJsonBytes(bytes));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

/**
 * A JSON body's bytes as the API reads every JSON body (above): undefined when blank; an AppError
 * (400 naming the field) for bytes that are not UTF-8, a shape over the bounds, malformed JSON or
 * prototype-poisoning keys. For a route that must see the raw bytes first (a signed body:
 * shipments/easypost.routes.ts), then parses them the same way.
 */
export function parseJsonBytes(bytes: Buffer): unknown {
  const text = decodeUtf8(bytes);
  if (text === null) throw fieldError(fieldOfInvalidUtf8(bytes), 'must be valid UTF-8');
  if (text.trim() === '') return undefined;
  const problem = jsonShapeProblem(text);
  if (problem) throw fieldError('body', problem);
  try {
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    throw bodyError(error);
  }
}

// Strict: invalid bytes throw instead of becoming U+FFFD. A byte order mark is kept, as before (the
// JSON parser refuses it as malformed JSON).
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text of `bytes`, or null when they are not valid UTF-8. */
function decodeUtf8(bytes: Buffer): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/** Where the first byte that is not part of valid UTF-8 is (the bytes are known to hold one). */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] ?? 0;
    if (lead < 0x80) {
      i += 1;
      continue;
    }
    // The length of the sequence, and the range its second byte must be in (RFC 3629 §4: no
    // overlong forms, no surrogates, nothing above U+10FFFF).
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else return i;
    if (i + length > bytes.length) return i;
    const second = bytes[i + 1] ?? 0;
    if (second < low || second > high) return i;
    for (let k = 2; k < length; k++) {
      const next = bytes[i + k] ?? 0;
      if (next < 0x80 || next > 0xbf) return i;
    }
    i += length;
  }
  return i;
}

type Container = { kind: 'object'; key: string | null; expectingKey: boolean } | { kind: 'array'; index: number };

/**
 * The field whose string holds the first invalid bytes, named as validation names fields
 * (`addresses[0].city`, `medication_requests[1].notes`): the valid text before those bytes is
 * walked as JSON, one pass, keeping the path to where they start. `body` when they are not inside a
 * string value (in a key, or where no JSON may be), or the body nests deeper than it may.
 */
export function fieldOfInvalidUtf8(bytes: Buffer): string {
  const text = bytes.subarray(0, firstInvalidUtf8(bytes)).toString('utf8');
  const stack: Container[] = [];
  let stringStart = -1;
  let stringIsKey = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    const top = stack[stack.length - 1];
    if (stringStart >= 0) {
      if (char === '\\') i += 1;
      else if (char === '"') {
        if (stringIsKey && top?.kind === 'object') top.key = keyOf(text.slice(stringStart, i + 1));
        stringStart = -1;
      }
      continue;
    }
    switch (char) {
      case '"':
        stringStart = i;
        stringIsKey = top?.kind === 'object' && top.expectingKey;
        break;
      case '{':
        if (stack.length >= MAX_JSON_DEPTH) return 'body';
        stack.push({ kind: 'object', key: null, expectingKey: true });
        break;
      case '[':
        if (stack.length >= MAX_JSON_DEPTH) return 'body';
        stack.push({ kind: 'array', index: 0 });
        break;
      case '}':
      case ']':
        stack.pop();
        break;
      case ':':
        if (top?.kind === 'object') top.expectingKey = false;
        break;
      case ',':
        if (top?.kind === 'array') top.index += 1;
        else if (top?.kind === 'object') {
          top.expectingKey = true;
          top.key = null;
        }
        break;
      default:
        break;
    }
  }
  if (stringStart < 0 || stringIsKey) return 'body';
  return echoable(pathOf(stack)) || 'body';
}

/** A key as JSON reads it (`"a\u0062"` is `ab`); as written when it does not read. */
function keyOf(quoted: string): string {
  try {
    return String(JSON.parse(quoted));
  } catch {
    return quoted.slice(1, -1);
  }
}

function pathOf(stack: Container[]): string {
  let path = '';
  for (const container of stack) {
    if (container.kind === 'array') path += `[${container.index}]`;
    else if (container.key !== null) path = path === '' ? container.key : `${path}.${container.key}`;
    else return path;
  }
  return path;
}

/** A field name as an answer may repeat it (as validation.ts does): an unknown one can be long. */
const echoable = (field: string): string => (field.length <= 64 ? field : `${field.slice(0, 64)}…`);

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
