import { describe, expect, it } from 'vitest';
import { attemptErrorKind } from '../../src/webhooks/attempt-error.js';

describe('the kind of a failed attempt, as the partner\u2019s delivery log says it', () => {
  it('when a status was received, then there is no error kind, whatever the text', () => {
    expect(attemptErrorKind(500, null)).toBeNull();
    expect(attemptErrorKind(204, 'ignored')).toBeNull();
  });

  it('when each stored text is read, then it becomes its kind and nothing of the text', () => {
    expect(attemptErrorKind(null, 'timed out after 10000 ms')).toBe('timeout');
    expect(attemptErrorKind(null, 'refused: webhook_url resolves to 10.0.0.3 (SSRF protection)')).toBe('refused');
    expect(attemptErrorKind(null, 'EWEBHOOKTARGET: refused internal.corp')).toBe('refused');
    expect(attemptErrorKind(null, 'invalid URL')).toBe('refused');
    expect(attemptErrorKind(null, 'not sent: the data encryption key is unavailable')).toBe('not_sent');
    expect(attemptErrorKind(null, 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9')).toBe('network_error');
    expect(attemptErrorKind(null, 'getaddrinfo ENOTFOUND hooks.internal')).toBe('network_error');
  });
});
