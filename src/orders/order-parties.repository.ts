import { LICENCE_COLUMNS, licenceOfRow } from '../shipping/licensed-states.repository.js';
import type { StateLicence } from '../shipping/licensed-states.js';
import type { DbOrTrx } from '../db/database.js';
import type { PatientTable } from '../patients/patient.tables.js';
import type { PractitionerTable } from '../practitioners/practitioner.tables.js';
import { joinOwnStatePrice, type ShippingChoice } from '../shipping/shipping.repository.js';
import { reusableQuery } from '../db/reusable-query.js';

/* The intake's one read of an order's parties: the patient, the prescriber, the priced shipping choice and the state's licence. */

/** What a new order is checked against, read at once (findPartiesAndPricedShipping). */
export interface PartiesAndPricedShipping {
  patient: Pick<PatientTable, 'id' | 'species' | 'address_line_1' | 'city' | 'state' | 'postal_code' | 'allergies'> | null;
  /** With the credentials the intake checks (orders/destination-check.ts), read in the same query. */
  practitioner: Pick<PractitionerTable, 'id' | 'is_veterinarian' | 'dea_number' | 'licenses'> | null;
  /** Priced for the patient's state (none without a patient). */
  shipping: ShippingChoice;
  /** Whether the pharmacy may ship to the patient's state (shipping/licensed-states.ts isLicensed). */
  licence: StateLicence;
}

const partiesAndPricedShipping = reusableQuery(
  (db, clinicId: string, patientId: string, practitionerId: string, carrierId: string, serviceId: string) =>
    db
      .selectFrom('clinics')
      .leftJoin('patients', (join) => join.onRef('patients.clinic_id', '=', 'clinics.id').on('patients.id', '=', patientId))
      .leftJoin('practitioners', (join) =>
        join.onRef('practitioners.clinic_id', '=', 'clinics.id').on('practitioners.id', '=', practitionerId),
      )
      .leftJoin('carriers', (join) => join.on('carriers.id', '=', carrierId))
      .leftJoin('shipping_services', (join) =>
        join.onRef('shipping_services.carrier_id', '=', 'carriers.id').on('shipping_services.id', '=', serviceId),
      )
      .$call(joinOwnStatePrice)
      .select([
        'patients.id as patient_id',
        'patients.species',
        'patients.address_line_1',
        'patients.city',
        'patients.state',
        'patients.postal_code',
        'patients.allergies',
        'practitioners.id as practitioner_id',
        'practitioners.is_veterinarian',
        'practitioners.dea_number',
        'practitioners.licenses',
        'clinics.free_shipping',
        'carriers.id as carrier_id',
        'carriers.name as carrier_name',
        'shipping_services.id as service_id',
        'shipping_services.name as service_name',
        'shipping_services.price_cents',
        'own.price_cents as state_price_cents',
        // The cold-chain check's (docs/shipping.md#cold-chain): in this query, no statement of its own.
        'shipping_services.cold_chain_eligible',
      ])
      .select(LICENCE_COLUMNS)
      .where('clinics.id', '=', clinicId),
);

/**
 * The clinic's patient and practitioner, and the shipping choice with the clinic's free shipping and
 * the service's own price for the patient's state, in one query compiled once: an order's checks ask
 * the database once for all of them instead of six times. Another clinic's patient or practitioner is
 * absent (null), as an unknown id is. Undefined when the clinic does not exist.
 */
export async function findPartiesAndPricedShipping(
  db: DbOrTrx,
  clinicId: string,
  ids: { patientId: string; practitionerId: string; carrierId: string; serviceId: string },
): Promise<PartiesAndPricedShipping | undefined> {
  const [row] = await partiesAndPricedShipping(db, clinicId, ids.patientId, ids.practitionerId, ids.carrierId, ids.serviceId);
  if (!row) return undefined;
  return {
    patient:
      row.patient_id === null || row.species === null
        ? null
        : {
            id: row.patient_id,
            species: row.species,
            address_line_1: row.address_line_1,
            city: row.city,
            state: row.state,
            postal_code: row.postal_code,
            allergies: row.allergies ?? null,
          },
    practitioner:
      row.practitioner_id === null || row.is_veterinarian === null
        ? null
        : {
            id: row.practitioner_id,
            is_veterinarian: row.is_veterinarian,
            dea_number: row.dea_number ?? null,
            licenses: row.licenses ?? null,
          },
    shipping: {
      free_shipping: row.free_shipping,
      carrier_id: row.carrier_id,
      carrier_name: row.carrier_name,
      service_id: row.service_id,
      service_name: row.service_name,
      price_cents: row.price_cents,
      state_price_cents: row.state_price_cents,
      cold_chain_eligible: row.cold_chain_eligible,
    },
    licence: licenceOfRow(row),
  };
}
