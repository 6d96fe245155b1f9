import type { FastifyReply } from 'fastify';
import { AppError, unauthorized } from '../errors.js';
import { SECOND_FACTOR_MISSING, SECOND_FACTOR_WRONG } from './second-factor.service.js';

/** A sign-in that did not sign in, the console's or the portal's (staff.service.ts, partner-user.service.ts). */
export type SignInRefusal =
  { kind: 'refused' } | { kind: 'second_factor'; codeGiven: boolean } | { kind: 'locked'; retryAfterSeconds: number };

/**
 * The answer to a refused sign-in: 401 without saying whether the email has an account, 401 naming
 * `totp_code` when the password was right and the code is missing or wrong, or 429 with Retry-After
 * while the email is locked.
 */
export function signInRefusal(outcome: SignInRefusal, reply: FastifyReply): AppError {
  switch (outcome.kind) {
    case 'locked':
      reply.header('Retry-After', outcome.retryAfterSeconds);
      return new AppError(
        'RATE_LIMIT_EXCEEDED',
        429,
        `Too many failed sign-ins for this email: try again in ${Math.ceil(outcome.retryAfterSeconds / 60)} minutes`,
        undefined,
        { retry_after: outcome.retryAfterSeconds },
      );
    case 'refused':
      return unauthorized('email or password is incorrect');
    case 'second_factor':
      return new AppError(
        'UNAUTHORIZED',
        401,
        outcome.codeGiven ? 'The authenticator code is wrong' : 'Two-step sign-in: enter the code of your authenticator app',
        { totp_code: outcome.codeGiven ? SECOND_FACTOR_WRONG : SECOND_FACTOR_MISSING },
      );
  }
}
