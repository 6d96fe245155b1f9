import { afterAll, describe, expect, it } from 'vitest';
import { compilationCounts, compiledOnce } from '../../src/contracts/compiled-once.js';
import { practitionerBody } from '../helpers/fixtures.js';
import { TestApp } from '../helpers/test-app.js';

/**
 * Route schemas are compiled when first used, once per process (src/contracts/compiled-once.ts):
 * building an application compiles nothing, and a second application in the same process compiles
 * nothing for the requests the first one served, and validates and serializes as the first does.
 */
describe('route schemas compiled once per process, when first used', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  /** A create, a read, and a create refused by validation: what each application is asked. */
  async function askPractitioners(t: TestApp) {
    const { apiKey, clinicId } = await t.createClinic();
    const created = await t.partner(apiKey).post('/api/external/practitioner', practitionerBody(clinicId));
    const read = await t.partner(apiKey).get(`/api/external/practitioner/${created.body.data?.practitioner_id}`);
    const refused = await t.partner(apiKey).post('/api/external/practitioner', practitionerBody(clinicId, { email: 'nope' }));
    return { clinicId, created, read, refused };
  }

  it('when applications are built, then they compile nothing until asked; and what one was asked, the next does not compile again', async () => {
    const beforeBuilds = compilationCounts();
    const first = await TestApp.start({ dialect: 'sqlite' });
    apps.push(first);
    const second = await TestApp.start({ dialect: 'sqlite' });
    apps.push(second);
    expect(compilationCounts()).toEqual(beforeBuilds);

    await askPractitioners(first);
    // This worker may have run these routes before this file (its files share a process): what
    // counts is that their schemas were compiled, here or before, and never again.
    const afterFirst = compilationCounts();
    expect(afterFirst.validators).toBeGreaterThan(0);
    expect(afterFirst.serializers).toBeGreaterThan(0);

    const { clinicId, created, read, refused } = await askPractitioners(second);
    expect(compilationCounts()).toEqual(afterFirst);
    expect(created.status).toBe(200);
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ first_name: practitionerBody(clinicId).first_name });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual({ email: expect.any(String) });
  });

  it('when a schema is asked for again, for the same part or as a copy, then it is compiled once, at its first use; another part or content is compiled apart', () => {
    const calls: string[] = [];
    const compile = compiledOnce('other', (schema: object, part: string) => {
      calls.push(`${part} ${JSON.stringify(schema)}`);
      return () => part;
    });
    const schema = { type: 'object', properties: { id: { type: 'string' } } };
    const body = compile(schema, 'body');
    expect(calls).toEqual([]);
    for (const made of [body, compile(schema, 'body'), compile(structuredClone(schema), 'body')]) made();
    for (const part of ['querystring', 'body']) compile(part === 'body' ? { ...schema, required: ['id'] } : schema, part)();
    expect(compile(schema, 'body')).toBe(body);
    expect(compile(structuredClone(schema), 'body')).toBe(body);
    expect(compile(schema, 'querystring')).not.toBe(body);
    expect(compile({ ...schema, required: ['id'] }, 'body')).not.toBe(body);
    expect(calls).toEqual([
      'body {"type":"object","properties":{"id":{"type":"string"}}}',
      'querystring {"type":"object","properties":{"id":{"type":"string"}}}',
      'body {"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}',
    ]);
  });
});
