/**
 * Field names seen in older usage-guide examples (see the spec, "Resources and their fields"),
 * mapped to the reference names wherever they appear (a body schema adds its own with `x-aliases`), so that a partner who copied an old example is told the fix.
 */
export const FIELD_ALIASES: Readonly<Record<string, string>> = {
  npi_number: 'npi',
  date_of_birth: 'dob',
  shipment_service_code: 'service_id',
  payment_method_id: 'nothing: payment is not part of this API',
};
