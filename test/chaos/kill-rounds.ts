/**
 * The broker kills the chaos soaks run under load: `rounds` times, a random one of the three
 * brokers killed 1-2 s in and restarted 2-3 s later, the next round once it is back in the cluster.
 */
import type { TestCluster } from '../helpers/cluster.js';

export async function killAndRestartRounds(c: TestCluster, rounds: number): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    await new Promise((r) => setTimeout(r, 1_000 + Math.random() * 1_000));
    const victim = 1 + Math.floor(Math.random() * 3);
    await c.killBroker(victim);
    await new Promise((r) => setTimeout(r, 2_000 + Math.random() * 1_000));
    await c.startBroker(victim);
    await c.client.waitForBrokers(3);
  }
}
