/**
 * The clock every time-dependent component takes (DESIGN.md section 9): `now()` and timers.
 * `systemClock` is the real one; `FakeClock` moves only when a test calls `advance()`, running
 * due timers in time order, so session, replication and retry logic is tested without sleeping.
 */

export interface TimerHandle {
  readonly id: number;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  setInterval(fn: () => void, ms: number): TimerHandle;
  clearTimer(handle: TimerHandle | undefined): void;
}

class RealTimer implements TimerHandle {
  constructor(
    readonly id: number,
    readonly native: ReturnType<typeof setTimeout>,
    readonly interval: boolean,
  ) {}
}

let nextRealId = 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, Math.max(0, ms));
    return new RealTimer(nextRealId++, t, false);
  },
  setInterval(fn, ms) {
    const t = setInterval(fn, Math.max(1, ms));
    return new RealTimer(nextRealId++, t, true);
  },
  clearTimer(handle) {
    if (!(handle instanceof RealTimer)) return;
    if (handle.interval) clearInterval(handle.native);
    else clearTimeout(handle.native);
  },
};

/** A real-clock timer that does not keep the process alive (for background housekeeping). */
export function unrefTimer(handle: TimerHandle): TimerHandle {
  if (handle instanceof RealTimer) (handle.native as { unref?: () => void }).unref?.();
  return handle;
}

interface FakeTimer {
  id: number;
  due: number;
  seq: number;
  fn: () => void;
  every: number | null;
}

export class FakeClock implements Clock {
  private current: number;
  private nextId = 1;
  private seq = 0;
  private readonly timers = new Map<number, FakeTimer>();

  constructor(startMs = 1_700_000_000_000) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    return this.add(fn, Math.max(0, ms), null);
  }

  setInterval(fn: () => void, ms: number): TimerHandle {
    return this.add(fn, Math.max(1, ms), Math.max(1, ms));
  }

  clearTimer(handle: TimerHandle | undefined): void {
    if (handle) this.timers.delete(handle.id);
  }

  /** Number of timers still scheduled. */
  pending(): number {
    return this.timers.size;
  }

  /** Moves time forward by `ms`, firing every timer that falls due, in due-time order. */
  advance(ms: number): void {
    const target = this.current + ms;
    while (this.fireNext(target));
    this.current = target;
  }

  /** Like advance(), but yields to the event loop between timers so async reactions run. */
  async advanceAsync(ms: number): Promise<void> {
    const target = this.current + ms;
    do await new Promise<void>((r) => setImmediate(r));
    while (this.fireNext(target));
    this.current = target;
    await new Promise<void>((r) => setImmediate(r));
  }

  /** Fires the earliest timer due by `limit` (rescheduling intervals); false when none is due. */
  private fireNext(limit: number): boolean {
    const next = this.nextDue(limit);
    if (!next) return false;
    this.current = next.due;
    if (next.every !== null) {
      next.due += next.every;
      next.seq = this.seq++;
    } else {
      this.timers.delete(next.id);
    }
    next.fn();
    return true;
  }

  private add(fn: () => void, ms: number, every: number | null): TimerHandle {
    const id = this.nextId++;
    this.timers.set(id, { id, due: this.current + ms, seq: this.seq++, fn, every });
    return { id };
  }

  private nextDue(limit: number): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.timers.values()) {
      if (t.due > limit) continue;
      if (!best || t.due < best.due || (t.due === best.due && t.seq < best.seq)) best = t;
    }
    return best;
  }
}
