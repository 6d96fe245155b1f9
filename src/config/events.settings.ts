import { setting, text, trueOrFalse, wholeNumber } from './setting.js';

/** Webhook delivery, the event log and the request log: how events go out and how long records stay. */

/**
 * WEBHOOK_RETRY_SCHEDULE's default, Svix's schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h,
 * 10 h, 10 h (8 attempts over about 28 hours). @see https://docs.svix.com/retries
 */
export const DEFAULT_RETRY_SCHEDULE = '0,5s,5m,30m,2h,5h,10h,10h';

export const EVENTS_SETTINGS = {
  WEBHOOK_TIMEOUT_MS: setting({
    schema: wholeNumber(100, 60_000),
    default: 10_000,
    doc: 'Timeout of one webhook delivery attempt, in ms.',
  }),
  WEBHOOK_LEASE_MS: setting({
    schema: wholeNumber(1_000, 60_000),
    default: 5_000,
    doc:
      'How long a delivery worker owns an endpoint, and the deliveries it took of it, without renewing, in ms. ' +
      "A living worker renews every third of it; a crashed one's deliveries are sent again by another " +
      'worker, or the restarted server, about this long plus 2 s after the crash. See ' +
      '[docs/webhooks.md](webhooks.md#leases-and-heartbeat).',
  }),
  WEBHOOK_RETRY_SCHEDULE: setting({
    schema: text(),
    default: DEFAULT_RETRY_SCHEDULE,
    accepts: '1 to 50 delays, comma-separated, each at most 7 days (units `ms`, `s`, `m`, `h`, `d`)',
    doc:
      'Delays before each delivery attempt; the number of delays is the number of attempts. A changed ' +
      'schedule applies to deliveries already waiting once the workers restart. See ' +
      '[docs/webhooks.md](webhooks.md#retries).',
  }),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: setting({
    schema: trueOrFalse(),
    default: false,
    doc:
      '`true` allows webhook URLs that are or resolve to loopback, private, link-local or other internal ' +
      'addresses (for partners reached over a private network). Otherwise they are refused, at registration ' +
      'and at every delivery, in every environment, except on a development server that listens only on ' +
      'loopback (`HOST` `127.0.0.1`, `::1` or `localhost`, the development default), where a receiver on ' +
      '`127.0.0.1` is the point. See [docs/webhooks.md](webhooks.md#registering-an-endpoint).',
  }),
  EVENT_RETENTION_DAYS: setting({
    schema: wholeNumber(1, 366),
    default: 30,
    doc:
      'How long the event log (`GET /api/external/events`) returns an event, in days; older events already ' +
      'delivered are deleted every 10 minutes by every server. See [docs/webhooks.md](webhooks.md#the-event-log).',
  }),
  EVENT_LOG_SETTLE_MS: setting({
    schema: wholeNumber(0, 300_000),
    default: 5_000,
    doc:
      'How old an event must be before the event log returns it, in ms: a change still committing when a ' +
      'partner polls can then never land behind the cursor it was handed. Longer than any change takes to ' +
      'commit; `0` only where nothing commits concurrently. See [docs/webhooks.md](webhooks.md#the-event-log).',
  }),
  REQUEST_LOG_RETENTION_DAYS: setting({
    schema: wholeNumber(1, 366),
    default: 14,
    doc:
      "How long the partner request log keeps a request's metadata, in days; older rows are deleted every " +
      '10 minutes by every server. See [docs/request-log.md](request-log.md#retention).',
  }),
};
