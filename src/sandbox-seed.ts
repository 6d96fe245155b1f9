import type { ServiceContext } from './context.js';
import { runChange } from './changes/run-change.js';
import { clinicInsert, apiKeyInsert } from './clinics/clinic.repository.js';
import { countClinics, listClinics, newClinicRow, newKeyRow } from './clinics/clinic.service.js';
import { medicationInsert } from './medications/medication.repository.js';
import { newMedicationRow } from './medications/medication.service.js';

/** A small formulary, so that a partner can place an order on a fresh sandbox. */
export const SANDBOX_FORMULARY = [
  { name: 'Semaglutide', strength: '2.5 mg/mL', dosage_form: 'injectable solution' },
  { name: 'Tirzepatide', strength: '10 mg/mL', dosage_form: 'injectable solution' },
  { name: 'Testosterone Cypionate', strength: '200 mg/mL', dosage_form: 'injectable solution' },
  { name: 'Progesterone', strength: '100 mg', dosage_form: 'capsule' },
  { name: 'Gabapentin', strength: '50 mg/mL', dosage_form: 'oral suspension' },
  { name: 'Methimazole', strength: '5 mg/mL', dosage_form: 'transdermal gel' },
];

export const SANDBOX_CLINIC_NAME = 'Sandbox Clinic';

export interface SandboxSeed {
  clinicId: string;
  /** The development key, issued at this start (the first); null on later starts: it was shown then. */
  apiKey: string | null;
}

/**
 * On a development server's first start (no clinic yet): a sandbox clinic, its formulary and one
 * development key, returned so that main.ts prints it once. On later starts, the sandbox clinic
 * seeded then (its key is not stored in clear, so only its id). Null in production, and when the
 * database has clinics but no sandbox clinic.
 */
export async function seedSandbox(ctx: ServiceContext): Promise<SandboxSeed | null> {
  if (ctx.config.env !== 'development') return null;
  // One change: a start interrupted half-way seeds again next time instead of leaving a keyless clinic.
  // The system's own (no actor): the trail records what people do.
  return runChange(ctx, null, async (change) => {
    const tctx = { ...ctx, db: await change.transaction() };
    if ((await countClinics(tctx)) > 0) {
      const seeded = (await listClinics(tctx)).find((clinic) => clinic.name === SANDBOX_CLINIC_NAME);
      return seeded ? { clinicId: seeded.clinic_id, apiKey: null } : null;
    }
    const clinic = newClinicRow(SANDBOX_CLINIC_NAME, false, change.at);
    const { key, row } = newKeyRow(clinic.id, 'development', null, change.at, null);
    change.write(
      clinicInsert(change, clinic),
      ...SANDBOX_FORMULARY.map((medication) => medicationInsert(change, newMedicationRow(clinic.id, medication, change.at))),
      apiKeyInsert(change, row),
    );
    return { clinicId: clinic.id, apiKey: key };
  });
}
