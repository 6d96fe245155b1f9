import type { ServiceContext } from './context.js';
import { runChange } from './changes/run-change.js';
import { clinicInsert, apiKeyInsert } from './clinics/clinic.repository.js';
import { countClinics, listClinics, newClinicRow, newKeyRow } from './clinics/clinic.service.js';
import { newEntry, type NewMedication } from './medications/medication.service.js';
import { coldChainEligibleUpdate } from './shipping/shipping.repository.js';

const active = (name: string, strength: string, unit: string) => ({ name, strength, unit, active: true });
const inactive = (name: string, strength: string, unit: string) => ({ name, strength, unit, active: false });

/** USP <797> Category 2, aseptically processed from a non-sterile bulk powder, sterility tested before release. */
const TESTED_FROM_BULK = { category: 2, preparation: 'aseptic', nonsterile_component: true, sterility_tested: true } as const;

/**
 * A small formulary, each entry with a formula (docs/compounding.md), so that a partner can place an
 * order on a fresh sandbox and see what the pharmacy makes: ingredients, preparation, storage,
 * schedule and beyond-use dates. Illustrations for the sandbox, not compounding instructions.
 */
export const SANDBOX_FORMULARY: readonly NewMedication[] = [
  {
    name: 'Semaglutide',
    strength: '2.5 mg/mL',
    dosage_form: 'injectable solution',
    ingredients: [
      active('semaglutide sodium', '2.5', 'mg/mL'),
      inactive('benzyl alcohol', '9', 'mg/mL'),
      inactive('sodium chloride', '7', 'mg/mL'),
      inactive('water for injection', 'q.s.', 'mL'),
    ],
    preparation: 'sterile',
    bud_category: 'aqueous_preserved',
    storage: 'refrigerated',
    beyond_use_days: 28,
    sterile_condition: TESTED_FROM_BULK,
    dispense_unit: 'mL',
    therapeutic_class: 'glp1_receptor_agonist',
  },
  {
    name: 'Tirzepatide',
    strength: '10 mg/mL',
    dosage_form: 'injectable solution',
    ingredients: [
      active('tirzepatide', '10', 'mg/mL'),
      inactive('benzyl alcohol', '9', 'mg/mL'),
      inactive('water for injection', 'q.s.', 'mL'),
    ],
    preparation: 'sterile',
    bud_category: 'aqueous_preserved',
    storage: 'refrigerated',
    beyond_use_days: 28,
    sterile_condition: TESTED_FROM_BULK,
    dispense_unit: 'mL',
    therapeutic_class: 'glp1_receptor_agonist',
  },
  {
    name: 'Testosterone Cypionate',
    strength: '200 mg/mL',
    dosage_form: 'injectable solution',
    ingredients: [
      active('testosterone cypionate', '200', 'mg/mL'),
      inactive('benzyl benzoate', '0.2', 'mL/mL'),
      inactive('benzyl alcohol', '9', 'mg/mL'),
      inactive('grapeseed oil', 'q.s.', 'mL'),
    ],
    preparation: 'sterile',
    bud_category: 'non_aqueous',
    storage: 'room',
    controlled_schedule: 'III',
    // USP <797>: Category 2, aseptic from a bulk powder, sterility tested: 30 days at room temperature.
    sterile_condition: TESTED_FROM_BULK,
    dispense_unit: 'mL',
    therapeutic_class: 'testosterone',
  },
  {
    name: 'Progesterone',
    strength: '100 mg',
    dosage_form: 'capsule',
    ingredients: [active('progesterone micronized', '100', 'mg'), inactive('microcrystalline cellulose', 'q.s.', 'mg')],
    preparation: 'non_sterile',
    bud_category: 'solid',
    storage: 'room',
    dispense_unit: 'capsule',
    therapeutic_class: 'progestin',
  },
  {
    name: 'Gabapentin',
    strength: '50 mg/mL',
    dosage_form: 'oral suspension',
    ingredients: [
      active('gabapentin', '50', 'mg/mL'),
      inactive('methylparaben', '1', 'mg/mL'),
      inactive('oral suspending vehicle', 'q.s.', 'mL'),
    ],
    preparation: 'non_sterile',
    bud_category: 'aqueous_preserved',
    storage: 'refrigerated',
    dispense_unit: 'mL',
  },
  {
    name: 'Methimazole',
    strength: '5 mg/mL',
    dosage_form: 'transdermal gel',
    ingredients: [active('methimazole', '5', 'mg/mL'), inactive('pluronic lecithin organogel', 'q.s.', 'mL')],
    preparation: 'non_sterile',
    bud_category: 'aqueous_preserved',
    storage: 'room',
    dispense_unit: 'mL',
    therapeutic_class: 'antithyroid',
  },
];

export const SANDBOX_CLINIC_NAME = 'Sandbox Clinic';

/**
 * The default catalogue's overnight and express services (migration 001), which the sandbox marks
 * cold-chain eligible, so that partners see services of both kinds (docs/shipping.md#cold-chain): a
 * refrigerated order on the others is accepted with a warning.
 */
export const SANDBOX_COLD_CHAIN_SERVICES = ['fedex_priority_overnight', 'ups_next_day_air', 'usps_priority_express'] as const;

export interface SandboxSeed {
  clinicId: string;
  /** The development key, issued at this start (the first); null on later starts: it was shown then. */
  apiKey: string | null;
}

/**
 * On a development server's first start (no clinic yet): a sandbox clinic, its formulary, one
 * development key and the cold-chain eligible services (SANDBOX_COLD_CHAIN_SERVICES), returned so that main.ts prints it once. On later starts, the sandbox clinic
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
      // The formulas above are known good: a refusal of one is a bug, and fails the start.
      ...SANDBOX_FORMULARY.flatMap((medication) => newEntry(clinic.id, medication, change.at, null).writes(change)),
      apiKeyInsert(change, row),
      coldChainEligibleUpdate(change, SANDBOX_COLD_CHAIN_SERVICES),
    );
    return { clinicId: clinic.id, apiKey: key };
  });
}
