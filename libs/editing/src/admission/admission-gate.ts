import { gateInFlight, gateQueued, gateRefusals, ServiceException, type GateName } from '@app/common';

export interface AdmissionLimits {
  /** Units (bytes) the permits may hold together; one permit alone may hold more (see {@link AdmissionGate}). */
  capacity: number;
  /** Permits at once; Infinity for no count limit. */
  slots: number;
  /** The most units one holder (an account) may hold together, at most `capacity`. */
  holderCapacity: number;
  /** Requests that may wait; one more is refused at once. */
  queueLimit: number;
  /** The refusal of one request too many; absent: 503 EDIT_BUSY ({@link editBusy}). */
  refusal?: () => ServiceException;
  /** The gate's label in the metrics (in flight, queued, refusals); absent: not measured. */
  name?: GateName;
}

/** The refusal of work the process has no room for: 503 EDIT_BUSY with Retry-After, and `headers`. */
export function editBusy(message?: string, headers: Record<string, string> = {}): ServiceException {
  return new ServiceException('EDIT_BUSY', message, {}, { 'Retry-After': '1', ...headers });
}

/** What a granted request holds until it calls release (once; later calls do nothing). */
export interface Permit {
  readonly units: number;
  /** Milliseconds the request waited before it was admitted. */
  readonly waitedMs: number;
  /** Holds `total` units from now on if they fit at once (never waits); else throws EDIT_BUSY (503). */
  grow(total: number): void;
  release(): void;
}

interface Waiter {
  holder: string;
  units: number;
  since: number;
  admit: (permit: Permit) => void;
}

/** A snapshot of the gate, for log lines. */
export interface GateState {
  held: number;
  permits: number;
  waiting: number;
}

/**
 * Admits work against a budget of units (bytes), a count of slots and a share per holder, so that neither a
 * few heavy requests nor one holder can take what everybody needs. Rules, in order:
 *
 * - A request fits when a slot is free and `held + min(units, capacity) <= capacity`: a request larger than
 *   the whole budget runs alone rather than never. The same rule with `holderCapacity` bounds each holder.
 * - Waiting requests are admitted in arrival order. One that the budget or the slots hold back stops the
 *   pass, so that smaller requests cannot starve it; one that only its own holder's share holds back is
 *   passed over with its holder's later requests (it blocks no other holder, nor is it overtaken by its own).
 * - Past `queueLimit` waiting requests, a new one is refused at once with 503 EDIT_BUSY.
 */
export class AdmissionGate {
  private held = 0;
  private permits = 0;
  private readonly byHolder = new Map<string, number>();
  private readonly waiting: Waiter[] = [];

  constructor(private readonly limits: AdmissionLimits) {}

  /**
   * Waits until `units` (>= 0) fit for `holder`; rejects with 503 EDIT_BUSY when too many already wait, and with
   * `signal`'s reason when it is aborted first (a client that has gone leaves the queue at once).
   */
  acquire(holder: string, units: number, signal?: AbortSignal): Promise<Permit> {
    return new Promise<Permit>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const leave = () => {
        const index = this.waiting.indexOf(waiter);
        if (index < 0) return;
        this.waiting.splice(index, 1);
        reject(signal?.reason);
        // it may have held back those behind it
        this.admitWaiting();
        this.report();
      };
      const waiter: Waiter = {
        holder,
        units,
        since: performance.now(),
        admit: (permit) => {
          signal?.removeEventListener('abort', leave);
          resolve(permit);
        },
      };
      signal?.addEventListener('abort', leave, { once: true });
      this.waiting.push(waiter);
      this.admitWaiting();
      if (this.waiting.length > this.limits.queueLimit && this.waiting.includes(waiter)) {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        signal?.removeEventListener('abort', leave);
        this.countRefusal();
        reject((this.limits.refusal ?? editBusy)());
      }
      this.report();
    });
  }

  /** Counts a refusal made by the owner of the gate on its behalf (a request refused before it asked). */
  countRefusal(): void {
    if (this.limits.name) gateRefusals.inc({ gate: this.limits.name });
  }

  private report(): void {
    const gate = this.limits.name;
    if (!gate) return;
    gateInFlight.set({ gate }, this.permits);
    gateQueued.set({ gate }, this.waiting.length);
  }

  /** Whether a new request would be refused now: it could not start at once and the wait queue is full. */
  get full(): boolean {
    const { capacity, slots, queueLimit } = this.limits;
    const busy = this.waiting.length > 0 || this.permits >= slots || this.held >= capacity;
    return busy && this.waiting.length >= queueLimit;
  }

  get state(): GateState {
    return { held: this.held, permits: this.permits, waiting: this.waiting.length };
  }

  /** Whether `units` fit for `holder`, counting what it already holds as `own` (a permit that grows). */
  private fits(holder: string, units: number, own?: number): { global: boolean; holder: boolean } {
    const { capacity, holderCapacity, slots } = this.limits;
    const held = this.held - (own ?? 0);
    const holderHeld = (this.byHolder.get(holder) ?? 0) - (own ?? 0);
    return {
      global: held + Math.min(units, capacity) <= capacity && (own !== undefined || this.permits < slots),
      holder: holderHeld + Math.min(units, holderCapacity) <= holderCapacity,
    };
  }

  private admitWaiting(): void {
    // holders whose earlier request waits for its share: their later ones must not overtake it
    const passedOver = new Set<string>();
    for (let index = 0; index < this.waiting.length;) {
      const waiter = this.waiting[index];
      const fits = this.fits(waiter.holder, waiter.units);
      if (!fits.global) return;
      if (!fits.holder || passedOver.has(waiter.holder)) {
        passedOver.add(waiter.holder);
        index++;
        continue;
      }
      this.waiting.splice(index, 1);
      waiter.admit(this.grant(waiter.holder, waiter.units, performance.now() - waiter.since));
    }
  }

  private grant(holder: string, units: number, waitedMs: number): Permit {
    let held = units;
    let released = false;
    this.take(holder, units, 1);
    return {
      get units() {
        return held;
      },
      waitedMs,
      grow: (total: number) => {
        if (released || total <= held) return;
        const fits = this.fits(holder, total, held);
        if (!fits.global || !fits.holder) {
          this.countRefusal();
          throw editBusy();
        }
        this.take(holder, total - held, 0);
        held = total;
      },
      release: () => {
        if (released) return;
        released = true;
        this.take(holder, -held, -1);
        this.admitWaiting();
        this.report();
      },
    };
  }

  private take(holder: string, units: number, permits: number): void {
    this.held += units;
    this.permits += permits;
    const left = (this.byHolder.get(holder) ?? 0) + units;
    if (left > 0) this.byHolder.set(holder, left);
    else this.byHolder.delete(holder);
  }
}
