import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { operatorAudit } from '../http/audit-context.js';
import { publicBaseUrl } from '../http/request-host.js';
import { operatorErrors, Envelope, errorRef, operatorSecurity, Uuid } from '../contracts/schemas.js';
import {
  disablePartnerUser,
  invitePartnerUser,
  listPartnerUsers,
  reinvitePartnerUser,
  type Invitation,
} from './partner-user.service.js';
import { InvitationCreated, InvitePartnerUserBody, PartnerUser } from './portal-session.schemas.js';

const tags = ['Operator'];
const security = operatorSecurity;

/** Where an invitation's link points: the invitation page, its token in the fragment (never sent to a server or logged). */
export function invitationUrl(baseUrl: string, token: string): string {
  return `${baseUrl}/portal/invitation#${token}`;
}

/**
 * The operator's side of the partner portal's accounts (issue 22; docs/portal.md): invite a person
 * of a clinic, send a new link, disable. Admins only (operator-roles.ts), listing aside.
 */
export function partnerUserOperatorRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const created = (request: FastifyRequest, invitation: Invitation) => ({
    partner_user: invitation.partner_user,
    invitation_url: invitationUrl(publicBaseUrl(request, ctx.config), invitation.token),
    expires_at: invitation.expires_at,
  });

  return async (app) => {
    app.post(
      '/api/admin/clinics/:clinicId/partner-users',
      {
        schema: {
          tags,
          security,
          operationId: 'inviteOperatorPartnerUser',
          summary: 'Invite a person of a clinic to the partner portal',
          description:
            'Creates the account and a single-use link (valid 72 hours) through which the person sets their password. The link is in this answer only: send it to them.',
          params: Type.Object({ clinicId: Uuid() }),
          body: InvitePartnerUserBody,
          response: {
            200: Envelope(InvitationCreated),
            ...operatorErrors,
            409: errorRef('This email already has a portal account.'),
          },
        },
      },
      async (request) => {
        const invitation = await invitePartnerUser(
          ctx,
          { clinicId: request.params.clinicId, email: request.body.email, role: request.body.role },
          operatorAudit(request),
        );
        return { success: true as const, data: created(request, invitation), message: 'Portal user invited' };
      },
    );

    app.get(
      '/api/admin/clinics/:clinicId/partner-users',
      {
        schema: {
          tags,
          security,
          operationId: 'listOperatorPartnerUsers',
          summary: 'A clinic\u2019s partner portal users',
          params: Type.Object({ clinicId: Uuid() }),
          response: {
            200: Envelope(Type.Object({ partner_users: Type.Array(PartnerUser) }, { additionalProperties: false })),
            ...operatorErrors,
          },
        },
      },
      async (request) => ({
        success: true as const,
        data: { partner_users: await listPartnerUsers(ctx, request.params.clinicId) },
        message: 'Portal users',
      }),
    );

    app.post(
      '/api/admin/partner-users/:partnerUserId/invitation',
      {
        schema: {
          tags,
          security,
          operationId: 'reinviteOperatorPartnerUser',
          summary: 'Send a portal user a new link',
          description:
            'A new single-use link (72 hours) for a lost invitation or a forgotten password; earlier links stop working. Using it sets a new password and ends the account\u2019s sessions.',
          params: Type.Object({ partnerUserId: Uuid() }),
          response: { 200: Envelope(InvitationCreated), ...operatorErrors, 409: errorRef('The account is disabled.') },
        },
      },
      async (request) => {
        const invitation = await reinvitePartnerUser(ctx, request.params.partnerUserId, operatorAudit(request));
        return { success: true as const, data: created(request, invitation), message: 'New link made' };
      },
    );

    app.post(
      '/api/admin/partner-users/:partnerUserId/disable',
      {
        schema: {
          tags,
          security,
          operationId: 'disableOperatorPartnerUser',
          summary: 'Disable a portal user',
          description: 'The account can no longer sign in; its sessions and links end at once.',
          params: Type.Object({ partnerUserId: Uuid() }),
          response: { 200: Envelope(PartnerUser), ...operatorErrors },
        },
      },
      async (request) => ({
        success: true as const,
        data: await disablePartnerUser(ctx, request.params.partnerUserId, operatorAudit(request)),
        message: 'Portal user disabled',
      }),
    );
  };
}
