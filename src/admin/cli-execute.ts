import {
  createClinic,
  getClinic,
  issueApiKey,
  listApiKeys,
  listClinics,
  revokeApiKey,
  rollApiKey,
  setFreeShipping,
} from '../clinics/clinic.service.js';
import { readFileSync } from 'node:fs';
import type { AppContext } from '../context.js';
import { listDeprecations } from '../deprecations/deprecation.service.js';
import { AppError } from '../errors.js';
import { createOAuthClient, listOAuthClients, revokeOAuthClient } from '../oauth/oauth-client.service.js';
import { MAX_JWKS_KEYS } from '../oauth/jwks.js';
import type { OrderStatus } from '../orders/order-status.js';
import { transitionOrder } from '../fulfillment/order-moves.service.js';
import { addMedication, listFormulary, removeMedication } from '../medications/medication.service.js';
import { addService, createCarrier, listCatalogue, updateService } from '../shipping/catalogue.service.js';
import { invitationUrl } from '../portal/partner-user.operator-routes.js';
import { ownBaseUrl } from '../start-banner.js';
import { invitePartnerUser, reinvitePartnerUserByEmail, type Invitation } from '../portal/partner-user.service.js';
import type { PartnerUserRole } from '../portal/partner-user.tables.js';
import { createStaffMember } from '../staff/staff.service.js';
import { rotateTotpSecrets } from '../accounts/second-factor.service.js';
import type { StaffRole } from '../staff/staff.tables.js';
import { recoverEndpointForOperator } from '../webhooks/recovery.service.js';
import { retryDelivery } from '../webhooks/webhook-operator.service.js';
import { rotateEncryptionKey, type RotationResult } from '../webhooks/secret-encryption.service.js';
import { keyLifetime, parseScopes, parseStatePrice, UsageError, type Flag, type ParsedCommand } from './cli-commands.js';
import { commandLineAudit, osUserName } from './cli-operator.js';
import { parseFormulaFlag } from './cli-formula.js';

/** Checks a new staff member's password as the API does (12 to 256 characters); the problem, or null. */
export function passwordProblem(password: string): string | null {
  // Code points, as the API's maxLength/minLength count them.
  const length = Array.from(password).length;
  if (length < 12) return 'the password must be at least 12 characters';
  if (length > 256) return 'the password must be at most 256 characters';
  return null;
}

/**
 * Runs a parsed command through the services (the same as the /api/admin routes); the result is what
 * the CLI prints. `input.password` is create-staff's, read by the caller (terminal or standard input).
 * What it changes is audited as the command line's, by `--operator` or else the OS user
 * (`input.osUser`, default `os.userInfo()`), without a request id or a client address.
 */
export async function executeCommand(
  ctx: AppContext,
  { command, flags }: ParsedCommand,
  input: { password?: string; osUser?: () => string } = {},
): Promise<unknown> {
  const audit = () => commandLineAudit(flags.operator, input.osUser ?? osUserName);
  const need = (flag: Flag): string => {
    const value = flags[flag];
    if (typeof value !== 'string') throw new UsageError(`${command} needs --${flag}`, command);
    return value;
  };
  const statePrices = () => Object.fromEntries((flags['state-price'] ?? []).map(parseStatePrice));
  switch (command) {
    case 'create-clinic':
      return createClinic(ctx, { name: need('name'), free_shipping: flags['free-shipping'] === true }, audit());
    case 'list-clinics':
      return { clinics: await listClinics(ctx) };
    case 'set-free-shipping':
      return setFreeShipping(ctx, need('clinic'), need('enabled') === 'true', audit());
    case 'issue-key':
      return issueApiKey(ctx, need('clinic'), audit(), flags.environment as 'development' | 'production' | undefined, {
        scopes: flags.scopes === undefined ? undefined : parseScopes(flags.scopes),
        expiresInSeconds: flags['expires-in'] === undefined ? undefined : keyLifetime(command, flags['expires-in']),
      });
    case 'list-keys':
      return { api_keys: await listApiKeys(ctx, need('clinic')) };
    case 'revoke-key':
      return revokeApiKey(ctx, need('key-id'), audit());
    case 'roll-key':
      return rollApiKey(ctx, need('key-id'), keyLifetime(command, need('expires-in')), audit());
    case 'create-oauth-client':
      return createOAuthClient(
        ctx,
        need('clinic'),
        {
          scopes: parseScopes(need('scopes')),
          ...(flags.environment !== undefined ? { environment: flags.environment as 'development' | 'production' } : {}),
          ...(flags['jwks-file'] !== undefined ? { jwks: readJwksFile(flags['jwks-file']) } : {}),
        },
        audit(),
      );
    case 'list-oauth-clients':
      return { oauth_clients: await listOAuthClients(ctx, need('clinic')) };
    case 'revoke-oauth-client':
      return revokeOAuthClient(ctx, need('client-id'), audit());
    case 'add-medication':
      return addMedication(
        ctx,
        need('clinic'),
        {
          name: need('name'),
          ...(flags.strength !== undefined ? { strength: flags.strength } : {}),
          ...(flags['dosage-form'] !== undefined ? { dosage_form: flags['dosage-form'] } : {}),
          ...(flags.formula !== undefined ? parseFormulaFlag(flags.formula) : {}),
        },
        audit(),
      );
    case 'list-medications':
      return { medications: await listFormulary(ctx, need('clinic')) };
    case 'remove-medication':
      // As the operator route: an unknown clinic is told apart from an unknown medication.
      await getClinic(ctx, need('clinic'));
      await removeMedication(ctx, need('clinic'), need('medication'), audit());
      return { medication_id: need('medication') };
    case 'add-carrier':
      return createCarrier(ctx, { name: need('name'), ...(flags.id !== undefined ? { id: flags.id } : {}) }, audit());
    case 'list-carriers':
      return { carriers: await listCatalogue(ctx) };
    case 'add-service':
      return addService(
        ctx,
        need('carrier'),
        {
          name: need('name'),
          price: Number(need('price')),
          ...(flags.id !== undefined ? { id: flags.id } : {}),
          state_prices: statePrices(),
        },
        audit(),
      );
    case 'update-service':
      return updateService(
        ctx,
        need('carrier'),
        need('service'),
        {
          ...(flags.name !== undefined ? { name: flags.name } : {}),
          ...(flags.price !== undefined ? { price: Number(flags.price) } : {}),
          ...(flags['state-price'] !== undefined || flags['clear-state-prices'] ? { state_prices: statePrices() } : {}),
        },
        audit(),
      );
    case 'retry-delivery':
      return retryDelivery(ctx, need('delivery'), audit());
    case 'recover-endpoint':
      return recoverEndpointForOperator(ctx, need('webhook'), flags.since, audit());
    case 'move-order':
      return transitionOrder(ctx, 'all', need('order'), need('status') as OrderStatus, 'operator', audit(), {
        trackingNumber: flags['tracking-number'],
        reason: flags.reason,
      });
    case 'rotate-encryption-key':
      return rotateSecrets(ctx);
    case 'create-staff': {
      const password = input.password ?? '';
      const problem = passwordProblem(password);
      if (problem) throw new UsageError(problem, command);
      const staff = await createStaffMember(
        ctx,
        { email: need('email'), name: need('name'), role: need('role') as StaffRole, password },
        audit(),
      );
      return { staff_id: staff.staff_id, staff };
    }
    case 'invite-partner-user': {
      const invitation = await invitePartnerUser(
        ctx,
        { clinicId: need('clinic'), email: need('email'), role: need('role') as PartnerUserRole },
        audit(),
      );
      return invitationAnswer(ctx, invitation);
    }
    case 'reinvite-partner-user': {
      return invitationAnswer(ctx, await reinvitePartnerUserByEmail(ctx, need('email'), audit()));
    }
    case 'deprecations':
      return { deprecations: await listDeprecations(ctx) };
    case 'help':
      return null;
  }
}

