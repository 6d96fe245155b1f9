export function WebhooksPage() {
  return <h1>Webhooks</h1>;
}
