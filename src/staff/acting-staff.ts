import type { AuditActor, AuditContext } from '../audit/audit-actor.js';
import type { DbOrTrx } from '../db/database.js';
import { forbidden } from '../errors.js';
import { findStaffMember } from './staff.service.js';

/** A pharmacist acting as themselves: their staff id and name, as a sign-off or an override keeps them. */
export interface ActingPharmacist {
  readonly id: string;
  readonly name: string;
}

/**
 * The pharmacist signed in to the console as themselves who is acting, or 403 FORBIDDEN naming why
 * not (issue 39; docs/compounding.md#sign-offs). The one check of every act that is a pharmacist's
 * own: a sign-off, a clinical hold's override. Nobody acts for a pharmacist: not the operator token
 * (a shared secret, no person), not the command line (a name typed, no sign-in), not an admin or a
 * technician, not a partner. The staff member is read in `db` (the change's transaction): an account
 * disabled meanwhile is refused. `act` completes the message: "Only a pharmacist signed in as
 * themselves may <act>".
 */
export async function signedInPharmacist(db: DbOrTrx, audit: AuditContext, act = 'do this'): Promise<ActingPharmacist> {
  const refuse = (why: string) => forbidden(`Only a pharmacist signed in as themselves may ${act}: ${why}`);
  const { actor } = audit;
  if (actor.type !== 'staff') throw refuse(whyNot(actor));
  const member = await findStaffMember(db, actor.staffId);
  if (member === null || member.disabled_at !== null) throw refuse('your account is disabled');
  if (member.role !== 'pharmacist') throw refuse(`you are signed in as ${member.role}`);
  return { id: member.staff_id, name: member.name };
}

function whyNot(actor: Exclude<AuditActor, { type: 'staff' }>): string {
  switch (actor.type) {
    case 'operator':
      return 'the operator token acts for no person';
    case 'command_line':
      return 'the command line acts for no signed-in person';
    case 'partner':
    case 'oauth_client':
    case 'partner_user':
      return 'a partner cannot';
  }
}
