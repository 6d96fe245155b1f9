import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_IDS } from '../../src/openapi-examples.js';
import { SANDBOX_FORMULARY } from '../../src/sandbox-seed.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

describe.each(DIALECTS)('the request examples of the OpenAPI document on %s', (dialect) => {
  let t: TestApp;
  let doc: any;
  let clinic: TestClinic;
  /** Real ids in place of the examples' placeholders, as a partner fills them in. */
  const ids = new Map<string, string>();
  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    doc = (await t.request('GET', '/openapi.json')).body;
    clinic = await t.createClinic({ formulary: SANDBOX_FORMULARY.map((medication) => medication.name) });
    ids.set(EXAMPLE_IDS.clinic, clinic.clinicId);
  });
  afterAll(async () => t.close());

  /** Sends the example of an operation, its placeholders replaced; answers `data`. */
  async function sendExample(operationId: string, params: Record<string, string> = {}): Promise<any> {
    const found = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
      Object.entries<any>(item)
        .filter(([, op]) => op.operationId === operationId)
        .map(([method, op]) => ({ path, method, op })),
    );
    expect(found, operationId).toHaveLength(1);
    const { path, method, op } = found[0]!;
    const example = op.requestBody?.content?.['application/json']?.example;
    expect(example, `${operationId} has an example`).toBeDefined();
    let text = JSON.stringify(example);
    for (const [placeholder, id] of ids) text = text.replaceAll(placeholder, id);
    const url = path.replace(/\{(\w+)\}/g, (_: string, name: string) => params[name] ?? '');
    const partner = t.partner(clinic.apiKey);
    const send =
      method === 'delete' ? partner.delete : method === 'patch' ? partner.patch : method === 'put' ? partner.put : partner.post;
    const res = await send(url, JSON.parse(text));
    expect(res.status, `${operationId}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body.data;
  }

  it('when each partner example is sent in the order of the walkthrough, with the ids it returned, then each succeeds', async () => {
    ids.set(EXAMPLE_IDS.practitioner, (await sendExample('createPractitioner')).practitioner_id);
    const practitionerId = ids.get(EXAMPLE_IDS.practitioner)!;
    expect(await sendExample('updatePractitionerCredentials', { practitionerId })).toMatchObject({
      dea_number: 'BL1234563',
      licenses: [{ state_code: 'TX' }, { state_code: 'CA' }],
    });
    ids.set(EXAMPLE_IDS.patient, (await sendExample('createPatient')).patient_id);
    const order = (await sendExample('createMedicationOrder')).medication_request_id;
    ids.set(EXAMPLE_IDS.order, order);
    expect((await sendExample('advanceSandboxMedicationOrder', { id: order })).status).toBe('shipped');
    expect((await sendExample('createRefillRequest')).medication_order_id).toEqual(expect.any(String));
    ids.set(EXAMPLE_IDS.webhook, (await sendExample('createWebhook')).webhook_id);
    expect((await sendExample('recoverWebhook')).scheduled).toBe(0);
    const webhookId = ids.get(EXAMPLE_IDS.webhook)!;
    expect(await sendExample('updateWebhookById', { webhookId })).toMatchObject({ max_in_flight: 5, max_per_second: 20 });
    expect(await sendExample('rotateWebhookSecret', { webhookId })).toMatchObject({ webhook_id: webhookId });
    await sendExample('deleteWebhook');
  });

  it('when the document is read, then every partner request body has an example', () => {
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      if (!path.startsWith('/api/external/')) continue;
      for (const [method, op] of Object.entries<any>(item)) {
        if (op.requestBody) expect(op.requestBody.content['application/json'].example, `${method} ${path}`).toBeDefined();
      }
    }
  });
});
