/* The carrier catalogue as the operator API answers it (src/shipping/catalogue.schemas.ts). Prices are US dollars. */

export interface CatalogueService {
  carrier_id: string;
  id: string;
  name: string;
  price: number;
  state_prices: Record<string, number>;
  created_at: string;
}

export interface CatalogueCarrier {
  id: string;
  name: string;
  created_at: string;
  services: CatalogueService[];
}

const dollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** 32.44 → $32.44 */
export const formatDollars = (amount: number): string => dollars.format(amount);
