import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  advanceOrder,
  createOrder,
  createOrderSetup,
  expectOk,
  getOrder,
  itemBody,
  type OrderSetup,
  outboxEventsOf,
  ownPatient,
} from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { trackingNumberProblem } from '../../src/shipments/tracking-number.js';

/** The setup with a patient of its own: a second active order of one formula for a patient is held as duplicate therapy. */
/** Issue 30, item 9: what the pharmacy's order read and status changes add for the console. */
describe.each(DIALECTS)(
  'the operator\u2019s order: tracking formats, cancellation reasons, formulas and the label on %s',
  (dialect) => {
    let t: TestApp;
    let setup: OrderSetup;
    const setStatus = (id: string, body: Record<string, unknown>) =>
      t.operator.post(`/api/admin/medication-requests/${id}/status`, body);
    const operatorOrder = async (id: string) => expectOk(await t.operator.get(`/api/admin/medication-requests/${id}`), 'read');
    const historyCount = async (id: string) =>
      (
        await t.ctx.db
          .selectFrom('medication_request_status_history')
          .select('id')
          .where('medication_request_id', '=', id)
          .execute()
      ).length;

    beforeAll(async () => {
      t = await TestApp.start({
        dialect,
        env: {
          PHARMACY_NAME: 'Riverside Compounding',
          PHARMACY_ADDRESS_LINE1: '12 Mill Road',
          PHARMACY_CITY: 'Albany',
          PHARMACY_STATE: 'NY',
          PHARMACY_POSTAL_CODE: '12207',
          PHARMACY_PHONE: '518-555-0100',
        },
      });
      setup = await createOrderSetup(t);
    });
    afterAll(async () => t.close());

    async function processing(overrides: Record<string, unknown> = {}): Promise<string> {
      const id = await createOrder(t, setup, overrides);
      expect((await setStatus(id, { status: 'processing' })).status).toBe(200);
      return id;
    }

    describe('a tracking number in its carrier\u2019s format', () => {
      it.each([
        ['FedEx', {}, '1Z999AA10123456784'],
        ['FedEx', {}, 'TRACK-0001'],
        ['UPS', { carrier_id: 'ups', service_id: 'ups_ground' }, '794612345678'],
        ['USPS', { carrier_id: 'usps', service_id: 'usps_priority' }, '1Z999AA10123456784'],
      ])(
        'when a %s order is shipped with a number of another format (%#), then 400 names tracking_number and nothing changes',
        async (_carrier, overrides, number) => {
          const id = await processing(overrides);
          const before = { history: await historyCount(id), events: (await outboxEventsOf(t, id)).length };
          const res = await setStatus(id, { status: 'shipped', tracking_number: number });
          expect(res.status).toBe(400);
          expect(res.body.error.code).toBe('VALIDATION_ERROR');
          expect(Object.keys(res.body.error.details)).toEqual(['tracking_number']);
          expect(res.body.error.details.tracking_number).toMatch(/^must be a (UPS|USPS|FedEx) number/);
          expect((await operatorOrder(id)).status).toBe('processing');
          expect({ history: await historyCount(id), events: (await outboxEventsOf(t, id)).length }).toEqual(before);
        },
      );

      it.each([
        ['FedEx', {}, '7946 1234 5678'],
        ['UPS', { carrier_id: 'ups', service_id: 'ups_ground' }, '1Z999AA10123456784'],
        ['USPS', { carrier_id: 'usps', service_id: 'usps_priority' }, '9400111206213000000001'],
        ['USPS', { carrier_id: 'usps', service_id: 'usps_priority_express' }, 'EC123456785US'],
      ])(
        'when a %s order is shipped with a number of its format (%#), then it ships with it',
        async (_carrier, overrides, number) => {
          const id = await processing(overrides);
          const res = await setStatus(id, { status: 'shipped', tracking_number: number });
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          expect(res.body.data).toMatchObject({ status: 'shipped', tracking_number: number });
        },
      );

      it('when the sandbox ships a UPS and a USPS order, then each gets a number of its carrier\u2019s format', async () => {
        for (const [format, overrides] of [
          ['ups', { carrier_id: 'ups', service_id: 'ups_ground' }],
          ['usps', { carrier_id: 'usps', service_id: 'usps_priority' }],
          ['fedex', {}],
        ] as const) {
          const id = await createOrder(t, setup, overrides);
          const shipped = await advanceOrder(t, setup.clinic, id, 'shipped');
          expect(trackingNumberProblem(format, shipped.tracking_number)).toBeNull();
        }
      });
    });

    describe('a cancellation\u2019s reason', () => {
      const REASON = 'Prescriber asked to stop: patient started another therapy';

      it('when the pharmacy cancels with a reason, then its history keeps it and neither the partner nor the event carries it', async () => {
        const id = await processing();
        const res = await setStatus(id, { status: 'cancelled', reason: REASON });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(JSON.stringify(res.body)).not.toContain('another therapy');

        const order = await operatorOrder(id);
        expect(order.status_history.at(-1)).toMatchObject({ from: 'processing', to: 'cancelled', reason: REASON });
        expect(order.status_history.slice(0, -1).every((step: { reason: unknown }) => step.reason === null)).toBe(true);
        expect(JSON.stringify(await getOrder(t, setup.clinic, id))).not.toContain('another therapy');
        const events = await outboxEventsOf(t, id);
        expect(events.find((e) => e.type === 'order.cancelled')).toBeDefined();
        expect(JSON.stringify(events)).not.toContain('another therapy');
      });

      it('when the pharmacy cancels without a reason, then the order is cancelled as before (the API keeps it optional)', async () => {
        const id = await createOrder(t, setup);
        expect((await setStatus(id, { status: 'cancelled' })).status).toBe(200);
        expect((await operatorOrder(id)).status_history.at(-1)).toMatchObject({ to: 'cancelled', reason: null });
      });

      it.each([
        [{ status: 'processing', reason: REASON }, 'is only accepted with status cancelled'],
        [{ status: 'cancelled', reason: 'Stop\u0000now' }, undefined],
        [{ status: 'cancelled', reason: 'Stop \u202enow' }, undefined],
        [{ status: 'cancelled', reason: '   ' }, undefined],
        [{ status: 'cancelled', reason: 'x'.repeat(501) }, undefined],
      ])('when the reason is refused (%#), then 400 names reason and nothing changes', async (body, message) => {
        const id = await createOrder(t, setup);
        const before = await historyCount(id);
        const res = await setStatus(id, body);
        expect(res.status).toBe(400);
        expect(Object.keys(res.body.error.details)).toEqual(['reason']);
        if (message) expect(res.body.error.details.reason).toBe(message);
        expect((await operatorOrder(id)).status).toBe('pending');
        expect(await historyCount(id)).toBe(before);
      });
    });

    describe('what the order page reads', () => {
      it('when an item\u2019s formulary entry has a formula, then the order shows it beside the item; an entry without one shows its formula empty', async () => {
        const formulary = expectOk(await t.operator.get(`/api/admin/clinics/${setup.clinic.clinicId}/medications`), 'formulary')
          .medications as { medication_id: string; name: string }[];
        const semaglutide = formulary.find((m) => m.name === 'Semaglutide');
        if (!semaglutide) throw new Error('the test clinic\u2019s formulary has Semaglutide');
        expectOk(
          await t.operator.patch(`/api/admin/clinics/${setup.clinic.clinicId}/medications/${semaglutide.medication_id}`, {
            strength: '2.5 mg/mL',
            ingredients: [{ name: 'semaglutide sodium', strength: '2.5', unit: 'mg/mL', active: true }],
            preparation: 'sterile',
            bud_category: 'aqueous_preserved',
            storage: 'refrigerated',
            beyond_use_days: 28,
            // USP <797>: Category 2, aseptic, sterility tested: up to 45 days refrigerated.
            sterile_condition: { category: 2, preparation: 'aseptic', nonsterile_component: true, sterility_tested: true },
          }),
          'formula',
        );
        const id = await createOrder(t, setup, {
          medication_requests: [itemBody({ medication: 'Semaglutide' }), itemBody({ medication: 'Tirzepatide' })],
        });
        const order = await operatorOrder(id);
        expect(order.medication_requests[0].formulary_entry).toMatchObject({
          medication_id: semaglutide.medication_id,
          name: 'Semaglutide',
          strength: '2.5 mg/mL',
          ingredients: [{ name: 'semaglutide sodium', strength: '2.5', unit: 'mg/mL', active: true }],
          preparation: 'sterile',
          storage: 'refrigerated',
          controlled_schedule: null,
        });
        expect(order.medication_requests[1].formulary_entry).toMatchObject({
          name: 'Tirzepatide',
          ingredients: null,
          storage: null,
        });
        // The partner's view is unchanged: no formulary entry on its items.
        expect((await getOrder(t, setup.clinic, id)).medication_requests[0]).not.toHaveProperty('formulary_entry');
      });

      it('when the order is read, then it names the patient\u2019s sex and the pharmacy of the settings', async () => {
        const id = await createOrder(t, setup);
        const order = await operatorOrder(id);
        expect(order.patient.gender).toMatch(/^(male|female|other|unknown)$/);
        expect(order.pharmacy).toEqual({
          name: 'Riverside Compounding',
          address_line_1: '12 Mill Road',
          address_line_2: null,
          city: 'Albany',
          state: 'NY',
          postal_code: '12207',
          phone: '518-555-0100',
        });
      });

      it('when the queue lists orders, then each says whether it ships cold', async () => {
        const cold = await createOrder(t, await ownPatient(t, setup), { is_refrigerated: true });
        const listed = expectOk(await t.operator.get(`/api/admin/medication-requests?medication_request_id=${cold}`), 'queue');
        expect(listed.items).toHaveLength(1);
        expect(listed.items[0]).toMatchObject({
          medication_request_id: cold,
          is_refrigerated: true,
          refill_of: null,
          hold: null,
        });
      });
    });
  },
);
