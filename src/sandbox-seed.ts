import type { ServiceContext } from './context.js';
import { addMedication } from './medications/medication.service.js';
import { countClinics, createClinic, issueApiKey, listClinics } from './clinics/clinic.service.js';

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
  // One transaction: a start interrupted half-way seeds again next time instead of leaving a keyless clinic.
  return ctx.db.transaction().execute(async (trx) => {
    const tctx = { ...ctx, db: trx };
    if ((await countClinics(tctx)) > 0) {
      const seeded = (await listClinics(tctx)).find((clinic) => clinic.name === SANDBOX_CLINIC_NAME);
      return seeded ? { clinicId: seeded.clinic_id, apiKey: null } : null;
    }
    const clinic = await createClinic(tctx, { name: SANDBOX_CLINIC_NAME });
    for (const medication of SANDBOX_FORMULARY) await addMedication(tctx, clinic.clinic_id, medication);
    const key = await issueApiKey(tctx, clinic.clinic_id, 'development');
    return { clinicId: clinic.clinic_id, apiKey: key.api_key };
  });
}
