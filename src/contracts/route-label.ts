/**
 * The route label of requests no route matched (404, 405): one series of the request metrics
 * whatever the URL (http/request-metrics.ts), and the route a partner's request log shows for them.
 */
export const UNMATCHED_ROUTE = 'unmatched';
