import { DEVELOPMENT_PHARMACY } from '../pharmacy-identity.js';
import { oneOf, setting, text, trueOrFalse } from './setting.js';

/** The pharmacy: who its labels name, its working day, the rules its orders are held to, its carrier's receiver. */

export const COLD_CHAIN_POLICIES = ['warn', 'refuse'] as const;

/** The pharmacy's identity has no default of its own: development falls back to the whole made-up pharmacy. */
function developmentOnly(value: string | null): string {
  return value === null ? 'none' : `development: \`${value}\`; production: unset`;
}

const LABEL_TEXT = 'at most 100 printable characters';

export const PHARMACY_SETTINGS = {
  PHARMACY_NAME: setting({
    schema: text(),
    defaultText: developmentOnly(DEVELOPMENT_PHARMACY.name),
    accepts: LABEL_TEXT,
    doc:
      "The pharmacy's name, printed at the top of each order's label in the console, with the address " +
      'below. Set, it requires `PHARMACY_ADDRESS_LINE1`, `PHARMACY_CITY`, `PHARMACY_STATE` and ' +
      '`PHARMACY_POSTAL_CODE` (a start without them is refused, naming each). Unset, development labels name ' +
      'a made-up pharmacy (every `PHARMACY_*` default here) and production labels say the setting is ' +
      'missing. See [docs/console.md](console.md#orders-webhooks-and-the-audit-trail).',
  }),
  PHARMACY_ADDRESS_LINE1: setting({
    schema: text(),
    defaultText: developmentOnly(DEVELOPMENT_PHARMACY.address_line_1),
    accepts: LABEL_TEXT,
    doc: "The pharmacy's street address on the label.",
  }),
  PHARMACY_ADDRESS_LINE2: setting({
    schema: text(),
    defaultText: developmentOnly(DEVELOPMENT_PHARMACY.address_line_2),
    accepts: LABEL_TEXT,
    doc: 'The second line of the street address (optional).',
  }),
  PHARMACY_CITY: setting({
    schema: text(),
    defaultText: developmentOnly(DEVELOPMENT_PHARMACY.city),
    accepts: LABEL_TEXT,
    doc: "The pharmacy's city on the label.",
  }),
  PHARMACY_STATE: setting({
    schema: text(),
    defaultText: developmentOnly(DEVELOPMENT_PHARMACY.state),
    accepts: 'two capital letters (`NY`)',
    doc: "The pharmacy's state on the label.",
  }),
  PHARMACY_POSTAL_CODE: setting({
    schema: text(),
    defaultText: developmentOnly(DEVELOPMENT_PHARMACY.postal_code),
    accepts: '`12345` or `12345-6789`',
    doc: "The pharmacy's ZIP code on the label.",
  }),
  PHARMACY_PHONE: setting({
    schema: text(),
    defaultText: developmentOnly(DEVELOPMENT_PHARMACY.phone),
    accepts: LABEL_TEXT,
    doc: "The pharmacy's phone on the label (optional).",
  }),
  PHARMACY_TIME_ZONE: setting({
    schema: text(),
    default: 'UTC',
    accepts: 'an IANA time zone (`America/New_York`)',
    doc:
      "The pharmacy's time zone: its working day, Monday to Friday 09:00–17:00 on that clock, measures " +
      "each order's age in business hours in the console's queue, and the queue's day filters " +
      '(`created_from`, `created_to`) are days of its calendar. An unknown zone stops the start.',
  }),
  REQUIRE_PRESCRIBER_STATE_LICENSE: setting({
    schema: trueOrFalse(),
    default: false,
    doc:
      '`true`: an order, or a refill, is refused with `400 PRESCRIBER_NOT_LICENSED` (`details.state`) unless ' +
      "its prescriber holds a licence in the patient's state that is not expired on the server's (UTC) " +
      "calendar, as given in the practitioner's `licenses`. Off, licences are stored and shown but no " +
      'order is refused for them. See [docs/practitioners-and-patients.md](practitioners-and-patients.md#credentials).',
  }),
  COLD_CHAIN_POLICY: setting({
    schema: oneOf(COLD_CHAIN_POLICIES),
    default: 'warn',
    doc:
      'What a refrigerated order (`is_refrigerated: true`) on a shipping service not marked ' +
      '`cold_chain_eligible` gets: `warn` accepts it with `data.warnings` in the answer; `refuse` answers ' +
      '`400 VALIDATION_ERROR` naming `service_id` and listing the eligible services. See ' +
      '[docs/shipping.md](shipping.md#cold-chain).',
  }),
  REQUIRE_PHARMACIST_SIGNOFF: setting({
    schema: trueOrFalse(),
    default: { development: false, production: true },
    doc:
      "`true`: the pharmacy cannot move an order to `processing` without the pharmacist's prescription " +
      'review, nor to `shipped` without their product check (409 naming the missing sign-off). Sign-offs are ' +
      "recorded with `POST /api/admin/medication-requests/{id}/signoffs` or the console's order page; the " +
      'sandbox never needs them. See [docs/compounding.md](compounding.md#sign-offs).',
  }),
  EASYPOST_WEBHOOK_SECRET: setting({
    schema: text(),
    defaultText: 'unset (the receiver is off)',
    accepts: 'text without control characters; in production at least 16 characters',
    untrimmed: true,
    doc:
      'The `webhook_secret` of the EasyPost webhook that posts `tracker.updated` Events to ' +
      '`POST /api/carrier-events/easypost`: the key of their `X-Hmac-Signature` (HMAC-SHA256). Set the same ' +
      'value at EasyPost (`openssl rand -hex 32`). Unset, that route answers `503` ("not configured"). Kept ' +
      'exactly as given (EasyPost NFKD-normalizes it when it signs, and so do we); whitespace only stops the ' +
      'start. Never logged or quoted back. See [docs/shipping.md](shipping.md#the-easypost-receiver).',
  }),
};
