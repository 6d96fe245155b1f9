import { describe, expect, it } from 'vitest';
import { isAsapVersion } from '../../src/pdmp/asap-versions.js';
import { asapVersionFor, DEFAULT_ASAP_VERSION, STATE_ASAP_VERSIONS } from '../../src/pdmp/state-asap-versions.js';
import { isUsStateCode } from '../../src/reference/us-states.js';

describe('the ASAP version of each state', () => {
  it('when a state is in the table, then its files are written in its version', () => {
    expect([asapVersionFor('CA'), asapVersionFor('FL'), asapVersionFor('OH')]).toEqual(['4.2B', '4.2B', '4.2A']);
  });

  it('when a state is not in the table, then its files are written in the default, 4.2A', () => {
    expect(DEFAULT_ASAP_VERSION).toBe('4.2A');
    expect(asapVersionFor('WY')).toBe('4.2A');
  });

  it('when the operator overrides a state, then the override wins over the table and the default', () => {
    expect(asapVersionFor('OH', { OH: '4.2B' })).toBe('4.2B');
    expect(asapVersionFor('WY', { WY: '4.2B' })).toBe('4.2B');
    expect(asapVersionFor('CA', { OH: '4.2A' })).toBe('4.2B');
  });

  it('when the table is read, then every entry is a US state with a known version and a source', () => {
    for (const [state, entry] of Object.entries(STATE_ASAP_VERSIONS)) {
      expect(isUsStateCode(state), state).toBe(true);
      expect(isAsapVersion(entry.version), state).toBe(true);
      expect(entry.source.length, state).toBeGreaterThan(20);
    }
  });
});
