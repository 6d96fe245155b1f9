import { Type } from '@sinclair/typebox';
import { NameText, Nullable, Timestamp, Uuid } from '../http/schemas.js';
import { STAFF_ROLES } from './staff.tables.js';
import { TotpCode } from '../portal/portal-session.schemas.js';

export const StaffRoleSchema = Type.Union(
  STAFF_ROLES.map((role) => Type.Literal(role)),
  {
    description:
      '`admin`: everything, staff and API keys included. `pharmacist`: the order queue and its transitions, formularies, webhook deliveries and their retries; reads clinics, carriers and the audit trail.',
  },
);

const Email = Type.String({ format: 'email', minLength: 3, maxLength: 254, description: 'Compared without case.' });

/**
 * 12 characters at least; at most 256, so that hashing one costs bounded work. Its strength is the
 * service's to judge (staff/password-strength.ts).
 */
const Password = Type.String({
  minLength: 12,
  maxLength: 256,
  // A password's characters are its owner's choice (shared/text.ts).
  'x-text': 'secret',
  description:
    'At least 12 characters, and hard to guess: refused (400, naming `password`, with advice) when zxcvbn scores it under 3 or it is a common password. A few unrelated words make a good one.',
});

export const CreateStaffBody = Type.Object(
  { email: Email, name: NameText(200), role: StaffRoleSchema, password: Password },
  { additionalProperties: false },
);

export const StaffMember = Type.Object(
  {
    staff_id: Uuid(),
    email: Type.String(),
    name: Type.String(),
    role: StaffRoleSchema,
    created_at: Timestamp,
    disabled_at: Nullable(Timestamp),
  },
  { additionalProperties: false },
);

export const StaffParams = Type.Object({ staffId: Uuid('The staff member\u2019s id.') });

export const SignInBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: 256, 'x-text': 'secret' }),
    totp_code: Type.Optional(TotpCode),
  },
  { additionalProperties: false },
);

export const Session = Type.Object(
  {
    staff_id: Uuid(),
    email: Type.String(),
    name: Type.String(),
    role: StaffRoleSchema,
    idle_timeout_minutes: Type.Integer({ description: 'The session ends after this long without a request.' }),
    totp_enabled: Type.Boolean({ description: 'Whether sign-in asks for a code of an authenticator app.' }),
    totp_required: Type.Boolean({
      description:
        'True when REQUIRE_ADMIN_TOTP asks this admin for two-step sign-in and it is not on yet: until it is, only the account’s routes answer (403 otherwise).',
    }),
  },
  { additionalProperties: false },
);
