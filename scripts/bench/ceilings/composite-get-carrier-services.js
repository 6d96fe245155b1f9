// Composite ceiling of GET /api/external/carriers/{carrierId}/services?patientId= (issue 19, item 1):
// the shared front (composite-front.js), then the project's one query through the raw driver
// (src/shipping/shipping.repository.ts `carrierServicesForPatient`: the clinic left-joined to the
// carrier, the clinic's patient, the carrier's services and their prices for the patient's state, with
// the licence of that state), priced as the project prices them, and the route's own params, query and
// response schemas. Its database is the project's, migrated and provisioned by the project (setup.js):
// it reads it only.
import { partnerOf, startComposite } from './composite-front.js';
import { AppError, CARRIERS, stateName } from './project-modules.js';

const notFound = (message) => new AppError('NOT_FOUND', 404, message);
const dollars = (cents) => Math.round(cents) / 100;
/** The licensed states' one list row (src/shipping/licensed-states.repository.ts LIST_ID). */
const LIST_ID = 'pharmacy';
/** Development's licensed states while none were set: every state but the territories (licensed-states.ts). */
const TERRITORIES = new Set(['AS', 'GU', 'MP', 'PR', 'VI', 'AA', 'AE', 'AP', 'UM']);

const SERVICES_FOR_PATIENT = `
  SELECT clinics.free_shipping, carriers.id AS carrier_id, patients.id AS patient_id, patients.state,
         shipping_services.id AS service_id, shipping_services.name AS service_name, shipping_services.price_cents,
         own.price_cents AS state_price_cents, shipping_services.cold_chain_eligible,
         CASE WHEN EXISTS (SELECT 1 FROM licensed_states WHERE licensed_states.state_code = patients.state) THEN 1 ELSE 0 END AS licence_listed,
         CASE WHEN EXISTS (SELECT 1 FROM licensed_state_list WHERE licensed_state_list.id = '${LIST_ID}') THEN 1 ELSE 0 END AS licence_list_set
    FROM clinics
    LEFT JOIN carriers ON carriers.id = ?
    LEFT JOIN patients ON patients.clinic_id = clinics.id AND patients.id = ?
    LEFT JOIN shipping_services ON shipping_services.carrier_id = carriers.id
    LEFT JOIN shipping_service_state_prices own ON own.carrier_id = shipping_services.carrier_id
         AND own.service_id = shipping_services.id AND own.state_code = patients.state
   WHERE clinics.id = ?
   ORDER BY shipping_services.price_cents, shipping_services.id`;

await startComposite(async (app, { db }) => {
  app.get(
    '/api/external/carriers/:carrierId/services',
    {
      schema: {
        params: CARRIERS.CarrierParams,
        querystring: CARRIERS.CarrierServicesQuery,
        response: { 200: CARRIERS.CarrierServicesResponse },
      },
    },
    async (request) => {
      const { clinicId } = partnerOf(request);
      const { carrierId } = request.params;
      const rows = await db.all('bench_services_for_patient', SERVICES_FOR_PATIENT, [
        carrierId,
        request.query.patientId,
        clinicId,
      ]);
      const first = rows[0];
      if (!first) throw notFound('Clinic not found');
      if (first.carrier_id === null) throw notFound('Carrier not found');
      if (first.patient_id === null) throw notFound('Patient not found');
      const code = first.state?.trim().toUpperCase() ?? '';
      const patientState = code === '' ? undefined : stateName(code);
      if (patientState === undefined) {
        throw new AppError(
          'VALIDATION_ERROR',
          400,
          'Patient has no shipping address: shipping prices depend on the state of the patient\u2019s address',
          { 'patient.addresses': 'the patient has no address with a US state' },
        );
      }
      const free = Number(first.free_shipping) === 1;
      const data = rows.flatMap((service) => {
        if (service.service_id === null) return [];
        const original = service.state_price_cents ?? service.price_cents;
        return [
          {
            id: service.service_id,
            name: service.service_name,
            totalCost: free ? 0 : dollars(original),
            originalCost: dollars(original),
            cold_chain_eligible: Number(service.cold_chain_eligible) === 1,
          },
        ];
      });
      // The benchmark's servers run in development.
      const licensed = Number(first.licence_list_set) === 1 ? Number(first.licence_listed) === 1 : !TERRITORIES.has(code);
      return {
        success: true,
        data,
        isFreeShipment: free,
        freeShipmentType: free ? 'clinic_specific' : null,
        patientState,
        licensed,
      };
    },
  );
});
