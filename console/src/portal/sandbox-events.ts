/**
 * The webhook event each sandbox move sends, as the server's order transitions send them
 * (src/orders/order-transition.ts, EVENT_OF; test/portal/sandbox-events.test.ts holds the two
 * together): a move to `processing` sends none, so the page must not say one is on its way. No import:
 * the main suite's type check compiles this module too, under Node's resolution.
 */
export const EVENT_OF_MOVE: Partial<Record<string, string>> = {
  shipped: 'order.fulfilled',
  delivered: 'order.delivered',
  cancelled: 'order.cancelled',
};

/** What the sandbox page says once an order moved: the event it sent, or that it sent none. */
export function moveNotice(orderId: string, status: string): string {
  const event = EVENT_OF_MOVE[status];
  return event
    ? `Order ${orderId} is now ${status}: its webhook event ${event} is on its way.`
    : `Order ${orderId} is now ${status}. This move sends no webhook event (shipped, delivered and cancelled do).`;
}
