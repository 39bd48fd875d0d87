/**
 * The broker kills the chaos soaks run under load: `rounds` times, a random one of the three
 * brokers killed 1-2 s in and restarted 2-3 s later, the next round once it is back in the cluster.
 * A soak may choose each round's victim itself and hear of each kill and return (to log them).
 */
import type { TestCluster } from '../helpers/cluster.js';

export interface KillRoundOptions {
  /** The broker to kill in `round` (from 0); a random one of the three by default. */
  pickVictim?: (round: number) => number | Promise<number>;
  /** Called once `victim` is killed, before it is restarted. */
  onKilled?: (round: number, victim: number) => void | Promise<void>;
  /** Called once `victim` is back in the cluster, `downMs` after its kill. */
  onBack?: (round: number, victim: number, downMs: number) => void | Promise<void>;
}

export async function killAndRestartRounds(c: TestCluster, rounds: number, opts: KillRoundOptions = {}): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    await new Promise((r) => setTimeout(r, 1_000 + Math.random() * 1_000));
    const victim = opts.pickVictim ? await opts.pickVictim(round) : 1 + Math.floor(Math.random() * 3);
    await c.killBroker(victim);
    const killedAt = Date.now();
    await opts.onKilled?.(round, victim);
    await new Promise((r) => setTimeout(r, 2_000 + Math.random() * 1_000));
    await c.startBroker(victim);
    await c.client.waitForBrokers(3);
    await opts.onBack?.(round, victim, Date.now() - killedAt);
  }
}
