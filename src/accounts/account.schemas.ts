import { Type } from '@sinclair/typebox';

/** The schemas both kinds of accounts share: staff (console) and partner users (portal). */

export const Email = Type.String({ format: 'email', minLength: 3, maxLength: 254, description: 'Compared without case.' });

/**
 * 12 characters at least; at most 256, so that hashing one costs bounded work. Its strength is the
 * service's to judge (staff/password-strength.ts).
 */
export const Password = Type.String({
  minLength: 12,
  maxLength: 256,
  // A password's characters are its owner's choice (shared/text.ts).
  'x-text': 'secret',
  description:
    'At least 12 characters, and hard to guess: refused (400, naming `password`, with advice) when zxcvbn scores it under 3 or it is a common password. A few unrelated words make a good one.',
});

/** A sign-in's password: any length the hash accepts (a wrong one is a 401, not a 400). */
export const SignInPassword = Type.String({ minLength: 1, maxLength: 256, 'x-text': 'secret' });

export const TotpCode = Type.String({
  minLength: 1,
  maxLength: 10,
  'x-text': 'secret',
  description: 'The 6-digit code your authenticator app shows now.',
});

export const TotpCodeBody = Type.Object({ code: TotpCode }, { additionalProperties: false });

export const TotpEnrollment = Type.Object(
  {
    secret: Type.String({ description: 'Base32: type it into an authenticator app, or use `otpauth_uri`. Shown once.' }),
    otpauth_uri: Type.String({ description: 'The `otpauth://totp/…` URI an authenticator app reads.' }),
  },
  { additionalProperties: false },
);
