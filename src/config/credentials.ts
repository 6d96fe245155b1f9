import { randomBytes } from 'node:crypto';
import type { Environment } from './setting.js';

/** The settings that are shared secrets: ADMIN_TOKEN and EASYPOST_WEBHOOK_SECRET. Neither is ever quoted back. */

/**
 * ADMIN_TOKEN: as given; unset in development, one generated for this run (main.ts keeps it in
 * ./data/admin-token); unset in production, a problem.
 */
export function operatorTokenOf(
  value: string | undefined,
  environment: Environment,
  problems: string[],
): { token: string; generated: boolean } {
  if (value === undefined) {
    if (environment === 'production') problems.push('ADMIN_TOKEN is required in production');
    return { token: randomBytes(24).toString('base64url'), generated: true };
  }
  const problem = operatorTokenProblem(value, environment);
  if (problem) problems.push(problem);
  return { token: value, generated: false };
}

/**
 * What is wrong with an operator token, if anything (the token itself is never echoed). Production
 * asks for one a guesser cannot enumerate: 32 characters or more, and at least 16 distinct ones,
 * which refuses padding, repeated letters and short words (`openssl rand -base64 32` passes).
 */
function operatorTokenProblem(token: string, environment: Environment): string | null {
  // Code points, so that a character outside the BMP counts once.
  const characters = Array.from(token);
  if (environment !== 'production') {
    return characters.length < 16 ? 'ADMIN_TOKEN must be at least 16 characters' : null;
  }
  const advice = 'generate one with `openssl rand -base64 32`';
  if (token.trim() === '') return `ADMIN_TOKEN must not be only whitespace; ${advice}`;
  if (characters.length < 32) {
    return `ADMIN_TOKEN must be at least 32 characters in production, got ${characters.length}; ${advice}`;
  }
  const distinct = new Set(characters).size;
  if (distinct < 16) {
    return `ADMIN_TOKEN is too predictable: ${distinct} distinct characters, production needs at least 16; ${advice}`;
  }
  return null;
}

/**
 * EASYPOST_WEBHOOK_SECRET: unset → null (the receiver is off). Kept as given (EasyPost's libraries
 * NFKD-normalize it when they sign: shipments/easypost-signature.ts); never quoted back. In
 * production at least 16 characters: anyone who guesses it can forge carrier events.
 */
export function parseEasyPostWebhookSecret(
  value: string | undefined,
  environment: Environment,
  problems: string[],
): string | null {
  if (value === undefined) return null;
  if (value.trim() === '') {
    problems.push('EASYPOST_WEBHOOK_SECRET must not be only whitespace');
    return null;
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) {
    problems.push('EASYPOST_WEBHOOK_SECRET must not contain control characters (a line break pasted with it?)');
    return null;
  }
  if (environment === 'production' && Array.from(value).length < 16) {
    problems.push(
      'EASYPOST_WEBHOOK_SECRET must be at least 16 characters in production (set the same webhook_secret on the EasyPost webhook, e.g. from `openssl rand -hex 32`)',
    );
    return null;
  }
  return value;
}
