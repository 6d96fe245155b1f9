import { Type, type Static } from '@sinclair/typebox';
import { Nullable, PageQuery, Timestamp, Uuid } from '../http/schemas.js';
import { AUDIT_ACTIONS, AUDIT_RESOURCE_TYPES } from './audit-vocabulary.js';

const ActionSchema = Type.Union(
  AUDIT_ACTIONS.map((a) => Type.Literal(a)),
  { description: 'create, read, update, cancel, delete, transition, retry, test or access_denied (see docs/audit.md).' },
);

export const AuditEventListQuery = Type.Object(
  {
    resource_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only this resource.' })),
    clinic_id: Type.Optional(Uuid('Only rows of this clinic (its partners\u2019, and the operator\u2019s on its resources).')),
    action: Type.Optional(ActionSchema),
    actor_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Only this actor: a staff id, a partner\u2019s API key id, or an OAuth client\u2019s client_id.',
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
  { type: Type.Literal('staff'), staff_id: Uuid('The staff member signed in to the console.'), email: Type.String() },
  { additionalProperties: false },
);
const OperatorActor = Type.Object(
  { type: Type.Literal('operator') },
  { additionalProperties: false, description: 'The holder of the operator token.' },
);

export const AuditEvent = Type.Object(
  {
    audit_event_id: Uuid(),
    at: Timestamp,
    actor: Type.Union([PartnerActor, OAuthClientActor, StaffActor, OperatorActor]),
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
