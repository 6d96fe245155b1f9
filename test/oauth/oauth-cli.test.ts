import { describe, expect, it } from 'vitest';
import { parseCommand, UsageError } from '../../src/admin/cli-commands.js';

const CLINIC = '0193a0c5-1111-7222-8333-444455556666';

describe('the OAuth client commands of the command line (parsing)', () => {
  it('when create-oauth-client names a clinic and scopes, then it parses with its optional flags', () => {
    expect(parseCommand(['create-oauth-client', '--clinic', CLINIC, '--scopes', 'orders:write,carriers:read'])).toEqual({
      command: 'create-oauth-client',
      flags: { clinic: CLINIC, scopes: 'orders:write,carriers:read' },
    });
    const full = parseCommand([
      'create-oauth-client',
      '--clinic',
      CLINIC,
      '--scopes',
      'orders:read',
      '--environment',
      'production',
      '--jwks-file',
      'jwks.json',
    ]);
    expect(full.flags).toMatchObject({ environment: 'production', 'jwks-file': 'jwks.json' });
  });

  it('when create-oauth-client lacks --scopes or names an unknown scope, then it is bad usage naming it', () => {
    expect(() => parseCommand(['create-oauth-client', '--clinic', CLINIC])).toThrow(
      new UsageError('create-oauth-client needs --scopes', 'create-oauth-client'),
    );
    expect(() => parseCommand(['create-oauth-client', '--clinic', CLINIC, '--scopes', 'orders:delete'])).toThrow(
      /unknown scope "orders:delete"/,
    );
  });

  it('when revoke-oauth-client is given something other than a UUID, then it is bad usage', () => {
    expect(() => parseCommand(['revoke-oauth-client', '--client-id', 'cs_dev_secret'])).toThrow(/--client-id must be a UUID/);
    expect(parseCommand(['revoke-oauth-client', '--client-id', CLINIC]).command).toBe('revoke-oauth-client');
  });
});
