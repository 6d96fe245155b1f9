import type { MedicationDispense } from '@medplum/fhirtypes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { medicationDispenseKind } from '../../src/fhir/medication-dispense.fhir.js';
import { dispenseConditions, medicationDispenseStatus, type DispenseStatus } from '../../src/fhir/medication-dispense-status.js';
import { parseSearch, type RawQuery } from '../../src/fhir/fhir-search.js';
import type { OrderStatus } from '../../src/orders/order-status.js';
import {
  advanceOrder,
  createOrder,
  createOrderSetup,
  expectOk,
  getOrder,
  itemBody,
  type OrderSetup,
  ownPatient,
  requestRefill,
} from '../helpers/factories.js';
import { emptyDatabaseTally, probeDatabases } from '../helpers/database-probe.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { fakeClock } from '../webhooks/support.js';
import { expectValidFhir } from './fhir-validator.js';

/*
 * MedicationDispense (issue 32): one per item of an order past `pending`, its status from the order
 * and the item's fill. Orders are built and moved through the partner, sandbox and operator APIs;
 * the kind is called directly, and everything it returns goes through Medplum's validator.
 */

const NOW = Date.parse('2026-11-27T15:00:00.000Z');
const COMPOUNDED = '2026-11-27T10:30:00.000Z';

describe('the MedicationDispense status mapping', () => {
  it('when each order status and fill is mapped, then the table of issue 32 holds', () => {
    const of = (orderStatus: OrderStatus, reachedProcessing: boolean, filled: boolean) =>
      medicationDispenseStatus({ orderStatus, reachedProcessing, filled });
    expect(of('pending', false, false)).toBeNull();
    expect(of('processing', true, false)).toBe('preparation');
    expect(of('processing', true, true)).toBe('in-progress');
    expect(of('on_hold', true, false)).toBe('on-hold');
    expect(of('on_hold', false, false)).toBeNull();
    expect(of('shipped', true, true)).toBe('completed');
    expect(of('delivered', true, false)).toBe('completed');
    expect(of('cancelled', true, true)).toBe('cancelled');
    expect(of('cancelled', false, false)).toBeNull();
  });

  it('when statuses are read backwards, then each maps to the orders and fills that give it, and a status never given to nothing', () => {
    const back = (...codes: DispenseStatus[]) => dispenseConditions(new Set(codes));
    expect(back('completed')).toEqual([{ orderStatus: 'shipped' }, { orderStatus: 'delivered' }]);
    expect(back('in-progress')).toEqual([{ orderStatus: 'processing', filled: true }]);
    expect(back('preparation')).toEqual([{ orderStatus: 'processing', filled: false }]);
    expect(back('on-hold')).toEqual([{ orderStatus: 'on_hold', reachedProcessing: true }]);
    expect(back('cancelled')).toEqual([{ orderStatus: 'cancelled', reachedProcessing: true }]);
    expect(back('stopped', 'entered-in-error', 'declined', 'unknown')).toEqual([]);
    expect(dispenseConditions()).toEqual([
      { orderStatus: 'processing' },
      { orderStatus: 'on_hold', reachedProcessing: true },
      { orderStatus: 'shipped' },
      { orderStatus: 'delivered' },
      { orderStatus: 'cancelled', reachedProcessing: true },
    ]);
  });
});

