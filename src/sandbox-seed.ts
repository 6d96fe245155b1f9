import type { ServiceContext } from './context.js';
import { addMedication } from './medications/medication.service.js';
import { countClinics, createClinic, issueApiKey } from './clinics/clinic.service.js';

/** A small formulary, so that a partner can place an order on a fresh sandbox. */
export const SANDBOX_FORMULARY = [
  { name: 'Semaglutide', strength: '2.5 mg/mL', dosage_form: 'injectable solution' },
  { name: 'Tirzepatide', strength: '10 mg/mL', dosage_form: 'injectable solution' },
  { name: 'Testosterone Cypionate', strength: '200 mg/mL', dosage_form: 'injectable solution' },
  { name: 'Progesterone', strength: '100 mg', dosage_form: 'capsule' },
  { name: 'Gabapentin', strength: '50 mg/mL', dosage_form: 'oral suspension' },
  { name: 'Methimazole', strength: '5 mg/mL', dosage_form: 'transdermal gel' },
];

export interface SandboxSeed {
  clinicId: string;
  apiKey: string;
}

/**
 * On a development server's first start (no clinic yet): a sandbox clinic, its formulary and one
 * development key, returned so that main.ts prints it once. Returns null when there is data.
 */
export async function seedSandbox(ctx: ServiceContext): Promise<SandboxSeed | null> {
  if (ctx.config.env !== 'development') return null;
  // One transaction: a start interrupted half-way seeds again next time instead of leaving a keyless clinic.
  return ctx.db.transaction().execute(async (trx) => {
    const tctx = { ...ctx, db: trx };
    if ((await countClinics(tctx)) > 0) return null;
    const clinic = await createClinic(tctx, { name: 'Sandbox Clinic' });
    for (const medication of SANDBOX_FORMULARY) await addMedication(tctx, clinic.clinic_id, medication);
    const key = await issueApiKey(tctx, clinic.clinic_id, 'development');
    return { clinicId: clinic.clinic_id, apiKey: key.api_key };
  });
}
