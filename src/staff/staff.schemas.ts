import { Type } from '@sinclair/typebox';
import { NameText, Nullable, StringEnum, Timestamp, Uuid } from '../contracts/schemas.js';
import { STAFF_ROLES } from './staff.tables.js';
import { Email, Password, SignInPassword, TotpCode } from '../accounts/account.schemas.js';

/** As `{type: string, enum}`: a bad role gets one "must be one of" message listing the three. */
export const StaffRoleSchema = StringEnum(
  STAFF_ROLES,
  '`admin`: everything, staff and API keys included. `pharmacist`: the order queue and its transitions, holds, sign-offs (as themselves), fills, shipments, formularies, webhook deliveries and their retries; reads clinics, carriers, the dashboard and the audit trail. `technician`: reads the queue, orders, holds and the recall of a lot; records fills, adds shipments and tracking events, prints labels; no sign-off, move, hold, formulary, staff or audit trail. The roles table of docs/console.md lists every route.',
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