describe.each(DIALECTS)('MedicationDispense on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  let other: OrderSetup;
  const time = fakeClock(NOW);

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: time.clock });
    setup = await createOrderSetup(t);
    other = await createOrderSetup(t);
  });
  afterAll(async () => t.close());

  /** A patient of the clinic of their own, so that each test's searches see only its orders. */

  /** A pending order of `count` Gabapentin items (an entry without a formula: no intake hold, ships unfilled). */
  async function order(parties: OrderSetup, count = 1): Promise<{ id: string; items: string[] }> {
    const id = await createOrder(t, parties, {
      medication_requests: Array.from({ length: count }, (_, i) =>
        itemBody({
          medication: 'Gabapentin',
          dose: `${100 * (i + 1)}mg`,
          quantity: 30,
          unit_of_measure: 'capsules',
          days_supply: 30,
        }),
      ),
    });
    const read = await getOrder(t, parties.clinic, id);
    return { id, items: read.medication_requests.map((item: { id: string }) => item.id) };
  }

  const fill = async (orderId: string, itemIds: string[]) =>
    expectOk(
      await t.operator.post(`/api/admin/medication-requests/${orderId}/fill`, {
        items: itemIds.map((item_id, i) => ({ item_id, lot_number: `GAB-${i + 1}`, compounded_at: COMPOUNDED })),
      }),
      'fill',
    );
  const hold = async (orderId: string) =>
    expectOk(
      await t.operator.post(`/api/admin/medication-requests/${orderId}/hold`, {
        reason_code: 'prescription_clarification',
        message: 'Please confirm the dose with the prescriber.',
      }),
      'hold',
    );
  const cancel = async (parties: OrderSetup, orderId: string) =>
    expectOk(await t.partner(parties.clinic.apiKey).post(`/api/external/medication-order/${orderId}/cancel`), 'cancel');

  const fillIdOf = async (itemId: string) =>
    (
      await t.ctx.db
        .selectFrom('medication_item_fills')
        .select('id')
        .where('medication_item_id', '=', itemId)
        .executeTakeFirstOrThrow()
    ).id;
  const orderRow = (id: string) =>
    t.ctx.db.selectFrom('medication_requests').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  async function read(parties: OrderSetup, id: string) {
    const result = await medicationDispenseKind.read(t.ctx, parties.clinic.clinicId, id);
    if (result !== undefined) expectValidFhir(result.resource);
    return result;
  }

  async function search(parties: OrderSetup, raw: RawQuery, count = 50, afterId: string | null = null) {
    const { query } = parseSearch(medicationDispenseKind, raw);
    const page = await medicationDispenseKind.search(t.ctx, parties.clinic.clinicId, query, { count, afterId });
    for (const match of page.matches) expectValidFhir(match);
    return page;
  }

  const idsOf = (matches: MedicationDispense[]) => matches.map((m) => m.id);

  it('when an order is pending, then its items have no dispense, by id or by search', async () => {
    const parties = await ownPatient(t, setup);
    const pending = await order(parties);
    expect(await read(parties, pending.items[0] as string)).toBeUndefined();
    const page = await search(parties, { patient: `Patient/${parties.patientId}` });
    expect(page).toMatchObject({ matches: [], total: 0, hasMore: false, audit: [] });
    expect((await search(parties, { _id: pending.items[0] })).total).toBe(0);
  });

  it('when an order is held or cancelled straight from pending, then it has no dispense', async () => {
    const parties = await ownPatient(t, setup);
    const held = await order(parties);
    await hold(held.id);
    const cancelled = await order(parties);
    await hold(cancelled.id);
    await cancel(parties, cancelled.id);
    expect((await orderRow(cancelled.id)).status).toBe('cancelled');
    expect(await read(parties, held.items[0] as string)).toBeUndefined();
    expect(await read(parties, cancelled.items[0] as string)).toBeUndefined();
    expect((await search(parties, { patient: parties.patientId })).total).toBe(0);
    expect((await search(parties, { patient: parties.patientId, status: 'on-hold,cancelled' })).total).toBe(0);
  });

  it('when a processing order is filled, then its dispense goes from preparation to in-progress, with the fill’s Medication and time', async () => {
    const parties = await ownPatient(t, setup);
    const processing = await order(parties);
    const itemId = processing.items[0] as string;
    await advanceOrder(t, parties.clinic, processing.id, 'processing');

    const before = await read(parties, itemId);
    expect(before?.resource).toEqual({
      resourceType: 'MedicationDispense',
      id: itemId,
      status: 'preparation',
      type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'FF', display: 'First Fill' }] },
      medicationCodeableConcept: { text: 'Gabapentin 100mg' },
      subject: { reference: `Patient/${parties.patientId}` },
      authorizingPrescription: [{ reference: `MedicationRequest/${itemId}` }],
      quantity: { value: 30, unit: 'capsules' },
      daysSupply: { value: 30, unit: 'days', system: 'http://unitsofmeasure.org', code: 'd' },
      dosageInstruction: [{ text: 'Inject 0.25 mg subcutaneously once weekly' }],
    });
    expect(before?.audit).toEqual([{ type: 'medication_request', id: processing.id, clinicId: parties.clinic.clinicId }]);

    await fill(processing.id, [itemId]);
    const after = (await read(parties, itemId))?.resource;
    expect(after).toMatchObject({
      status: 'in-progress',
      medicationReference: { reference: `Medication/${await fillIdOf(itemId)}`, display: 'Gabapentin 100mg' },
      whenPrepared: COMPOUNDED,
    });
    expect(after?.medicationCodeableConcept).toBeUndefined();
    expect(after?.whenHandedOver).toBeUndefined();
  });

  it('when a processing order is put on hold, then its dispense is on-hold with the hold’s reason', async () => {
    const parties = await ownPatient(t, setup);
    const held = await order(parties);
    await advanceOrder(t, parties.clinic, held.id, 'processing');
    await hold(held.id);
    const resource = (await read(parties, held.items[0] as string))?.resource;
    expect(resource?.status).toBe('on-hold');
    expect(resource?.statusReasonCodeableConcept?.text).toMatch(/clarified/);
    expect(resource?.whenHandedOver).toBeUndefined();
  });

  it('when an order ships and is delivered, then its dispense is completed, handed over when it shipped', async () => {
    const parties = await ownPatient(t, setup);
    const shipped = await order(parties);
    await advanceOrder(t, parties.clinic, shipped.id, 'processing');
    await fill(shipped.id, shipped.items);
    await advanceOrder(t, parties.clinic, shipped.id, 'shipped');
    const shippedAt = (await orderRow(shipped.id)).shipped_at;
    expect(shippedAt).toEqual(expect.any(String));
    const itemId = shipped.items[0] as string;
    expect((await read(parties, itemId))?.resource).toMatchObject({
      status: 'completed',
      whenHandedOver: shippedAt,
      whenPrepared: COMPOUNDED,
      medicationReference: { reference: `Medication/${await fillIdOf(itemId)}` },
    });

    time.advance(86_400_000);
    await advanceOrder(t, parties.clinic, shipped.id, 'delivered');
    expect((await read(parties, itemId))?.resource).toMatchObject({ status: 'completed', whenHandedOver: shippedAt });
  });

  it('when a processing order is cancelled, then its dispense is cancelled, never handed over', async () => {
    const parties = await ownPatient(t, setup);
    const cancelled = await order(parties);
    await advanceOrder(t, parties.clinic, cancelled.id, 'processing');
    await cancel(parties, cancelled.id);
    const resource = (await read(parties, cancelled.items[0] as string))?.resource;
    expect(resource?.status).toBe('cancelled');
    expect(resource?.whenHandedOver).toBeUndefined();
  });

  it('when a refill is processing, then its dispense is a refill', async () => {
    const parties = await ownPatient(t, setup);
    const original = await order(parties);
    await advanceOrder(t, parties.clinic, original.id, 'shipped');
    const refill = await requestRefill(t, parties.clinic, original.id);
    await advanceOrder(t, parties.clinic, refill.medication_order_id, 'processing');
    const [refillItem] = (await getOrder(t, parties.clinic, refill.medication_order_id)).medication_requests;
    expect((await read(parties, refillItem.id))?.resource.type?.coding?.[0]?.code).toBe('RF');
    expect((await read(parties, original.items[0] as string))?.resource.type?.coding?.[0]?.code).toBe('FF');
  });

  it('when a patient’s dispenses are searched, then every item past pending comes, ids ascending, each order audited once', async () => {
    const parties = await ownPatient(t, setup);
    await order(parties); // pending: none
    const processing = await order(parties, 2);
    await advanceOrder(t, parties.clinic, processing.id, 'processing');
    const shipped = await order(parties);
    await advanceOrder(t, parties.clinic, shipped.id, 'shipped');
    const elsewhere = await order(await ownPatient(t, setup));
    await advanceOrder(t, parties.clinic, elsewhere.id, 'processing');

    const all = [...processing.items, ...shipped.items].sort();
    const page = await search(parties, { patient: `Patient/${parties.patientId}` });
    expect(idsOf(page.matches)).toEqual(all);
    expect(page.total).toBe(3);
    expect(page.hasMore).toBe(false);
    expect(page.audit.map((a) => a.id).sort()).toEqual([processing.id, shipped.id].sort());
    expect(page.audit.every((a) => a.type === 'medication_request' && a.clinicId === parties.clinic.clinicId)).toBe(true);

    const completed = await search(parties, { patient: parties.patientId, status: 'completed' });
    expect(idsOf(completed.matches)).toEqual(shipped.items);
    expect(completed.total).toBe(1);
    expect(completed.audit).toEqual([{ type: 'medication_request', id: shipped.id, clinicId: parties.clinic.clinicId }]);

    await fill(processing.id, [processing.items[1] as string]);
    const inProgress = await search(parties, {
      patient: parties.patientId,
      status: 'http://hl7.org/fhir/CodeSystem/medicationdispense-status|in-progress',
    });
    expect(idsOf(inProgress.matches)).toEqual([processing.items[1]]);
    expect(idsOf((await search(parties, { patient: parties.patientId, status: 'preparation' })).matches)).toEqual([
      processing.items[0],
    ]);
    expect((await search(parties, { patient: parties.patientId, status: 'stopped' })).total).toBe(0);
    expect((await search(parties, { patient: parties.patientId, status: 'http://example.org/other|completed' })).total).toBe(0);
  });

  it('when every status is searched, then each search finds exactly the dispenses a read shows with that status', async () => {
    const parties = await ownPatient(t, setup);
    const steps: ((id: string, items: string[]) => Promise<unknown>)[] = [
      async () => undefined,
      (id) => advanceOrder(t, parties.clinic, id, 'processing'),
      async (id, items) => {
        await advanceOrder(t, parties.clinic, id, 'processing');
        await fill(id, items);
      },
      async (id) => {
        await advanceOrder(t, parties.clinic, id, 'processing');
        await hold(id);
      },
      (id) => hold(id),
      (id) => advanceOrder(t, parties.clinic, id, 'shipped'),
      (id) => advanceOrder(t, parties.clinic, id, 'delivered'),
      async (id) => {
        await advanceOrder(t, parties.clinic, id, 'processing');
        await cancel(parties, id);
      },
      (id) => cancel(parties, id),
    ];
    const items: string[] = [];
    for (const step of steps) {
      const made = await order(parties);
      await step(made.id, made.items);
      items.push(...made.items);
    }
    const statusOf = new Map<string, string>();
    for (const id of items) {
      const status = (await read(parties, id))?.resource.status;
      if (status !== undefined) statusOf.set(id, status);
    }
    expect([...statusOf.values()].sort()).toEqual(
      ['cancelled', 'completed', 'completed', 'in-progress', 'on-hold', 'preparation'].sort(),
    );
    for (const code of [
      'preparation',
      'in-progress',
      'cancelled',
      'on-hold',
      'completed',
      'entered-in-error',
      'stopped',
      'declined',
      'unknown',
    ]) {
      const expected = [...statusOf]
        .filter(([, status]) => status === code)
        .map(([id]) => id)
        .sort();
      const page = await search(parties, { patient: parties.patientId, status: code });
      expect(idsOf(page.matches), code).toEqual(expected);
      expect(page.total, code).toBe(expected.length);
    }
  });

  it('when five dispenses are paged two at a time, then each page continues strictly after the last, with hasMore and the total', async () => {
    const parties = await ownPatient(t, setup);
    const first = await order(parties, 3);
    await advanceOrder(t, parties.clinic, first.id, 'processing');
    const second = await order(parties, 2);
    await advanceOrder(t, parties.clinic, second.id, 'shipped');
    const all = [...first.items, ...second.items].sort();

    const raw = { patient: parties.patientId };
    const one = await search(parties, raw, 2);
    expect(idsOf(one.matches)).toEqual(all.slice(0, 2));
    expect(one).toMatchObject({ total: 5, hasMore: true });
    const two = await search(parties, raw, 2, one.matches[1]?.id ?? null);
    expect(idsOf(two.matches)).toEqual(all.slice(2, 4));
    expect(two).toMatchObject({ total: 5, hasMore: true });
    const three = await search(parties, raw, 2, two.matches[1]?.id ?? null);
    expect(idsOf(three.matches)).toEqual(all.slice(4));
    expect(three).toMatchObject({ total: 5, hasMore: false });

    // Exactly `count` left: no further page.
    const last = await search(parties, raw, 2, all[2] ?? null);
    expect(idsOf(last.matches)).toEqual(all.slice(3));
    expect(last.hasMore).toBe(false);
  });

  it('when a page of one and a page of five are read, then each takes the same two queries (the page and its count)', async () => {
    const parties = await ownPatient(t, setup);
    const five = await order(parties, 5);
    await advanceOrder(t, parties.clinic, five.id, 'processing');
    const { query } = parseSearch(medicationDispenseKind, { patient: parties.patientId });
    const costOf = async (count: number) => {
      const tally = emptyDatabaseTally();
      const stop = probeDatabases(tally);
      try {
        const page = await medicationDispenseKind.search(t.ctx, parties.clinic.clinicId, query, { count, afterId: null });
        expect(page.matches).toHaveLength(count);
      } finally {
        stop();
      }
      return tally.queries;
    };
    expect(await costOf(1)).toBe(2);
    expect(await costOf(5)).toBe(2);
  });

  it('when another clinic asks for a clinic’s dispenses, by id, by _id or by patient, then it finds nothing', async () => {
    const parties = await ownPatient(t, setup);
    const shipped = await order(parties);
    await advanceOrder(t, parties.clinic, shipped.id, 'shipped');
    const itemId = shipped.items[0] as string;
    expect(await read(parties, itemId)).toBeDefined();

    expect(await read(other, itemId)).toBeUndefined();
    expect(await search(other, { _id: itemId })).toMatchObject({ matches: [], total: 0, hasMore: false, audit: [] });
    expect(await search(other, { patient: parties.patientId })).toMatchObject({ matches: [], total: 0, audit: [] });
    expect((await search(other, {})).matches.map((m) => m.id)).not.toContain(itemId);
    // The owner finds it by _id.
    expect(idsOf((await search(parties, { _id: itemId })).matches)).toEqual([itemId]);
  });
});
