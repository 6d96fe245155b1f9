/** An Idempotency-Key held by the current request: what it needs to store its response or let the key go. */
export interface Claim {
  readonly id: string;
  readonly token: string;
}
