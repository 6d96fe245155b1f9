import type { Medication, MedicationRequest, Resource } from '@medplum/fhirtypes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FhirResourceKind, SearchPage } from '../../src/fhir/fhir-resource.js';
import { encodeContinuation, parseSearch, type RawQuery } from '../../src/fhir/fhir-search.js';
import { medicationRequestKind } from '../../src/fhir/medication-request.fhir.js';
import { medicationKind } from '../../src/fhir/medication.fhir.js';
import { addMedication, removeMedication } from '../../src/medications/medication.service.js';
import type { OrderStatus } from '../../src/orders/order-status.js';
import { emptyDatabaseTally, probeDatabases } from '../helpers/database-probe.js';
import {
  advanceOrder,
  createOrder,
  createOrderSetup,
  createPatient,
  expectOk,
  itemBody,
  type OrderSetup,
} from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { fakeClock } from '../webhooks/support.js';
import { expectValidFhir } from './fhir-validator.js';

/**
 * FHIR MedicationRequest and Medication (issue 32) read from the kinds themselves (the routes are
 * the framework's): orders made through the partner API, moved, held and filled as the pharmacy
 * does, then read and searched within a clinic. Every resource produced is checked by Medplum's
 * validator against the R4 base definitions.
 */

const UCUM = 'http://unitsofmeasure.org';
const NOW = Date.parse('2026-11-27T15:00:00.000Z');
const COMPOUNDED = '2026-11-27T10:30:00.000Z';

/** USP <795>: aqueous, non-preserved, refrigerated: 14 days, so a fill of 2026-11-27 is good until 2026-12-11. */
const INJECTION = {
  name: 'Semaglutide Injection',
  dosage_form: 'Injectable solution',
  ingredients: [
    { name: 'Semaglutide sodium', strength: '2.5', unit: 'mg/mL', active: true },
    { name: 'Bacteriostatic water', strength: '1', unit: 'mL', active: false },
  ],
  preparation: 'non_sterile' as const,
  bud_category: 'aqueous_non_preserved' as const,
  storage: 'refrigerated' as const,
};
const CAPSULES = {
  name: 'Progesterone SR',
  strength: '100 mg',
  dosage_form: 'Capsules',
  ingredients: [
    { name: 'Progesterone micronized', strength: '100', unit: 'mg', active: true },
    { name: 'Methocel E4M', strength: 'q.s.', unit: 'mg', active: false },
  ],
  preparation: 'non_sterile' as const,
  bud_category: 'solid' as const,
  storage: 'room' as const,
};

