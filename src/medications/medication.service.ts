import { randomUUID } from 'node:crypto';
import { clinicExists } from '../clinics/clinic.repository.js';
import type { AppContext } from '../context.js';
import { constraintViolation } from '../db/constraints.js';
import type { MedicationTable } from '../db/foundation.tables.js';
import { isoNow } from '../db/time.js';
import { conflict, notFound } from '../errors.js';
import { medicationKey } from './medication-name.js';
import * as repo from './medication.repository.js';

type Ctx = Pick<AppContext, 'db' | 'clock'>;

export interface Medication {
  medication_id: string;
  clinic_id: string;
  name: string;
  strength: string | null;
  dosage_form: string | null;
  created_at: string;
}

export interface NewMedication {
  name: string;
  strength?: string;
  dosage_form?: string;
}

/** Adds a medication to a clinic's formulary; the same name twice (in any case) is a 409. */
export async function addMedication(ctx: Ctx, clinicId: string, input: NewMedication): Promise<Medication> {
  if (!(await clinicExists(ctx.db, clinicId))) throw notFound('Clinic not found');
  const row: MedicationTable = {
    id: randomUUID(),
    clinic_id: clinicId,
    name: input.name.trim().replace(/\s+/g, ' '),
    name_key: medicationKey(input.name),
    strength: input.strength?.trim() || null,
    dosage_form: input.dosage_form?.trim() || null,
    created_at: isoNow(ctx.clock),
  };
  try {
    await repo.insertMedication(ctx.db, row);
  } catch (error) {
    if (constraintViolation(error) === 'unique') {
      throw conflict(`Medication "${row.name}" is already in this clinic's formulary`, { name: 'already in the formulary' });
    }
    throw error;
  }
  return toMedication(row);
}

export async function listFormulary(ctx: Ctx, clinicId: string): Promise<Medication[]> {
  if (!(await clinicExists(ctx.db, clinicId))) throw notFound('Clinic not found');
  return (await repo.listMedications(ctx.db, clinicId)).map(toMedication);
}

export async function removeMedication(ctx: Ctx, clinicId: string, medicationId: string): Promise<void> {
  if (!(await repo.deleteMedication(ctx.db, clinicId, medicationId))) throw notFound('Medication not found');
}

function toMedication(row: MedicationTable): Medication {
  return {
    medication_id: row.id,
    clinic_id: row.clinic_id,
    name: row.name,
    strength: row.strength,
    dosage_form: row.dosage_form,
    created_at: row.created_at,
  };
}
