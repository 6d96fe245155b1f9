// Composite ceiling of POST /api/external/patient (issue 19, item 1): the shared front
// (composite-front.js: the project's JSON parser and body validation included), then what the
// project's create does (src/patients/patient.service.ts): the clinic scope, the date of birth, the
// practitioner looked up in the clinic, then the patient's row and the audit row of the change
// written together (one transaction on SQLite; one prepared statement of data-modifying CTEs on
// PostgreSQL, as the project sends them). Ids are UUIDv7. Its database is the project's, migrated and
// provisioned by the project (setup.js).
import { v7 as uuidv7 } from 'uuid';
import { AUDIT_INSERT, auditRow } from './composite-audit.js';
import { assertClinicScope, partnerOf, startComposite } from './composite-front.js';
import { AppError, clientAddress, dobProblem, Envelope, PATIENT } from './project-modules.js';

const INSERT = `INSERT INTO patients (id, clinic_id, practitioner_id, first_name, middle_name, last_name, gender, dob,
    species, status, contacts, address_line_1, address_line_2, city, state, postal_code, created_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

const fieldError = (field, problem) =>
  new AppError('VALIDATION_ERROR', 400, `Validation failed: ${field} ${problem}`, { [field]: problem });

await startComposite(async (app, { db }) => {
  app.post(
    '/api/external/patient',
    { schema: { body: PATIENT.body, response: { 200: Envelope(PATIENT.created) } } },
    async (request) => {
      const partner = partnerOf(request);
      const input = request.body;
      await assertClinicScope(db, partner, input.assigned_clinic, 'assigned_clinic');
      const dobIssue = dobProblem(input.dob, new Date());
      if (dobIssue !== undefined) throw fieldError('dob', dobIssue);
      const address = input.addresses[0];
      if (address === undefined) throw fieldError('addresses', 'must have exactly 1 item');
      const practitionerId = input.practitioner_id ?? null;
      if (
        practitionerId !== null &&
        !(await db.one('bench_practitioner', 'SELECT * FROM practitioners WHERE clinic_id = ? AND id = ?', [
          partner.clinicId,
          practitionerId,
        ]))
      ) {
        throw new AppError('NOT_FOUND', 404, 'Practitioner not found', { practitioner_id: 'practitioner not found' });
      }
      const contacts = (input.contacts ?? []).map((contact) => ({ key: contact.key, value: contact.value.trim() }));
      const id = uuidv7();
      const now = new Date().toISOString();
      const row = [
        id,
        partner.clinicId,
        practitionerId,
        input.first_name.trim(),
        input.middle_name?.trim() || null,
        input.last_name.trim(),
        input.gender,
        input.dob,
        input.species ?? 'human',
        input.status ?? 'active',
        JSON.stringify(contacts),
        address.addressLine1.trim(),
        address.addressLine2?.trim() || null,
        address.city.trim(),
        address.state.toUpperCase(),
        address.postalCode,
        now,
      ];
      const context = { partner, requestId: request.id, clientAddress: clientAddress(request) };
      await db.write('bench_patient_write', [
        { name: 'bench_patient_insert', sql: INSERT, values: row },
        { name: 'bench_audit_insert', sql: AUDIT_INSERT, values: auditRow(now, context, 'create', { type: 'patient', id }) },
      ]);
      return { success: true, data: { patient_id: id }, message: 'Patient created successfully' };
    },
  );
});
