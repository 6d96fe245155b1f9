import type { Keyring } from '../secrets/keyring.js';
import { SecretUnavailableError } from '../secrets/keyring.js';
import { openSigningSecrets, type SigningSecrets } from './endpoint-secret.js';
import type { ClaimedDelivery, LaneEndpoint, LaneRequest } from './types.js';

/**
 * A lane holds up to this many times its endpoint's `max_in_flight`, and is topped up at half: enough
 * to keep the endpoint busy through a look at the queue (on PostgreSQL a look is several round trips,
 * 10 ms under load: at 4 the lane ran dry during each look, docs/performance.md). The lane is ours
 * while the endpoint's short lease is renewed; the deliveries' own lease, a backstop, covers that many
 * timeouts of waiting (worker-settings.ts).
 */
export const PREFETCH_FACTOR = 8;

/**
 * One endpoint this worker owns, in memory: its deliveries taken and not yet sent, the attempts in
 * flight, and the partner's limits (`max_in_flight`, `max_per_second`) and the receiver's pause,
 * which hold across every worker because only the owner sends. No I/O: the worker asks it what may
 * start now and what to ask of the queue.
 */
export class EndpointLane {
  readonly buffer: ClaimedDelivery[] = [];
  inFlight = 0;
  /** The receiver asked us to wait until then (ms): nothing starts, the buffer is handed back. */
  pausedUntil: number | null = null;
  /** Deleted, disabled, or its lease lost: nothing more starts. */
  gone = false;
  /**
   * The signing secrets, decrypted once per lane and again only when the stored ones change (a
   * rotation, a re-encryption); or why they cannot be.
   */
  secret: { value: SigningSecrets } | { unavailable: string };
  /** The last look gave fewer deliveries than asked: ask again only once something changes. */
  dry = false;
  /**
   * Until when (ms) the endpoint is ours as far as the last look knows: its lease, renewed at each
   * look. Past it nothing starts until a look renews it, because another worker may have taken the
   * endpoint over with its deliveries (a worker paused that long, or cut off from its database): only
   * the attempts already in flight can then arrive twice.
   */
  heldUntil: number;
  /** When the last attempts started (ms), at most `max_per_second` of them. */
  private readonly starts: number[] = [];

  constructor(
    public endpoint: LaneEndpoint,
    private readonly keyring: Keyring,
    now: number,
    heldUntil: number,
  ) {
    this.secret = openSecret(keyring, endpoint, now);
    this.heldUntil = heldUntil;
  }

  /**
   * Takes the endpoint's current settings (the partner may have changed them), or its end. Its
   * secrets are decrypted again only when their stored values changed (a comparison of strings).
   */
  update(endpoint: LaneEndpoint | null, now: number): void {
    if (endpoint === null || endpoint.status !== 'active' || endpoint.deleted_at !== null) {
      this.gone = true;
      // Its deliveries were closed with the endpoint, or go with it to whoever took it over (claimEndpoints).
      this.buffer.length = 0;
      return;
    }
    const before = this.endpoint;
    this.endpoint = endpoint;
    const changed =
      endpoint.secret !== before.secret ||
      endpoint.previous_secret !== before.previous_secret ||
      endpoint.previous_secret_expires_at !== before.previous_secret_expires_at;
    if (changed) this.secret = openSecret(this.keyring, endpoint, now);
  }

  /** True when the buffer runs low and the queue may have more: time to ask for it. */
  wantsMore(): boolean {
    if (this.gone || this.dry || this.pausedUntil !== null) return false;
    return this.buffer.length + this.inFlight < laneCapacity(this.endpoint) && this.runsLow();
  }

  /** Fewer deliveries waiting than half the lane holds: time to top up while the rest keep it busy. */
  private runsLow(): boolean {
    return this.buffer.length < Math.ceil(laneCapacity(this.endpoint) / 2);
  }

