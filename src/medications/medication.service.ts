import { newId } from '../shared/ids.js';
import type { AuditContext } from '../audit/audit-actor.js';
import type { AuditedResource } from '../audit/audit-vocabulary.js';
import { runChange } from '../changes/run-change.js';
import { getClinic } from '../clinics/clinic.service.js';
import type { ReadContext, ServiceContext } from '../context.js';
import { constraintViolation } from '../db/constraints.js';
import { decodeCursor, toPage, type Page } from '../db/keyset-page.js';
import type { PartnerIdentity } from '../partner-identity.js';
import type { MedicationTable } from './medication.tables.js';
import { isoNow } from '../clock.js';
import { blankToNull } from '../shared/text.js';
import { conflict, invalidFields, notFound } from '../errors.js';
import { applyFormula, formulaOf, NO_FORMULA, type FormulaInput } from './formula.js';
import { medicationKey } from './medication-name.js';
import * as repo from './medication.repository.js';
import type { FormularyQuery, MedicationView } from './medication.schemas.js';

export interface NewMedication extends FormulaInput {
  name: string;
  strength?: string | undefined;
  dosage_form?: string | undefined;
}

/** A PATCH: only the fields present change (null clears strength or dosage_form). */
export interface MedicationChanges extends FormulaInput {
  name?: string | undefined;
  strength?: string | null | undefined;
  dosage_form?: string | null | undefined;
}

/**
 * Adds a medication to a clinic's formulary; the same name twice (in any case) is a 409. Audited
 * (`create` of the medication) when made by someone (`audit` null: the sandbox's own formulary).
 */
export async function addMedication(
  ctx: ServiceContext,
  clinicId: string,
  input: NewMedication,
  audit: AuditContext | null,
): Promise<MedicationView> {
  await getClinic(ctx, clinicId); // 404 for an unknown clinic
  const formula = applyFormula(formulaOf(NO_FORMULA), input);
  if (formula.problems) throw invalidFields(formula.problems);
  const row = { ...newMedicationRow(clinicId, input, isoNow(ctx.clock)), ...formula.columns };
  try {
    await runChange(ctx, audit, (change) => {
      change.write(repo.medicationInsert(change, row));
      change.audit?.('create', medicationResource(row));
    });
  } catch (error) {
    if (constraintViolation(error) === 'unique') {
      throw conflict(`Medication "${row.name}" is already in this clinic's formulary`, { name: 'already in the formulary' });
    }
    throw error;
  }
  return toMedication(row);
}

/**
 * A new formulary entry's row, with no formula: its name tidied, and keyed for the ignoring-case
 * match (medication-name.ts).
 */
export function newMedicationRow(
  clinicId: string,
  input: Pick<NewMedication, 'name' | 'strength' | 'dosage_form'>,
  createdAt: string,
): MedicationTable {
  return {
    id: newId(),
    clinic_id: clinicId,
    name: tidyName(input.name),
    name_key: medicationKey(input.name),
    strength: blankToNull(input.strength),
    dosage_form: blankToNull(input.dosage_form),
    created_at: createdAt,
    ...NO_FORMULA,
  };
}

const tidyName = (name: string): string => name.trim().replace(/\s+/g, ' ');

/**
 * Changes a formulary entry (PATCH): the fields sent, checked with the ones kept as one whole
 * entry (formula.ts), in one transaction, audited `update` of the medication. A bad field is a 400
 * and nothing is written; a name another entry has is a 409.
 */
export async function updateMedication(
  ctx: ServiceContext,
  clinicId: string,
  medicationId: string,
  changes: MedicationChanges,
  audit: AuditContext,
): Promise<MedicationView> {
  await getClinic(ctx, clinicId); // 404 for an unknown clinic
  try {
    return await runChange(ctx, audit, async (change) => {
      const trx = await change.transaction();
      const current = await repo.findMedicationForUpdate(trx, clinicId, medicationId, ctx.dialect);
      if (current === undefined) throw notFound('Medication not found');
      const formula = applyFormula(formulaOf(current), changes);
      if (formula.problems) throw invalidFields(formula.problems);
      const row: MedicationTable = {
        ...current,
        ...(changes.name === undefined ? {} : { name: tidyName(changes.name), name_key: medicationKey(changes.name) }),
        ...(changes.strength === undefined ? {} : { strength: blankToNull(changes.strength ?? undefined) }),
        ...(changes.dosage_form === undefined ? {} : { dosage_form: blankToNull(changes.dosage_form ?? undefined) }),
        ...formula.columns,
      };
      await repo.updateMedicationRow(trx, row);
      change.audit('update', medicationResource(row));
      return toMedication(row);
    });
  } catch (error) {
    if (constraintViolation(error) === 'unique') {
      throw conflict(`Another medication of that name is already in this clinic's formulary`, {
        name: 'already in the formulary',
      });
    }
    throw error;
  }
}

export async function listFormulary(ctx: ServiceContext, clinicId: string): Promise<MedicationView[]> {
  await getClinic(ctx, clinicId); // 404 for an unknown clinic
  return (await repo.listMedications(ctx.db, clinicId)).map(toMedication);
}

/**
 * GET /api/external/medications: a page of the API key's clinic's formulary (the names an order
 * accepts), newest first. Not audited: a formulary holds no PHI.
 */
export async function listFormularyForPartner(
  ctx: ReadContext,
  identity: PartnerIdentity,
  query: FormularyQuery,
): Promise<Page<MedicationView>> {
  const limit = query.limit ?? 50;
  const rows = await repo.listMedicationsPage(ctx.db, identity.clinicId, {
    before: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
    limit: limit + 1,
  });
  return toPage(rows, limit, (listed) => listed.map(toMedication));
}

/** Removes a medication from a clinic's formulary (audited `delete` of the medication). */
export async function removeMedication(
  ctx: ServiceContext,
  clinicId: string,
  medicationId: string,
  audit: AuditContext | null,
): Promise<void> {
  await runChange(ctx, audit, async (change) => {
    if (!(await repo.deleteMedication(await change.transaction(), clinicId, medicationId)))
      throw notFound('Medication not found');
    change.audit?.('delete', medicationResource({ id: medicationId, clinic_id: clinicId }));
  });
}

const medicationResource = (row: Pick<MedicationTable, 'id' | 'clinic_id'>): AuditedResource => ({
  type: 'medication',
  id: row.id,
  clinicId: row.clinic_id,
});

/** The clinic's formulary entries whose name keys (medicationKey) are among `keys`, in one query. */
export async function findFormularyEntries(ctx: ReadContext, clinicId: string, keys: string[]): Promise<MedicationTable[]> {
  return repo.findMedicationsByKeys(ctx.db, clinicId, keys);
}

/** A formulary entry as every read shows it (the operator's order page beside each item too). */
export function toMedication(row: MedicationTable): MedicationView {
  return {
    medication_id: row.id,
    clinic_id: row.clinic_id,
    name: row.name,
    strength: row.strength,
    dosage_form: row.dosage_form,
    created_at: row.created_at,
    ...formulaOf(row),
  };
}
