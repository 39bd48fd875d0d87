/**
 * A run's measured stretch: every thread's CPU (thread-cpu.ts) and the client node's traffic
 * with the brokers (traffic.ts), snapshotted together at its start and its end, so that each
 * perf tool marks the stretch once instead of keeping four snapshots of its own.
 */
import type { ActorSystem } from '../../src/runtime/actor-system.js';
import { cpuBetween, snapshotThreads, type CpuReport, type ThreadsSnapshot } from './thread-cpu.js';
import { snapshotTraffic, trafficBetween, type TrafficReport, type TrafficSnapshot } from './traffic.js';
import { nowMs } from './timing.js';

export class MeasuredStretch {
  private cpu0: ThreadsSnapshot | null = null;
  private cpu1: ThreadsSnapshot | null = null;
  private traffic0: TrafficSnapshot | null = null;
  private traffic1: TrafficSnapshot | null = null;
  private startedAt = false;
  private endedAt = false;

  /** `system`: the client's node, whose endpoints to the brokers are counted. */
  constructor(private readonly system: ActorSystem) {}

  /** The stretch starts now (`atMs`, the caller's clock reading, if it has one). */
  start(atMs: number = nowMs()): void {
    this.startedAt = true;
    this.cpu0 = snapshotThreads();
    this.traffic0 = snapshotTraffic(this.system, atMs);
  }

  /** The stretch ends now. */
  end(atMs: number = nowMs()): void {
    this.endedAt = true;
    this.cpu1 = snapshotThreads();
    this.traffic1 = snapshotTraffic(this.system, atMs);
  }

  get started(): boolean {
    return this.startedAt;
  }

  get ended(): boolean {
    return this.endedAt;
  }

  /** Where the CPU went in between (null where threads cannot be read, or before both ends). */
  cpu(): CpuReport | null {
    return this.cpu0 && this.cpu1 ? cpuBetween(this.cpu0, this.cpu1) : null;
  }

  /** What crossed to and from the brokers in between, over `records` records (null in-process, or before both ends). */
  traffic(records: number): TrafficReport | null {
    return this.traffic0 && this.traffic1 ? trafficBetween(this.traffic0, this.traffic1, records) : null;
  }
}
