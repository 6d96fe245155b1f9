import { Type } from '@sinclair/typebox';
import { NameText, Nullable, Timestamp, Uuid } from '../contracts/schemas.js';
import { Email, Password, SignInPassword, TotpCode } from '../accounts/account.schemas.js';
import { PARTNER_USER_ROLES } from './partner-user.tables.js';

export const PartnerUserRoleSchema = Type.Union(
  PARTNER_USER_ROLES.map((role) => Type.Literal(role)),
  {
    description:
      '`developer`: manages the clinic\u2019s API keys and webhook endpoints, resends deliveries, drives the sandbox. `viewer`: reads only.',
  },
);

export const PortalSignInBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254 }),
    password: SignInPassword,
    totp_code: Type.Optional(TotpCode),
  },
  { additionalProperties: false },
);

export const PortalSession = Type.Object(
  {
    partner_user_id: Uuid(),
    email: Type.String(),
    name: Nullable(Type.String()),
    role: PartnerUserRoleSchema,
    clinic_id: Uuid(),
    clinic_name: Type.String(),
    environment: Type.Union([Type.Literal('development'), Type.Literal('production')]),
    totp_enabled: Type.Boolean({ description: 'Whether sign-in asks for a code of an authenticator app.' }),
    idle_timeout_minutes: Type.Integer({ description: 'The session ends after this long without a request.' }),
  },
  { additionalProperties: false },
);

export const InvitationParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) });

export const InvitationView = Type.Object(
  { email: Type.String(), clinic_name: Type.String(), role: PartnerUserRoleSchema, expires_at: Timestamp },
  { additionalProperties: false },
);

export const AcceptInvitationBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 100 }), name: NameText(200), password: Password },
  { additionalProperties: false },
);

export const PartnerUser = Type.Object(
  {
    partner_user_id: Uuid(),
    clinic_id: Uuid(),
    email: Type.String(),
    name: Nullable(Type.String()),
    role: PartnerUserRoleSchema,
    status: Type.Union([Type.Literal('invited'), Type.Literal('active'), Type.Literal('disabled')], {
      description: '`invited`: no password set yet; `active`: can sign in; `disabled`: cannot, sessions ended.',
    }),
    totp_enabled: Type.Boolean(),
    created_at: Timestamp,
    activated_at: Nullable(Timestamp),
    disabled_at: Nullable(Timestamp),
  },
  { additionalProperties: false },
);

export const InvitePartnerUserBody = Type.Object({ email: Email, role: PartnerUserRoleSchema }, { additionalProperties: false });

export const InvitationCreated = Type.Object(
  {
    partner_user: PartnerUser,
    invitation_url: Type.String({
      description: 'The single-use link to send the person (shown once): it sets their password, and lasts 72 hours.',
    }),
    expires_at: Timestamp,
  },
  { additionalProperties: false },
);
