import { Type, type Static } from '@sinclair/typebox';
import { Nullable, PageQuery, Timestamp, Uuid } from '../contracts/schemas.js';
import { AUDIT_ACTIONS, AUDIT_RESOURCE_TYPES } from './audit-vocabulary.js';
import { orList } from '../shared/words.js';

const ActionSchema = Type.Union(
  AUDIT_ACTIONS.map((a) => Type.Literal(a)),
  { description: `${orList(AUDIT_ACTIONS)} (see docs/audit.md).` },
);

/** The kinds of actor the trail records (audit/audit-actor.ts). */
export const AUDIT_ACTOR_TYPES = ['partner', 'oauth_client', 'staff', 'partner_user', 'operator', 'command_line'] as const;

const Instant = (description: string) =>
  Type.String({ format: 'date-time', maxLength: 40, description: `${description} An ISO 8601 date-time with its offset.` });

export const AuditEventListQuery = Type.Object(
  {
    from: Type.Optional(Instant('Only events at or after this instant.')),
    to: Type.Optional(Instant('Only events before this instant (not included); not before `from`.')),
    resource_type: Type.Optional(
      Type.Union(
        AUDIT_RESOURCE_TYPES.map((r) => Type.Literal(r)),
        { description: 'Only resources of this type.' },
      ),
    ),
    resource_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Only this resource (a shipping service: `<carrier id>/<service id>`).',
      }),
    ),
    clinic_id: Type.Optional(Uuid('Only rows of this clinic (its partners\u2019, and the operator\u2019s on its resources).')),
    action: Type.Optional(ActionSchema),
    actor_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Only this actor: a staff id, a partner\u2019s API key id, or an OAuth client\u2019s client_id.',
      }),
    ),
    actor_type: Type.Optional(
      Type.Union(
        AUDIT_ACTOR_TYPES.map((a) => Type.Literal(a)),
        {
          description:
            'Only this kind of actor: partner (an API key), oauth_client, staff, operator (the shared operator token) or command_line.',
        },
      ),
    ),
    include_own_reads: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'The caller\u2019s own reads (what the console showed them, or the operator token\u2019s) are left out unless this is true.',
      }),
    ),
    ...PageQuery,
  },
  { additionalProperties: false },
);
export type AuditEventListQuery = Static<typeof AuditEventListQuery>;

const PartnerActor = Type.Object(
  { type: Type.Literal('partner'), api_key_id: Uuid('The API key the request was made with.'), clinic_id: Uuid() },
  { additionalProperties: false },
);
const OAuthClientActor = Type.Object(
  {
    type: Type.Literal('oauth_client'),
    oauth_client_id: Uuid('The OAuth client whose access token the request was made with (its client_id).'),
    clinic_id: Uuid(),
  },
  { additionalProperties: false },
);
const StaffActor = Type.Object(
  {
    type: Type.Literal('staff'),
    staff_id: Uuid('The staff member signed in to the console.'),
    email: Type.String(),
    name: Nullable(Type.String({ description: 'Their name when they acted; null on rows recorded before names were.' })),
  },
  { additionalProperties: false },
);
const PartnerUserActor = Type.Object(
  {
    type: Type.Literal('partner_user'),
    partner_user_id: Uuid('The person of the clinic signed in to the partner portal.'),
    email: Type.String(),
    name: Nullable(Type.String({ description: 'Their name when they acted, if they gave one.' })),
    clinic_id: Uuid(),
  },
  { additionalProperties: false, description: 'A person of a clinic signed in to the partner portal (/portal).' },
);
const OperatorActor = Type.Object(
  { type: Type.Literal('operator') },
  { additionalProperties: false, description: 'The holder of the shared operator token (ADMIN_TOKEN): no person is known.' },
);
const CommandLineActor = Type.Object(
  {
    type: Type.Literal('command_line'),
    name: Type.String({ description: 'The operator, as `--operator` named them, or else the OS user who ran the command.' }),
  },
  { additionalProperties: false, description: 'Someone at the operator command line (npm run admin).' },
);

export const AuditEvent = Type.Object(
  {
    audit_event_id: Uuid(),
    at: Timestamp,
    actor: Type.Union([PartnerActor, OAuthClientActor, StaffActor, PartnerUserActor, OperatorActor, CommandLineActor]),
    actor_name: Nullable(
      Type.String({
        description:
          'Who, by name: a staff member\u2019s name, "Operator token", or the command line\u2019s operator. Null for a partner\u2019s credential (named by its id) and for rows recorded before names were.',
      }),
    ),
    clinic_id: Nullable(Uuid('The partner\u2019s clinic, or the clinic of the resource the operator acted on.')),
    action: ActionSchema,
    resource_type: Type.Union(AUDIT_RESOURCE_TYPES.map((r) => Type.Literal(r))),
    resource_id: Type.String(),
    request_id: Nullable(
      Type.String({ description: 'The id the server gave the request, answered as its X-Request-Id (null without a request).' }),
    ),
    client_request_id: Nullable(
      Type.String({
        description:
          'The X-Request-Id the client sent, if any (at most 128 printable ASCII characters; anything else is dropped). Never the row’s request id.',
      }),
    ),
    client_address: Nullable(Type.String({ description: 'The client address the server saw (after TRUST_PROXY).' })),
    resource_clinic_id: Nullable(
      Uuid(
        'On an access_denied row: the clinic the record really belongs to (the partner was answered 404, as for an unknown id). Null otherwise.',
      ),
    ),
  },
  { additionalProperties: false },
);
export type AuditEventView = Static<typeof AuditEvent>;
