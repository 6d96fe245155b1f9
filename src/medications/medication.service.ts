// Over 250 lines: the formulary's use cases (add, update, list, remove, formula versions), which share the entry's mapping and its version rule.
import { newId } from '../shared/ids.js';
import type { AuditContext } from '../audit/audit-actor.js';
import type { AuditedResource } from '../audit/audit-vocabulary.js';
import { runChange } from '../changes/run-change.js';
import { getClinic } from '../clinics/clinic.service.js';
import type { ReadContext, ServiceContext } from '../context.js';
import { constraintViolation } from '../db/constraints.js';
import { decodeCursor, toPage, type Page } from '../db/keyset-page.js';
import type { PartnerIdentity } from '../partner-identity.js';
import type { FormulaVersionTable, MedicationTable } from './medication.tables.js';
import type { Write, WriteTarget } from '../db/write.js';
import { actorName } from '../audit/audit-actor.js';
import { dispenseUnitOf, type DispenseUnit } from './dispense-unit.js';
import { isoNow } from '../clock.js';
import { blankToNull, collapseSpaces } from '../shared/text.js';
import { conflict, invalidFields, notFound } from '../errors.js';
import { applyFormula, formulaOf, formulaOfVersion, formulaVersionText, NO_FORMULA, type FormulaInput } from './formula.js';
import { medicationKey } from './medication-name.js';
import * as repo from './medication.repository.js';
import type { FormulaVersionView, FormularyQuery, MedicationView } from './medication.schemas.js';

export type NewMedication = FormulaInput & {
  name: string;
  strength?: string | undefined;
  dosage_form?: string | undefined;
  dispense_unit?: DispenseUnit | undefined;
  therapeutic_class?: string | undefined;
};

/** A PATCH: only the fields present change (null clears strength, dosage_form, dispense_unit or therapeutic_class). */
export type MedicationChanges = FormulaInput & {
  name?: string | undefined;
  strength?: string | null | undefined;
  dosage_form?: string | null | undefined;
  dispense_unit?: DispenseUnit | null | undefined;
  therapeutic_class?: string | null | undefined;
};

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
  const entry = newEntry(clinicId, input, isoNow(ctx.clock), audit);
  const row = entry.row;
  try {
    await runChange(ctx, audit, (change) => {
      change.write(...entry.writes(change));
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
 * A new formulary entry: its row (formula applied and checked: a bad field is a 400 naming it, see
 * formula.ts) and the writes that store it with its formula's first version.
 */
export function newEntry(
  clinicId: string,
  input: NewMedication,
  at: string,
  audit: AuditContext | null,
): { row: MedicationTable; writes: (change: WriteTarget) => Write[] } {
  const formula = applyFormula(formulaOf(NO_FORMULA), input);
  if (formula.problems) throw invalidFields(formula.problems);
  const row = withFormulaVersion({ ...newMedicationRow(clinicId, input, at), ...formula.columns }, 0);
  const version = formulaVersionRow(row, at, audit);
  return {
    row,
    writes: (change) => [
      repo.medicationInsert(change, row),
      ...(version === null ? [] : [repo.formulaVersionInsert(change, version)]),
    ],
  };
}

/**
 * A new formulary entry's row, with no formula: its name tidied, and keyed for the ignoring-case
 * match (medication-name.ts).
 */
export function newMedicationRow(
  clinicId: string,
  input: Pick<NewMedication, 'name' | 'strength' | 'dosage_form' | 'dispense_unit' | 'therapeutic_class'>,
  createdAt: string,
): MedicationTable {
  return {
    id: newId(),
    clinic_id: clinicId,
    name: collapseSpaces(input.name),
    name_key: medicationKey(input.name),
    strength: blankToNull(input.strength),
    dosage_form: blankToNull(input.dosage_form),
    created_at: createdAt,
    ...NO_FORMULA,
    dispense_unit: input.dispense_unit ?? null,
    therapeutic_class: input.therapeutic_class ?? null,
    formula_version: 0,
  };
}

/** The row with its formula's version: one more than `previous` when the formula differs from the last version's, else `previous`. */
function withFormulaVersion(row: MedicationTable, previous: number, before?: MedicationTable): MedicationTable {
  if (row.ingredients === null) return { ...row, formula_version: previous };
  const changed = before === undefined || formulaVersionText(formulaOf(before)) !== formulaVersionText(formulaOf(row));
  return { ...row, formula_version: changed ? previous + 1 : previous };
}

/** The snapshot of a new formula version, or null when the row's version is one already kept (or it has no formula). */
function formulaVersionRow(
  row: MedicationTable,
  at: string,
  audit: AuditContext | null,
  previous = 0,
): FormulaVersionTable | null {
  if (row.ingredients === null || row.formula_version === previous) return null;
  return {
    id: newId(),
    clinic_id: row.clinic_id,
    medication_id: row.id,
    version: row.formula_version,
    formula: formulaVersionText(formulaOf(row)),
    created_at: at,
    created_by: audit === null ? null : actorName(audit.actor),
  };
}

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
      const row = withFormulaVersion(
        {
          ...current,
          ...(changes.name === undefined ? {} : { name: collapseSpaces(changes.name), name_key: medicationKey(changes.name) }),
          ...(changes.strength === undefined ? {} : { strength: blankToNull(changes.strength ?? undefined) }),
          ...(changes.dosage_form === undefined ? {} : { dosage_form: blankToNull(changes.dosage_form ?? undefined) }),
          ...(changes.dispense_unit === undefined ? {} : { dispense_unit: changes.dispense_unit }),
          ...(changes.therapeutic_class === undefined ? {} : { therapeutic_class: changes.therapeutic_class }),
          ...formula.columns,
        },
        current.formula_version,
        current,
      );
      await repo.updateMedicationRow(trx, row);
      const version = formulaVersionRow(row, change.at, audit, current.formula_version);
      if (version !== null) change.write(repo.formulaVersionInsert(change, version));
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
    dispense_unit: dispenseUnitOf(row).unit,
    dispense_unit_defaulted: dispenseUnitOf(row).defaulted,
    therapeutic_class: row.therapeutic_class,
    formula_version: row.ingredients === null ? null : row.formula_version,
  };
}

/** Every version of an entry's formula, first first (the compounding record names the one a fill was made from). */
export async function listFormulaVersions(
  ctx: ServiceContext,
  clinicId: string,
  medicationId: string,
): Promise<FormulaVersionView[]> {
  const rows = await repo.listFormulaVersions(ctx.db, clinicId, medicationId);
  return rows.map((row) => ({
    version: row.version,
    formula: { ...formulaOfVersion(row.formula) },
    created_at: row.created_at,
    created_by: row.created_by,
  }));
}
