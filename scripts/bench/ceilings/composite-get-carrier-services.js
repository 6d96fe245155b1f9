// Composite ceiling of GET /api/external/carriers/{carrierId}/services?patientId= (issue 19, item 1):
// the shared front (composite-front.js), then the project's five queries through the raw driver
// (src/shipping/shipping.service.ts `listServicesForPatient`: the carrier, the clinic's patient, the
// clinic's free shipping, then the carrier's services and its prices for the patient's state side by
// side), priced as the project prices them, and the route's own params, query and response schemas.
// Its database is the project's, migrated and provisioned by the project (setup.js): it reads it only.
import { partnerOf, startComposite } from './composite-front.js';
import { AppError, CARRIERS, stateName } from './project-modules.js';

const notFound = (message) => new AppError('NOT_FOUND', 404, message);
const dollars = (cents) => Math.round(cents) / 100;

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
      const carrier = await db.one('bench_carrier', 'SELECT * FROM carriers WHERE id = ?', [carrierId]);
      if (!carrier) throw notFound('Carrier not found');
      const patient = await db.one('bench_patient', 'SELECT * FROM patients WHERE clinic_id = ? AND id = ?', [
        clinicId,
        request.query.patientId,
      ]);
      if (!patient) throw notFound('Patient not found');
      const code = patient.state?.trim().toUpperCase() ?? '';
      const patientState = code === '' ? undefined : stateName(code);
      if (patientState === undefined) {
        throw new AppError(
          'VALIDATION_ERROR',
          400,
          'Patient has no shipping address: shipping prices depend on the state of the patient\u2019s address',
          { 'patient.addresses': 'the patient has no address with a US state' },
        );
      }
      const clinic = await db.one('bench_clinic', 'SELECT * FROM clinics WHERE id = ?', [clinicId]);
      if (!clinic) throw notFound('Clinic not found');
      const free = clinic.free_shipping === 1;
      const [services, statePrices] = await Promise.all([
        db.all('bench_services', 'SELECT * FROM shipping_services WHERE carrier_id IN (?) ORDER BY carrier_id, price_cents, id', [
          carrierId,
        ]),
        db.all(
          'bench_state_prices',
          'SELECT service_id, price_cents FROM shipping_service_state_prices WHERE carrier_id = ? AND state_code = ?',
          [carrierId, code],
        ),
      ]);
      const ownPrice = new Map(statePrices.map((row) => [row.service_id, row.price_cents]));
      const data = services.map((service) => {
        const original = ownPrice.get(service.id) ?? service.price_cents;
        return { id: service.id, name: service.name, totalCost: free ? 0 : dollars(original), originalCost: dollars(original) };
      });
      return { success: true, data, isFreeShipment: free, freeShipmentType: free ? 'clinic_specific' : null, patientState };
    },
  );
});
