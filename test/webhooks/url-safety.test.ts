import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpSender } from '../../src/delivery/http-sender.js';
import { checkHostIsPublic, checkUrlForm, isInternalAddress, type ResolveAll } from '../../src/delivery/url-safety.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const production = { allowHttp: false, allowPrivate: false };
const productionHttpForTests = { allowHttp: true, allowPrivate: false };
const permissive = { allowHttp: true, allowPrivate: true };

/** A DNS of our own: each name resolves to the listed address. */
const fakeDns =
  (table: Record<string, string>): ResolveAll =>
  async (hostname) => {
    const address = table[hostname];
    if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };

describe('webhook URL safety (SSRF)', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.0.0.5',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '192.0.2.10',
    '::1',
    '::',
    'fd00::1',
    'fc12:3456::1',
    'fe80::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '64:ff9b::a00:1',
    '2002:c0a8:101::1',
    '[::1]',
    'not-an-ip',
  ])('when the address is %s, then it is internal', (address) => {
    expect(isInternalAddress(address)).toBe(true);
  });

  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('when the address is %s, then it is public', (address) => {
    expect(isInternalAddress(address)).toBe(false);
  });

  it('when the URL form is checked in production, then only https without credentials passes', () => {
    expect(checkUrlForm('http://partner.example/hook', production)).toEqual({
      problem: 'must start with https:// (TLS is required in production)',
    });
    expect(checkUrlForm('ftp://partner.example/hook', permissive)).toEqual({ problem: 'must start with https:// or http://' });
    expect(checkUrlForm('/hook', production)).toEqual({ problem: 'must be an absolute URL' });
    expect(checkUrlForm('https://user:pw@partner.example/hook', production)).toEqual({ problem: 'must not contain credentials' });
    const ok = checkUrlForm('https://Partner.Example:8443/hook?x=1#frag', production);
    expect('url' in ok && ok.url.href).toBe('https://partner.example:8443/hook?x=1');
  });

  it('when a host is or resolves to an internal address, then it is refused unless private targets are allowed', async () => {
    const dns = fakeDns({ 'public.example': '93.184.215.14', 'rebind.example': '10.1.2.3', 'meta.example': '169.254.169.254' });
    expect(await checkHostIsPublic('public.example', production, dns)).toBeNull();
    expect(await checkHostIsPublic('rebind.example', production, dns)).toMatch(/resolves to 10\.1\.2\.3/);
    expect(await checkHostIsPublic('meta.example', production, dns)).toMatch(/169\.254\.169\.254/);
    expect(await checkHostIsPublic('localhost', production, dns)).toMatch(/local host name/);
    expect(await checkHostIsPublic('api.localhost', production, dns)).toMatch(/local host name/);
    expect(await checkHostIsPublic('[::1]', production, dns)).toMatch(/private or internal/);
    expect(await checkHostIsPublic('nowhere.example', production, dns)).toMatch(/could not be resolved/);
    expect(await checkHostIsPublic('rebind.example', permissive, dns)).toBeNull();
  });
});

describe('webhook sender SSRF guard at delivery time', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => receiver.stop());

  const send = async (policy: typeof production, url: string, dns?: ResolveAll) => {
    const sender = createHttpSender({ policy, timeoutMs: 2000, ...(dns ? { resolve: dns } : {}) });
    try {
      return await sender.send({ url, headers: {}, body: '{}' });
    } finally {
      await sender.close();
    }
  };

  it('when a name now resolves to an internal address (DNS rebinding), then the attempt is refused before connecting', async () => {
    const before = receiver.received.length;
    const outcome = await send(
      productionHttpForTests,
      `http://partner.example:${receiver.listeningPort}/hook`,
      fakeDns({ 'partner.example': '127.0.0.1' }),
    );
    expect(outcome.ok).toBe(false);
    expect(outcome.statusCode).toBeNull();
    expect(outcome.error).toMatch(/refused: partner\.example resolves to the internal address 127\.0\.0\.1 \(SSRF protection\)/);
    expect(receiver.received.length).toBe(before);
  });

  it('when the URL is a literal internal IP, then the attempt is refused', async () => {
    const before = receiver.received.length;
    const outcome = await send(productionHttpForTests, receiver.url());
    expect(outcome.error).toMatch(/refused: webhook_url must not point to a private or internal address \(127\.0\.0\.1\)/);
    expect(receiver.received.length).toBe(before);
  });

  it('when private targets are allowed, then the connection goes to the address the guard resolved (pinned)', async () => {
    const before = receiver.received.length;
    const outcome = await send(
      permissive,
      `http://partner.example:${receiver.listeningPort}/pinned`,
      fakeDns({ 'partner.example': '127.0.0.1' }),
    );
    expect(outcome).toMatchObject({ ok: true, statusCode: 200, responseBody: 'ok', error: null });
    expect(receiver.received.length).toBe(before + 1);
    expect(receiver.received.at(-1)?.path).toBe('/pinned');
  });
});
