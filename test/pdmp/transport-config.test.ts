import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PDMP_TRANSPORT,
  describeTransport,
  parsePdmpTransport,
  pdmpTransportVariable,
  transportForState,
} from '../../src/pdmp/transport-config.js';

describe('PDMP_TRANSPORT and PDMP_TRANSPORT_<STATE>', () => {
  it.each([
    ['folder:data/pdmp', { kind: 'folder', path: 'data/pdmp' }],
    ['folder:/var/spool/pdmp', { kind: 'folder', path: '/var/spool/pdmp' }],
    [
      'sftp://pharm01@sftp.example.org:2222/upload',
      { kind: 'sftp', username: 'pharm01', host: 'sftp.example.org', port: 2222, directory: '/upload' },
    ],
    [
      'sftp://pharm01@sftp.example.org/',
      { kind: 'sftp', username: 'pharm01', host: 'sftp.example.org', port: 22, directory: '/' },
    ],
    [
      'sftp://pharm01@sftp.example.org',
      { kind: 'sftp', username: 'pharm01', host: 'sftp.example.org', port: 22, directory: '/' },
    ],
    ['sftp://a%40b@[::1]:22/in%20box', { kind: 'sftp', username: 'a@b', host: '::1', port: 22, directory: '/in box' }],
  ])('when the value is %s, then it is read as %j', (value, config) => {
    expect(parsePdmpTransport('PDMP_TRANSPORT_TX', value)).toEqual(config);
  });

  it.each([
    ['ftp://pharm01@host/in', 'must be folder:<path> or sftp://'],
    ['data/pdmp', 'must be folder:<path> or sftp://'],
    ['folder:', 'the folder path is empty'],
    ['sftp://host:22/in', 'the user name is missing'],
    ['sftp://pharm01@host:22/in?x=1', 'a query or fragment is not accepted'],
    ['sftp://pharm01@host:0/in', 'the port must be'],
    ['sftp://pharm01@host:99999/in', 'it is not a URL'],
    ['sftp://pharm01@host/../etc', 'must not hold . or ..'],
    ['sftp://pharm01@host/in/%2E%2E/etc', 'must not hold . or ..'],
  ])('when the value is %s, then it is refused with a message naming the variable', (value, problem) => {
    const refused = parsePdmpTransport('PDMP_TRANSPORT_TX', value);
    expect(typeof refused).toBe('string');
    expect(refused).toMatch(/^PDMP_TRANSPORT_TX /);
    expect(refused).toContain(problem);
  });

  it('when an SFTP URL holds a password, then it is refused, the password is not repeated and its own variable is named', () => {
    const refused = parsePdmpTransport('PDMP_TRANSPORT_FL', 'sftp://pharm01:hunter2-secret@host:22/in');
    expect(refused).toBe(
      'PDMP_TRANSPORT_FL must not hold a password: put it in PDMP_SFTP_PASSWORD_FL, which is kept as a secret',
    );
    expect(parsePdmpTransport('PDMP_TRANSPORT', 'sftp://u:p@h/')).toContain('PDMP_SFTP_PASSWORD_<STATE>');
  });

  it('when a state has its own transport, then it wins over the common one, which wins over the default folder', () => {
    const common = { kind: 'folder', path: '/srv/pdmp' } as const;
    const texas = { kind: 'sftp', username: 'u', host: 'h', port: 22, directory: '/' } as const;
    expect(transportForState('TX', { common, byState: { TX: texas } })).toBe(texas);
    expect(transportForState('FL', { common, byState: { TX: texas } })).toBe(common);
    expect(transportForState('FL', { byState: {} })).toEqual(parsePdmpTransport('PDMP_TRANSPORT', DEFAULT_PDMP_TRANSPORT));
    expect(pdmpTransportVariable('TX')).toBe('PDMP_TRANSPORT_TX');
  });

  it('when a transport is described, then it reads as the URL it came from', () => {
    const config = parsePdmpTransport('PDMP_TRANSPORT', 'sftp://a%40b@[::1]:2222/in');
    expect(typeof config === 'string' ? config : describeTransport(config)).toBe('sftp://a%40b@[::1]:2222/in');
  });
});
