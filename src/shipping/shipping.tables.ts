/** Row types of the carrier catalogue (migration 001; cold_chain_eligible: 028). Column conventions: see db/database.ts. */

export interface CarrierTable {
  id: string;
  name: string;
  created_at: string;
}

export interface ShippingServiceTable {
  carrier_id: string;
  id: string;
  name: string;
  price_cents: number;
  /** 0/1: the service keeps a refrigerated order cold (migration 028; docs/shipping.md#cold-chain). */
  cold_chain_eligible: number;
  created_at: string;
}

export interface ShippingServiceStatePriceTable {
  carrier_id: string;
  service_id: string;
  state_code: string;
  price_cents: number;
}

export interface ShippingTables {
  carriers: CarrierTable;
  shipping_services: ShippingServiceTable;
  shipping_service_state_prices: ShippingServiceStatePriceTable;
}

/** A state the pharmacy may ship to (migration 023; docs/shipping.md#licensed-states). */
export interface LicensedStateTable {
  state_code: string;
}

/** One row (`id` = `pharmacy`) once the licensed states were set: "never set" differs from "none". */
export interface LicensedStateListTable {
  id: string;
  updated_at: string;
}

export interface LicensingTables {
  licensed_states: LicensedStateTable;
  licensed_state_list: LicensedStateListTable;
}
