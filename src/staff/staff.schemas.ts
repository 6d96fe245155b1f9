import { Type } from '@sinclair/typebox';
import { NameText, Nullable, Timestamp, Uuid } from '../contracts/schemas.js';
import { STAFF_ROLES } from './staff.tables.js';
import { Email, Password, SignInPassword, TotpCode } from '../accounts/account.schemas.js';

export const StaffRoleSchema = Type.Union(
  STAFF_ROLES.map((role) => Type.Literal(role)),
  {
    description:
      '`admin`: everything, staff and API keys included. `pharmacist`: the order queue and its transitions, formularies, webhook deliveries and their retries; reads clinics, carriers and the audit trail.',
  },
);

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
    password: SignInPassword,
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
