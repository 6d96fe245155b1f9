import type { AsapVersion } from './asap-versions.js';

/**
 * Which ASAP version each state's PDMP takes, as found in the state's rule or notice. A state not
 * listed gets DEFAULT_ASAP_VERSION; an operator's setting (a per-state override, passed to
 * asapVersionFor) wins over the table, so that a state that moves to 4.2B before this table does
 * is a setting, not a release. `confirmed: false` marks what the source leaves open.
 */
export interface StateAsapVersion {
  version: AsapVersion;
  /** The day the state began to require it, when the source says. */
  since?: string;
  confirmed: boolean;
  source: string;
}

/** 4.2A: what PMP Clearinghouse states took before 4.2B, and what Ohio's rule names. */
export const DEFAULT_ASAP_VERSION: AsapVersion = '4.2A';

export const STATE_ASAP_VERSIONS: Readonly<Record<string, StateAsapVersion>> = Object.freeze({
  CA: {
    version: '4.2B',
    since: '2024-08-01',
    confirmed: true,
    source:
      'California DOJ, CURES "New Data Submission Format on August 1, 2024" (oag.ca.gov/cures-pdmp); DCA "Notice to Licensees Regarding CURES Version Update"',
  },
  FL: {
    version: '4.2B',
    since: '2023-08-08',
    confirmed: true,
    source:
      'Fla. Admin. Code R. 64K-1.002 (amended 2023-08-08): ASAP 4.2B (12/2019); 4.2A accepted for six months after; zero reports per the 4.2B Zero Report Standard',
  },
  OH: {
    version: '4.2A',
    confirmed: true,
    source: 'Ohio Adm.Code 4729:8-3-03(A): "ASAP Version 4.2A Standard for Prescription Drug Monitoring Programs (3/15/2017)"',
  },
  AZ: {
    version: '4.2B',
    confirmed: false,
    source:
      'A.R.S. 36-2608(B): "the latest version of the standard implementation guide" of ASAP; the CSPMP data submission guide was not read, and ASAP has since published 5.0',
  },
  TX: {
    version: '4.2A',
    confirmed: false,
    source: '22 Tex. Admin. Code 315.6: the elements "required by the board\'s Data Submission Guide for Dispensers", not read',
  },
  NY: {
    version: '4.2A',
    confirmed: false,
    source: 'NYSDOH PMP Registry, Appendix A (2014): ASAP 4.2 required; the current requirement was not read',
  },
});

/** The version a state's file is written in: the operator's override, the table, or the default. */
export function asapVersionFor(state: string, overrides: Readonly<Record<string, AsapVersion>> = {}): AsapVersion {
  return overrides[state] ?? STATE_ASAP_VERSIONS[state]?.version ?? DEFAULT_ASAP_VERSION;
}