/** An invitation as the CLI prints it: the link on PUBLIC_BASE_URL, or on this machine's server. */
function invitationAnswer(ctx: AppContext, invitation: Invitation) {
  const base = ctx.config.publicBaseUrl ?? ownBaseUrl(ctx.config, ctx.config.port, ctx.config.tls !== null);
  return {
    partner_user: invitation.partner_user,
    invitation_url: invitationUrl(base, invitation.token),
    expires_at: invitation.expires_at,
  };
}

/**
 * --jwks-file: a JWK Set (`{"keys": [...]}`, public keys) as the API takes it; each key is then
 * checked by the service, as the API's are.
 */
function readJwksFile(file: string): { keys: Record<string, unknown>[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const reason = error instanceof SyntaxError ? 'is not JSON' : 'cannot be read';
    throw new UsageError(`--jwks-file ${file} ${reason}`, 'create-oauth-client');
  }
  const keys = (parsed as { keys?: unknown } | null)?.keys;
  if (
    !Array.isArray(keys) ||
    keys.length < 1 ||
    keys.length > MAX_JWKS_KEYS ||
    !keys.every((key) => typeof key === 'object' && key !== null && !Array.isArray(key))
  ) {
    throw new UsageError(
      `--jwks-file must hold a JWK Set: {"keys": [...]} with 1 to ${MAX_JWKS_KEYS} public keys`,
      'create-oauth-client',
    );
  }
  return { keys: keys as Record<string, unknown>[] };
}

/**
 * Re-encrypts the webhook secrets under the current key. Secrets it cannot decrypt make it fail
 * (exit 1) after doing the rest, so that an operator does not drop a key that is still needed.
 */
async function rotateSecrets(ctx: AppContext): Promise<RotationResult & { totp_reencrypted: number }> {
  const result = await rotateEncryptionKey(ctx);
  // The second factors' secrets are under the same keys (accounts/second-factor.service.ts).
  const totp = await rotateTotpSecrets(ctx);
  const unreadable = [
    ...result.unreadable.map((u) => [u.webhook_id, u.reason] as const),
    ...totp.unreadable.map((u) => [u.account_id, u.reason] as const),
  ];
  if (unreadable.length === 0) return { ...result, totp_reencrypted: totp.reencrypted };
  throw new AppError(
    'CONFLICT',
    409,
    `${unreadable.length} secret(s) could not be decrypted and were left as they are ` +
      `(${result.reencrypted + totp.reencrypted} re-encrypted under key ${result.current_key_id}); ` +
      'add their key to DATA_ENCRYPTION_KEY_PREVIOUS and run again, and do not drop any previous key until this succeeds',
    Object.fromEntries(unreadable),
  );
}