describe.each(DIALECTS)('FHIR MedicationRequest and Medication on %s', (dialect) => {
  let t: TestApp;
  let home: OrderSetup;
  let elsewhere: OrderSetup;
  let injectionId: string;
  let capsulesId: string;
  const time = fakeClock(NOW);

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: time.clock });
    home = await createOrderSetup(t);
    elsewhere = await createOrderSetup(t, { clinicName: 'Elsewhere Clinic' });
    injectionId = (await addMedication(t.ctx, home.clinic.clinicId, INJECTION, null)).medication_id;
    capsulesId = (await addMedication(t.ctx, home.clinic.clinicId, CAPSULES, null)).medication_id;
  });
  afterAll(async () => t.close());

  /** The kind's page of a query string, as the routes would parse it (`after`: the previous page's last id). */
  async function search<R extends Resource>(
    kind: FhirResourceKind<R>,
    raw: RawQuery,
    options: { clinicId?: string; after?: string } = {},
  ): Promise<SearchPage<R>> {
    const first = parseSearch(kind, raw);
    const parsed =
      options.after === undefined
        ? first
        : parseSearch(kind, { ...raw, _cursor: encodeContinuation(options.after, first.fingerprint) });
    const page = await kind.search(t.ctx, options.clinicId ?? home.clinic.clinicId, parsed.query, {
      count: parsed.count,
      afterId: parsed.afterId,
    });
    for (const resource of [...page.matches, ...(page.included ?? [])]) expectValidFhir(resource);
    return page;
  }

  async function read<R extends Resource>(kind: FhirResourceKind<R>, id: string, clinicId = home.clinic.clinicId) {
    const result = await kind.read(t.ctx, clinicId, id);
    if (result !== undefined) expectValidFhir(result.resource);
    return result;
  }

  const readRequest = (id: string) => read(medicationRequestKind, id);

  /** A patient of the home clinic of their own (searches by patient see only what the test made). */
  const newPatient = async (): Promise<OrderSetup> => ({
    ...home,
    patientId: await createPatient(t, home.clinic, { practitionerId: home.practitionerId }),
  });

  /** An order of `medications` (one item each) for `parties`: its id and its items' ids in order. */
  async function order(parties: OrderSetup, medications: string[]): Promise<{ id: string; items: string[] }> {
    const id = await createOrder(t, parties, { medication_requests: medications.map((medication) => itemBody({ medication })) });
    const read = expectOk(await t.partner(parties.clinic.apiKey).get(`/api/external/medication-order/${id}`), 'read order');
    return { id, items: read.medication_requests.map((item: { id: string }) => item.id) };
  }

  const toProcessing = async (id: string) =>
    expectOk(await t.operator.post(`/api/admin/medication-requests/${id}/status`, { status: 'processing' }), 'process');

  /** An order moved to `status` the way the pharmacy moves one (a hold from processing). */
  async function orderIn(parties: OrderSetup, status: OrderStatus): Promise<{ id: string; items: string[] }> {
    const made = await order(parties, ['Gabapentin']);
    if (status === 'pending') return made;
    await toProcessing(made.id);
    if (status === 'on_hold') {
      expectOk(
        await t.operator.post(`/api/admin/medication-requests/${made.id}/hold`, {
          reason_code: 'out_of_stock',
          message: 'Waiting',
        }),
        'hold',
      );
    } else if (status !== 'processing') {
      await advanceOrder(t, parties.clinic, made.id, status);
    }
    return made;
  }

  const fillIdOf = async (itemId: string): Promise<string> =>
    (
      await t.ctx.db
        .selectFrom('medication_item_fills')
        .select('id')
        .where('medication_item_id', '=', itemId)
        .executeTakeFirstOrThrow()
    ).id;

  it('when orders are in each of our statuses, then their MedicationRequests read active, on-hold, completed or cancelled as the mapping says', async () => {
    const parties = await newPatient();
    const expected: [OrderStatus, MedicationRequest['status']][] = [
      ['pending', 'active'],
      ['processing', 'active'],
      ['on_hold', 'on-hold'],
      ['shipped', 'active'],
      ['delivered', 'completed'],
      ['cancelled', 'cancelled'],
    ];
    const made = new Map<OrderStatus, string>();
    for (const [status] of expected) made.set(status, (await orderIn(parties, status)).items[0] as string);
    const read = await Promise.all(
      expected.map(async ([status]) => (await readRequest(made.get(status) as string))?.resource.status),
    );
    expect(read).toEqual(expected.map(([, fhir]) => fhir));
    // The hold's reason is the catalog's code and text; the others carry none.
    const held = (await readRequest(made.get('on_hold') as string))?.resource;
    expect(held?.statusReason?.coding).toEqual([
      { system: 'urn:fulfillment:hold-reason', code: 'out_of_stock', display: expect.any(String) },
    ]);
    expect(JSON.stringify(held)).not.toContain('Waiting');
    expect((await readRequest(made.get('processing') as string))?.resource.statusReason).toBeUndefined();
  });

  it('when a refill order is read, then its MedicationRequest names the chain\u2019s first prescription as priorPrescription', async () => {
    const parties = await newPatient();
    const first = await orderIn(parties, 'shipped');
    const refill = expectOk(
      await t.partner(parties.clinic.apiKey).post('/api/external/refill-request', { medication_request_id: first.id }),
      'refill',
    );
    const refillOrder = expectOk(
      await t.partner(parties.clinic.apiKey).get(`/api/external/medication-order/${refill.medication_order_id}`),
      'read refill',
    );
    const refillItem = refillOrder.medication_requests[0].id as string;
    expect((await readRequest(refillItem))?.resource.priorPrescription).toEqual({
      reference: `MedicationRequest/${first.items[0] ?? ''}`,
    });
    expect((await readRequest(first.items[0] as string))?.resource.priorPrescription).toBeUndefined();
  });

  it('when an unfilled item of a formulary entry is read, then it carries every must-support with UCUM quantities, and its read is audited as its order', async () => {
    const parties = await newPatient();
    const id = await createOrder(t, parties, {
      medication_requests: [
        itemBody({
          medication: 'Semaglutide Injection',
          dose: '0.25mg',
          quantity: 2.5,
          unit_of_measure: 'mL',
          refills: '3',
          days_supply: 28,
        }),
      ],
    });
    const detail = expectOk(await t.partner(home.clinic.apiKey).get(`/api/external/medication-order/${id}`), 'read order');
    const result = await readRequest(detail.medication_requests[0].id);
    expect(result?.resource).toEqual({
      resourceType: 'MedicationRequest',
      id: detail.medication_requests[0].id,
      identifier: [{ system: 'urn:fulfillment:medication-item', value: detail.medication_requests[0].id }],
      groupIdentifier: { system: 'urn:fulfillment:medication-request', value: id },
      status: 'active',
      intent: 'order',
      category: [
        {
          coding: [
            {
              system: 'http://terminology.hl7.org/CodeSystem/medicationrequest-category',
              code: 'community',
              display: 'Community',
            },
          ],
          text: 'Community',
        },
      ],
      reportedBoolean: false,
      medicationReference: { reference: `Medication/${injectionId}`, display: 'Semaglutide Injection' },
      subject: { reference: `Patient/${parties.patientId}` },
      requester: { reference: `Practitioner/${parties.practitionerId}` },
      authoredOn: detail.created_at,
      dosageInstruction: [{ text: 'Inject 0.25 mg subcutaneously once weekly' }],
      dispenseRequest: {
        quantity: { value: 2.5, unit: 'mL', system: UCUM, code: 'mL' },
        numberOfRepeatsAllowed: 3,
        expectedSupplyDuration: { value: 28, unit: 'days', system: UCUM, code: 'd' },
      },
    });
    expect(result?.audit).toEqual([{ type: 'medication_request', id, clinicId: home.clinic.clinicId }]);
  });

  it('when an item’s formulary entry has been removed, then medicationCodeableConcept names the medication and dose', async () => {
    const parties = await newPatient();
    const entry = await addMedication(t.ctx, home.clinic.clinicId, { name: 'Naltrexone LDN' }, null);
    const made = await order(parties, ['Naltrexone LDN']);
    expect((await readRequest(made.items[0] as string))?.resource.medicationReference).toEqual({
      reference: `Medication/${entry.medication_id}`,
      display: 'Naltrexone LDN',
    });
    await removeMedication(t.ctx, home.clinic.clinicId, entry.medication_id, null);
    const resource = (await readRequest(made.items[0] as string))?.resource;
    expect(resource?.medicationReference).toBeUndefined();
    expect(resource?.medicationCodeableConcept).toEqual({ text: 'Naltrexone LDN 0.25mg' });
  });

  it('when a patient’s requests are searched by patient and intent, with status, or by _id, then exactly the matching items are found', async () => {
    const parties = await newPatient();
    const pending = await order(parties, ['Gabapentin', 'Tirzepatide']);
    const held = await orderIn(parties, 'on_hold');
    const delivered = await orderIn(parties, 'delivered');
    await orderIn(await newPatient(), 'pending'); // another patient's: never found
    const ids = async (raw: RawQuery) => (await search(medicationRequestKind, raw)).matches.map((m) => m.id);
    const sorted = (list: string[]) => [...list].sort();

    const all = sorted([...pending.items, ...held.items, ...delivered.items]);
    expect(await ids({ patient: `Patient/${parties.patientId}`, intent: 'order' })).toEqual(all);
    expect(
      await ids({ patient: parties.patientId, intent: 'http://hl7.org/fhir/CodeSystem/medicationrequest-intent|order' }),
    ).toEqual(all);
    expect(await ids({ patient: parties.patientId, intent: 'plan' })).toEqual([]);
    expect(await ids({ patient: parties.patientId, intent: 'order', status: 'active' })).toEqual(sorted(pending.items));
    expect(await ids({ patient: parties.patientId, intent: 'order', status: 'on-hold,completed' })).toEqual(
      sorted([...held.items, ...delivered.items]),
    );
    expect(await ids({ patient: parties.patientId, intent: 'order', status: 'stopped' })).toEqual([]);
    expect(await ids({ patient: parties.patientId, intent: 'order', status: 'http://example.org/other|active' })).toEqual([]);
    expect(await ids({ _id: pending.items[1] })).toEqual([pending.items[1]]);
    expect(await ids({ _id: `${held.items[0] as string},${delivered.items[0] as string}` })).toEqual(
      sorted([...held.items, ...delivered.items]),
    );
  });

  it('when a status is outside FHIR’s value set, then the search is refused before any query', () => {
    expect(() => parseSearch(medicationRequestKind, { patient: 'x', status: 'shipped' })).toThrow(
      /status=shipped is not a known code/,
    );
    expect(() => parseSearch(medicationRequestKind, { patient: 'x', intent: 'orders' })).toThrow(
      /intent=orders is not a known code/,
    );
  });

  it('when five items are paged two at a time, then each page continues strictly after the last, hasMore holds until the last page, and total counts all five', async () => {
    const parties = await newPatient();
    const first = await order(parties, ['Gabapentin', 'Progesterone', 'Tirzepatide']);
    const second = await order(parties, ['Gabapentin', 'Tirzepatide']);
    const raw = { patient: parties.patientId, intent: 'order', _count: '2' };
    const pages: SearchPage<MedicationRequest>[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await search(medicationRequestKind, raw, after === undefined ? {} : { after });
      pages.push(page);
      if (!page.hasMore) break;
      after = page.matches.at(-1)?.id;
    }
    expect(pages.map((page) => [page.matches.length, page.hasMore, page.total])).toEqual([
      [2, true, 5],
      [2, true, 5],
      [1, false, 5],
    ]);
    expect(pages.flatMap((page) => page.matches.map((m) => m.id))).toEqual([...first.items, ...second.items].sort());
    // Audit: each page names the orders it showed, once each.
    for (const page of pages) {
      const orders = new Set(page.matches.map((m) => m.groupIdentifier?.value));
      expect(page.audit).toEqual([...orders].map((id) => ({ type: 'medication_request', id, clinicId: home.clinic.clinicId })));
    }
  });

  it('when a page of one or of many is searched with its medications, then it costs the same number of queries', async () => {
    const parties = await newPatient();
    await order(parties, ['Gabapentin', 'Progesterone', 'Tirzepatide', 'Semaglutide Injection', 'Progesterone SR']);
    const cost = async (count: string) => {
      const tally = emptyDatabaseTally();
      const stop = probeDatabases(tally);
      try {
        await search(medicationRequestKind, {
          patient: parties.patientId,
          _count: count,
          _include: 'MedicationRequest:medication',
        });
      } finally {
        stop();
      }
      return tally.queries;
    };
    expect(await cost('1')).toBe(await cost('5'));
  });

  it('when _include=MedicationRequest:medication is asked, then the page’s Medications are included once each, the fill’s for a filled item', async () => {
    const parties = await newPatient();
    const unfilled = await order(parties, ['Progesterone SR', 'Gabapentin']);
    await order(parties, ['Progesterone SR']);
    const filled = await order(parties, ['Tirzepatide']);
    await toProcessing(filled.id);
    expectOk(
      await t.operator.post(`/api/admin/medication-requests/${filled.id}/fill`, {
        items: [{ item_id: filled.items[0], lot_number: 'TZ-7', compounded_at: COMPOUNDED }],
      }),
      'fill',
    );
    const fillId = await fillIdOf(filled.items[0] as string);
    const gabapentinEntry = (await search(medicationRequestKind, { _id: unfilled.items[1] })).matches[0]?.medicationReference
      ?.reference;

    const page = await search(medicationRequestKind, {
      patient: parties.patientId,
      intent: 'order',
      _include: 'MedicationRequest:medication',
    });
    expect(page.matches).toHaveLength(4);
    const references = page.matches.map((m) => m.medicationReference?.reference);
    expect(references.filter((r) => r === `Medication/${capsulesId}`)).toHaveLength(2);
    expect(references).toContain(`Medication/${fillId}`);
    const included = (page.included ?? []) as Medication[];
    expect(included.map((m) => `Medication/${m.id ?? ''}`).sort()).toEqual(
      [`Medication/${capsulesId}`, `Medication/${fillId}`, gabapentinEntry].sort(),
    );
    expect(included.find((m) => m.id === fillId)?.batch).toEqual({ lotNumber: 'TZ-7' });
    // Without the include, nothing is included.
    expect((await search(medicationRequestKind, { patient: parties.patientId })).included).toBeUndefined();
  });

  it('when another clinic asks for this clinic’s items, patient, entries or fills, then nothing is found', async () => {
    const parties = await newPatient();
    const made = await order(parties, ['Semaglutide Injection']);
    await toProcessing(made.id);
    expectOk(
      await t.operator.post(`/api/admin/medication-requests/${made.id}/fill`, {
        items: [{ item_id: made.items[0], lot_number: 'X-1', compounded_at: COMPOUNDED }],
      }),
      'fill',
    );
    const fillId = await fillIdOf(made.items[0] as string);
    const theirs = elsewhere.clinic.clinicId;
    expect(await read(medicationRequestKind, made.items[0] as string, theirs)).toBeUndefined();
    expect(await read(medicationKind, fillId, theirs)).toBeUndefined();
    expect(await read(medicationKind, injectionId, theirs)).toBeUndefined();
    for (const raw of [{ patient: parties.patientId, intent: 'order' }, { _id: made.items[0] as string }]) {
      const page = await search(medicationRequestKind, raw, { clinicId: theirs });
      expect([page.matches, page.total, page.hasMore]).toEqual([[], 0, false]);
    }
    const medications = await search(medicationKind, { _id: `${fillId},${injectionId}` }, { clinicId: theirs });
    expect([medications.matches, medications.total]).toEqual([[], 0]);
    // The home clinic finds both.
    expect((await search(medicationKind, { _id: `${fillId},${injectionId}` })).total).toBe(2);
  });

  it('when a filled item’s Medication is read, then batch holds its lot and beyond-use date, ingredients the formula’s and the lots’, and the read is audited as the order', async () => {
    const parties = await newPatient();
    const made = await order(parties, ['Semaglutide Injection']);
    await toProcessing(made.id);
    expectOk(
      await t.operator.post(`/api/admin/medication-requests/${made.id}/fill`, {
        items: [
          {
            item_id: made.items[0],
            lot_number: '24-117',
            compounded_at: COMPOUNDED,
            ingredient_lots: [
              { ingredient: 'Semaglutide sodium', lot_number: 'SEM-9.1', expires_on: '2027-06-30' },
              { ingredient: 'Sodium chloride', lot_number: 'NACL-2', expires_on: '2027-03-31' },
            ],
          },
        ],
      }),
      'fill',
    );
    const fillId = await fillIdOf(made.items[0] as string);
    expect((await readRequest(made.items[0] as string))?.resource.medicationReference?.reference).toBe(`Medication/${fillId}`);

    const result = await read(medicationKind, fillId);
    expect(result?.resource).toMatchObject({
      resourceType: 'Medication',
      id: fillId,
      code: { text: 'Semaglutide Injection' },
      form: { text: 'Injectable solution' },
      batch: { lotNumber: '24-117', expirationDate: '2026-12-11' },
    });
    expect(result?.resource.ingredient?.map((i) => [i.itemCodeableConcept?.text, i.isActive])).toEqual([
      ['Semaglutide sodium', true],
      ['Bacteriostatic water', false],
      ['Sodium chloride', undefined],
    ]);
    expect(result?.audit).toEqual([{ type: 'medication_request', id: made.id, clinicId: home.clinic.clinicId }]);
  });

  it('when a formulary entry’s Medication is read, then its ingredients carry Ratio strengths, in UCUM where the unit is one, per capsule for capsules', async () => {
    const injection = await read(medicationKind, injectionId);
    expect(injection?.resource).toMatchObject({
      code: { text: 'Semaglutide Injection' },
      status: 'active',
      form: { text: 'Injectable solution' },
    });
    expect(injection?.resource.batch).toBeUndefined();
    expect(injection?.resource.ingredient).toEqual([
      {
        itemCodeableConcept: { text: 'Semaglutide sodium' },
        isActive: true,
        strength: {
          numerator: { value: 2.5, unit: 'mg', system: UCUM, code: 'mg' },
          denominator: { value: 1, unit: 'mL', system: UCUM, code: 'mL' },
        },
      },
      {
        itemCodeableConcept: { text: 'Bacteriostatic water' },
        isActive: false,
        strength: {
          numerator: { value: 1, unit: 'mL', system: UCUM, code: 'mL' },
          denominator: { value: 1, unit: '1', system: UCUM, code: '1' },
        },
      },
    ]);
    expect(injection?.audit).toEqual([{ type: 'medication', id: injectionId, clinicId: home.clinic.clinicId }]);

    const capsules = await read(medicationKind, capsulesId);
    expect(capsules?.resource).toMatchObject({ code: { text: 'Progesterone SR 100 mg' }, form: { text: 'Capsules' } });
    expect(capsules?.resource.ingredient).toEqual([
      {
        itemCodeableConcept: { text: 'Progesterone micronized' },
        isActive: true,
        strength: { numerator: { value: 100, unit: 'mg', system: UCUM, code: 'mg' }, denominator: { value: 1, unit: 'capsule' } },
      },
      // `q.s.` is no number: no strength.
      { itemCodeableConcept: { text: 'Methocel E4M' }, isActive: false },
    ]);
  });

  it('when Medications are paged, then entries and fills come in one id order, strictly after the last, with their total', async () => {
    const clinic = await createOrderSetup(t, { clinicName: 'Paging Clinic', formulary: ['Gabapentin', 'Tirzepatide'] });
    const made = await order(clinic, ['Gabapentin', 'Tirzepatide']);
    await toProcessing(made.id);
    expectOk(
      await t.operator.post(`/api/admin/medication-requests/${made.id}/fill`, {
        items: made.items.map((item, n) => ({ item_id: item, lot_number: `P-${n}`, compounded_at: COMPOUNDED })),
      }),
      'fill',
    );
    const expected = [
      ...(await t.ctx.db.selectFrom('medications').select('id').where('clinic_id', '=', clinic.clinic.clinicId).execute()),
      ...(await t.ctx.db
        .selectFrom('medication_item_fills')
        .select('id')
        .where('clinic_id', '=', clinic.clinic.clinicId)
        .execute()),
    ]
      .map((row) => row.id)
      .sort();
    expect(expected).toHaveLength(4);
    const seen: string[] = [];
    let after: string | undefined;
    const shape: [number, boolean, number][] = [];
    for (;;) {
      const page = await search(
        medicationKind,
        { _count: '3' },
        { clinicId: clinic.clinic.clinicId, ...(after === undefined ? {} : { after }) },
      );
      shape.push([page.matches.length, page.hasMore, page.total]);
      seen.push(...page.matches.map((m) => m.id ?? ''));
      if (!page.hasMore) break;
      after = page.matches.at(-1)?.id;
    }
    expect(shape).toEqual([
      [3, true, 4],
      [1, false, 4],
    ]);
    expect(seen).toEqual(expected);
  });
});
