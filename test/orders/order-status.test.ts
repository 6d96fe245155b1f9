import { describe, expect, it } from 'vitest';
import {
  canHold,
  canTransition,
  illegalTransitionMessage,
  isFinal,
  isRefillable,
  nextStatus,
  ORDER_STATUSES,
  pathTo,
  type OrderStatus,
} from '../../src/orders/order-status.js';

const LEGAL: [OrderStatus, OrderStatus][] = [
  ['pending', 'processing'],
  ['pending', 'cancelled'],
  ['processing', 'shipped'],
  ['processing', 'cancelled'],
  ['shipped', 'delivered'],
  // A hold is not a move (holds/place-hold.service.ts): from on_hold a plain status change can only cancel.
  ['on_hold', 'cancelled'],
];
const isLegal = (from: OrderStatus, to: OrderStatus) => LEGAL.some(([f, t]) => f === from && t === to);
const ALL_PAIRS = ORDER_STATUSES.flatMap((from) => ORDER_STATUSES.map((to) => [from, to] as [OrderStatus, OrderStatus]));

describe('the order lifecycle (pure)', () => {
  it.each(LEGAL)('when an order is %s, then it may become %s', (from, to) => {
    expect(canTransition(from, to)).toBe(true);
  });

  it.each(ALL_PAIRS.filter(([f, t]) => !isLegal(f, t)))('when an order is %s, then it may not become %s', (from, to) => {
    expect(canTransition(from, to)).toBe(false);
  });

  it('when a transition is refused, then the message names the current and the requested state', () => {
    expect(illegalTransitionMessage('shipped', 'processing')).toBe(
      'Cannot change the medication request from shipped to processing: from shipped it can only become delivered',
    );
    expect(illegalTransitionMessage('delivered', 'cancelled')).toBe(
      'Cannot change the medication request from delivered to cancelled: delivered is a final state',
    );
  });

  it('when asked for the next step, then it follows pending → processing → shipped → delivered', () => {
    expect(nextStatus('pending')).toBe('processing');
    expect(nextStatus('processing')).toBe('shipped');
    expect(nextStatus('shipped')).toBe('delivered');
    expect(nextStatus('delivered')).toBeNull();
    expect(nextStatus('cancelled')).toBeNull();
  });

  it('when a target is several steps away, then the path goes through every legal step', () => {
    expect(pathTo('pending', 'delivered')).toEqual(['processing', 'shipped', 'delivered']);
    expect(pathTo('pending', 'shipped')).toEqual(['processing', 'shipped']);
    expect(pathTo('processing', 'cancelled')).toEqual(['cancelled']);
    expect(pathTo('shipped', 'processing')).toBeNull();
    expect(pathTo('shipped', 'cancelled')).toBeNull();
    expect(pathTo('pending', 'pending')).toBeNull();
    expect(pathTo('delivered', 'delivered')).toBeNull();
  });

  it('when asked which states are final and refillable, then delivered/cancelled are final and shipped/delivered refillable', () => {
    expect(ORDER_STATUSES.filter(isFinal)).toEqual(['delivered', 'cancelled']);
    expect(ORDER_STATUSES.filter(isRefillable)).toEqual(['shipped', 'delivered']);
  });

  it('when asked which orders can be held, then pending, processing and on_hold (a new reason), shipped only for a delivery_exception, never final ones', () => {
    expect(ORDER_STATUSES.filter((s) => canHold(s, 'out_of_stock'))).toEqual(['pending', 'processing', 'on_hold']);
    expect(ORDER_STATUSES.filter((s) => canHold(s, 'delivery_exception'))).toEqual([
      'pending',
      'processing',
      'on_hold',
      'shipped',
    ]);
    expect(canHold('on_hold', 'out_of_stock', 'shipped')).toBe(false);
    expect(canHold('on_hold', 'delivery_exception', 'shipped')).toBe(true);
  });

  it('when a status change goes to or from on_hold, then the message points at the hold and resume routes', () => {
    expect(illegalTransitionMessage('pending', 'on_hold')).toContain('/hold');
    expect(illegalTransitionMessage('on_hold', 'processing')).toContain('/resume');
  });
});
