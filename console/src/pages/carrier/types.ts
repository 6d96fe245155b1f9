import type { OperatorData } from '../../api-types';

/** The carrier catalogue as the operator API answers it (src/shipping/catalogue.schemas.ts). Prices are US dollars. */
export type CatalogueCarrier = OperatorData<'listOperatorCarriers'>['carriers'][number];

export type CatalogueService = CatalogueCarrier['services'][number];

const dollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** 32.44 → $32.44 */
export const formatDollars = (amount: number): string => dollars.format(amount);
