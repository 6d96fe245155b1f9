// Composite ceiling of POST /api/external/practitioner (issue 19, item 1): the shared front
// (composite-front.js: the project's JSON parser and body validation included), then what the
// project's create does (src/practitioners/practitioner.service.ts): the clinic scope, the NPI's
// check digit for a human practitioner, then the practitioner's row and the audit row of the change
// written together (one transaction on SQLite; one prepared statement of data-modifying CTEs on
// PostgreSQL, as the project sends them). Ids are UUIDv7. Its database is the project's, migrated and
// provisioned by the project (setup.js).
import { v7 as uuidv7 } from 'uuid';
import { AUDIT_INSERT, auditRow } from './composite-audit.js';
import { assertClinicScope, partnerOf, startComposite } from './composite-front.js';
import { AppError, clientAddress, Envelope, isValidNpi, PRACTITIONER } from './project-modules.js';

const INSERT = `INSERT INTO practitioners (id, clinic_id, first_name, last_name, email, npi, is_veterinarian, phone,
    address_line_1, address_line_2, city, state_code, zip_code, status, created_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

await startComposite(async (app, { db }) => {
  app.post(
    '/api/external/practitioner',
    { schema: { body: PRACTITIONER.body, response: { 200: Envelope(PRACTITIONER.created) } } },
    async (request) => {
      const partner = partnerOf(request);
      const input = request.body;
      await assertClinicScope(db, partner, input.assigned_clinic, 'assigned_clinic');
      const npi = input.npi.trim();
      if (!input.is_veterinarian && !isValidNpi(npi)) {
        const problem = 'must be a 10-digit NPI with a valid check digit (a veterinarian sets is_veterinarian to true)';
        throw new AppError('VALIDATION_ERROR', 400, `Validation failed: npi ${problem}`, { npi: problem });
      }
      const id = uuidv7();
      const now = new Date().toISOString();
      const row = [
        id,
        partner.clinicId,
        input.first_name.trim(),
        input.last_name.trim(),
        input.email,
        npi,
        input.is_veterinarian ? 1 : 0,
        input.phone ?? null,
        input.address_line_1.trim(),
        input.address_line_2?.trim() || null,
        input.city.trim(),
        input.state_code.toUpperCase(),
        input.zip_code,
        'active',
        now,
      ];
      const context = { partner, requestId: request.id, clientAddress: clientAddress(request) };
      await db.write('bench_practitioner_write', [
        { name: 'bench_practitioner_insert', sql: INSERT, values: row },
        { name: 'bench_audit_insert', sql: AUDIT_INSERT, values: auditRow(now, context, 'create', { type: 'practitioner', id }) },
      ]);
      return { success: true, data: { practitioner_id: id }, message: 'Practitioner created successfully' };
    },
  );
});
