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

/**
 * The longest delay Node's timers take (2^31-1 ms, about 24.8 days): a longer one fires after
 * 1 ms, with a TimeoutOverflowWarning. systemClock waits longer ones out in steps of this.
 */
export const MAX_TIMER_STEP_MS = 2 ** 31 - 1;

class RealTimer implements TimerHandle {
  /** The Node timer running now (the current step of a long wait). */
  native: ReturnType<typeof setTimeout> | undefined;
  unrefed = false;
  constructor(readonly id: number) {}
}

let nextRealId = 1;

/** Runs `fn` once `ms` have passed, through as many Node timers as that takes. */
function armSteps(timer: RealTimer, fn: () => void, ms: number): void {
  timer.native = ms <= MAX_TIMER_STEP_MS ? setTimeout(fn, ms) : setTimeout(() => armSteps(timer, fn, ms - MAX_TIMER_STEP_MS), MAX_TIMER_STEP_MS);
  if (timer.unrefed) timer.native.unref();
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const timer = new RealTimer(nextRealId++);
    armSteps(timer, fn, Math.max(0, ms));
    return timer;
  },
  setInterval(fn, ms) {
    const every = Math.max(1, ms);
    const timer = new RealTimer(nextRealId++);
    if (every <= MAX_TIMER_STEP_MS) {
      timer.native = setInterval(fn, every);
    } else {
      // the next wait is armed before `fn` runs, so `fn` can clear it
      const next = (): void => armSteps(timer, () => {
        next();
        fn();
      }, every);
      next();
    }
    return timer;
  },
  clearTimer(handle) {
    // Node's clearTimeout clears interval timers too
    if (handle instanceof RealTimer) clearTimeout(handle.native);
  },
};

/** A real-clock timer that does not keep the process alive (for background housekeeping). */
export function unrefTimer(handle: TimerHandle): TimerHandle {
  if (handle instanceof RealTimer) {
    handle.unrefed = true;
    handle.native?.unref();
  }
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