  /** Takes what a look at the queue gave; fewer than asked means nothing more is due for now. */
  receive(taken: readonly ClaimedDelivery[], asked: number): void {
    this.buffer.push(...taken);
    this.dry = taken.length < asked;
  }

  idle(): boolean {
    return this.buffer.length === 0 && this.inFlight === 0;
  }

  /** What the worker asks of the queue for this lane in its next look. */
  request(stopping: boolean): LaneRequest {
    // Nothing more goes out while the endpoint is gone or paused, nor once the worker stops.
    const holding = this.gone || this.pausedUntil !== null;
    const handBack = holding || stopping ? this.buffer.splice(0).map((d) => d.id) : [];
    const idle = this.idle();
    let release: LaneRequest['release'] = 'no';
    if (idle && (stopping || this.gone)) release = 'now';
    else if (this.inFlight === 0 && (idle || this.pausedUntil !== null)) release = 'idle';
    // Topped up only once the buffer runs low, so that most looks only record: a look that takes
    // costs an UPDATE of the rows taken, whatever their number.
    const want =
      release === 'now' || holding || !this.runsLow() ? 0 : laneCapacity(this.endpoint) - this.buffer.length - this.inFlight;
    return {
      endpointId: this.endpoint.id,
      want: Math.max(0, want),
      handBack,
      release,
      healthy: this.endpoint.failing_since === null,
    };
  }

  /** Whether an attempt may start at `now` (ms): in-flight and per-second limits, pause. */
  canStart(now: number): boolean {
    // Held so long that their lease could end during the attempt: dropped, taken again once it has.
    while (this.buffer.length > 0 && (this.buffer[0]?.startBy ?? now) < now) this.buffer.shift();
    if (this.gone || this.buffer.length === 0 || this.inFlight >= this.endpoint.max_in_flight) return false;
    if (this.pausedUntil !== null || now >= this.heldUntil) return false;
    return this.nextStartAt(now) <= now;
  }

  /** The earliest moment (ms) the per-second limit lets another attempt start. */
  nextStartAt(now: number): number {
    const perSecond = this.endpoint.max_per_second;
    if (perSecond === null) return now;
    while (this.starts.length > 0 && (this.starts[0] ?? 0) <= now - 1000) this.starts.shift();
    if (this.starts.length < perSecond) return now;
    return (this.starts[this.starts.length - perSecond] ?? now) + 1000;
  }

  /**
   * How long (ms) only the per-second limit keeps a waiting delivery from starting: Infinity when
   * nothing waits, or when a finishing attempt frees the slot it needs (that wakes the worker).
   */
  heldBackFor(now: number): number {
    if (this.gone || this.buffer.length === 0 || this.inFlight >= this.endpoint.max_in_flight) return Infinity;
    // Held past its lease: the next look (at most a third of a lease away) renews it or ends the lane.
    if (now >= this.heldUntil) return Infinity;
    return Math.max(0, this.nextStartAt(now) - now);
  }

  /** Takes the next delivery to send and counts it in flight. */
  start(now: number): ClaimedDelivery | undefined {
    const delivery = this.buffer.shift();
    if (!delivery) return undefined;
    this.inFlight += 1;
    if (this.endpoint.max_per_second !== null) this.starts.push(now);
    return delivery;
  }
}

/** How many deliveries a lane holds at most: enough to keep `max_in_flight` busy between looks. */
export function laneCapacity(endpoint: Pick<LaneEndpoint, 'max_in_flight' | 'max_per_second'>): number {
  const cap = endpoint.max_in_flight * PREFETCH_FACTOR;
  return Math.max(1, endpoint.max_per_second === null ? cap : Math.min(cap, endpoint.max_per_second * 2));
}

function openSecret(keyring: Keyring, endpoint: LaneEndpoint, now: number): EndpointLane['secret'] {
  try {
    return { value: openSigningSecrets(keyring, endpoint, now) };
  } catch (error) {
    if (!(error instanceof SecretUnavailableError)) throw error;
    return { unavailable: `not sent: ${error.message}` };
  }
}
