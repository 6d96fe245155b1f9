import type { Medication, MedicationIngredient } from '@medplum/fhirtypes';
import type { AuditedResource } from '../audit/audit-vocabulary.js';
import type { DbOrTrx } from '../db/database.js';
import type { IngredientView } from '../medications/medication.schemas.js';
import type { MedicationTable } from '../medications/medication.tables.js';
import type { FillIngredientLotTable } from '../compounding/compounding.tables.js';
import { substanceKey } from '../patients/substance-key.js';
import { countableUnitOf, strengthRatioOf } from './fhir-quantity.js';
import * as repo from './medication.repository.js';
import { ingredientsOf } from '../medications/formula.js';

/*
 * The FHIR Medication of a formulary entry or of an item's fill (issue 32; docs/fhir.md). The id of
 * an entry's Medication is the entry's id; the id of a fill's is the fill row's id (MedicationRequest
 * and MedicationDispense refer to them by those ids). A fill's Medication is the preparation the
 * pharmacy made: its lot and beyond-use date in `batch`, its ingredients those of the entry's formula
 * and of the lots the fill names.
 */

/** Identifier systems of our ids (FHIR wants a URI: ours are URNs, documented in docs/fhir.md). */
export const FORMULARY_ENTRY_SYSTEM = 'urn:fulfillment:formulary-entry';
export const FILL_SYSTEM = 'urn:fulfillment:fill';

/** Which Medications to load: entries' ids and fills' ids. */
export interface MedicationIds {
  readonly entries: readonly string[];
  readonly fills: readonly string[];
}

export interface LoadedMedication {
  readonly resource: Medication;
  /** The record read: the formulary entry, or the order the fill belongs to. */
  readonly audit: AuditedResource;
}

/** The clinic's Medications of `ids` by id, in at most three queries whatever their number (entries; fills with items and entries; ingredient lots). */
export async function loadMedications(db: DbOrTrx, clinicId: string, ids: MedicationIds): Promise<Map<string, LoadedMedication>> {
  const [entries, fills, lots] = await Promise.all([
    repo.findEntries(db, clinicId, unique(ids.entries)),
    repo.findFills(db, clinicId, unique(ids.fills)),
    repo.findIngredientLots(db, clinicId, unique(ids.fills)),
  ]);
  const loaded = new Map<string, LoadedMedication>();
  for (const entry of entries) {
    loaded.set(entry.id, { resource: entryMedication(entry), audit: { type: 'medication', id: entry.id, clinicId } });
  }
  for (const fill of fills) {
    loaded.set(fill.id, {
      resource: fillMedication(
        fill,
        lots.filter((lot) => lot.fill_id === fill.id),
      ),
      audit: { type: 'medication_request', id: fill.medication_request_id, clinicId },
    });
  }
  return loaded;
}

/** The records read, each once (a page may hold several items or fills of one order). */
export function uniqueReads(resources: readonly AuditedResource[]): AuditedResource[] {
  return [...new Map(resources.map((each) => [`${each.type}/${each.id}`, each])).values()];
}

const unique = (ids: readonly string[]): string[] => [...new Set(ids)];

/** A formulary entry's Medication: its name (and strength), form and formula. */
export function entryMedication(entry: MedicationTable): Medication {
  const ingredients = ingredientsOf(entry.ingredients) ?? [];
  return {
    resourceType: 'Medication',
    id: entry.id,
    identifier: [{ system: FORMULARY_ENTRY_SYSTEM, value: entry.id }],
    code: { text: entry.strength === null ? entry.name : `${entry.name} ${entry.strength}` },
    // An entry is in the formulary until removed (a removed entry is gone: 404).
    status: 'active',
    ...formOf(entry.dosage_form),
    ...(ingredients.length > 0 ? { ingredient: ingredients.map((each) => formulaIngredient(each, entry.dosage_form)) } : {}),
  };
}

/**
 * A fill's Medication: the item's medication, the entry's form, the formula's ingredients (then any
 * substance a lot names that the formula does not, each once), and the batch. The formula is the entry's as it
 * is now: a fill keeps its lots, not a copy of the formula.
 */
export function fillMedication(fill: repo.FillRow, lots: readonly FillIngredientLotTable[]): Medication {
  const formula = ingredientsOf(fill.ingredients) ?? [];
  // One ingredient is one substance as intake compares them (substance-key.ts): a lot of "Estradiol"
  // is the formula's "estradiol cypionate", not an ingredient of its own.
  const known = new Set(formula.map((each) => substanceKey(each.name)));
  const lotOnly = new Map<string, string>();
  for (const lot of lots) {
    const key = substanceKey(lot.ingredient);
    if (!known.has(key) && !lotOnly.has(key)) lotOnly.set(key, lot.ingredient);
  }
  const ingredient: MedicationIngredient[] = [
    ...formula.map((each) => formulaIngredient(each, fill.dosage_form)),
    ...[...lotOnly.values()].map((name) => ({ itemCodeableConcept: { text: name } })),
  ];
  return {
    resourceType: 'Medication',
    id: fill.id,
    identifier: [{ system: FILL_SYSTEM, value: fill.id }],
    code: { text: fill.medication },
    ...formOf(fill.dosage_form),
    ...(ingredient.length > 0 ? { ingredient } : {}),
    batch: {
      lotNumber: fill.lot_number,
      // The beyond-use date (USP <795>): the date after which the preparation must not be used.
      ...(fill.beyond_use_date === null ? {} : { expirationDate: fill.beyond_use_date }),
    },
  };
}

const formOf = (dosageForm: string | null): Pick<Medication, 'form'> =>
  dosageForm === null ? {} : { form: { text: dosageForm } };

function formulaIngredient(ingredient: IngredientView, dosageForm: string | null): MedicationIngredient {
  const strength = strengthRatioOf(ingredient.strength, ingredient.unit, countableUnitOf(dosageForm));
  return {
    itemCodeableConcept: { text: ingredient.name },
    isActive: ingredient.active,
    ...(strength === undefined ? {} : { strength }),
  };
}
