/** Row types of the webhook tables (filled in by the webhooks feature). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface WebhookTables {}
