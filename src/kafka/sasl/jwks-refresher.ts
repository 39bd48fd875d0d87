/**
 * Keeps an OAUTHBEARER listener's key set fresh from its URL, as Kafka's RefreshingHttpsJwks: the
 * set is fetched when the listener starts, again every jwksRefreshMs, and soon after a token names
 * a key the set lacks (an identity provider rotating its keys), at most once per `minGapMs`. A
 * fetch that fails or brings no usable set keeps the keys in force and is logged; the next
 * scheduled or asked-for fetch tries again. Fetches never overlap. `fetchText` and the clock are
 * injected by the listener (tests give their own).
 */
import type { Logger } from '../../runtime/logger.js';
import { parseKeySet, type OAuthBearerSettings } from './oauthbearer.js';

export interface JwksRefresherDeps {
  fetchText(url: string): Promise<string>;
  now(): number;
  log: Logger;
  /** Asks for a fetch after `delayMs` (the listener's timer); the owner calls `refresh()` then. */
  schedule(delayMs: number): void;
}

export class JwksRefresher {
  private inFlight: Promise<void> | null = null;
  private lastAttempt = -Infinity;
  private asked = false;
  /** Fetches that brought a key set, and those that failed. */
  fetched = 0;
  failed = 0;

  constructor(
    private readonly settings: OAuthBearerSettings,
    private readonly deps: JwksRefresherDeps,
    private readonly minGapMs = 10_000,
  ) {
    settings.onUnknownKey = () => this.askSoon();
  }

  /** Fetches the set now (joining a fetch under way). */
  refresh(): Promise<void> {
    this.asked = false;
    this.inFlight ??= this.fetchOnce().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  /** A token named a key the set lacks: fetch again, but not more often than once per minGapMs. */
  private askSoon(): void {
    if (this.asked || this.inFlight) return;
    this.asked = true;
    this.deps.schedule(Math.max(0, this.lastAttempt + this.minGapMs - this.deps.now()));
  }

  private async fetchOnce(): Promise<void> {
    const url = this.settings.jwksUrl;
    if (url === null) return;
    this.lastAttempt = this.deps.now();
    try {
      const keys = parseKeySet(JSON.parse(await this.deps.fetchText(url)));
      this.settings.keys = keys;
      this.fetched++;
      this.deps.log.debug('OAUTHBEARER key set fetched', { url, keys: keys.length });
    } catch (err) {
      this.failed++;
      this.deps.log.warn('OAUTHBEARER key set not fetched: keeping the keys in force', { url, reason: (err as Error).message, keys: this.settings.keys.length });
    }
  }
}
