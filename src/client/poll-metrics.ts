/**
 * The application's polls, as Kafka's consumers count them (KafkaConsumerMetrics for the
 * consumer, in consumer-metrics; KafkaShareConsumerMetrics for the share consumer, in
 * consumer-share-metrics): the time between polls, the share of it the application spent
 * waiting in poll rather than processing, and how long ago it last polled. A poll starts when
 * it reaches the consumer and ends when it is answered. Pure: the caller passes the time.
 */
import { SampledStat, secondsSince, type ClientMetric, type SampleConfig } from './metrics.js';

export class PollMetrics {
  private readonly timeBetweenPolls: SampledStat;
  private readonly pollIdle: SampledStat;
  /** When the last poll came (null: none yet). */
  private lastPollAt: number | null = null;
  /** When the poll being answered came (null: none), and the time from the poll before it to it. */
  private pollStartedAt: number | null = null;
  private sinceLastPoll = 0;

  constructor(config: SampleConfig, now: number) {
    this.timeBetweenPolls = new SampledStat(config, now);
    this.pollIdle = new SampledStat(config, now);
  }

  /** The application polled (Kafka's recordPollStart). */
  started(now: number): void {
    this.sinceLastPoll = this.lastPollAt !== null ? now - this.lastPollAt : 0;
    this.timeBetweenPolls.record(this.sinceLastPoll, now);
    this.lastPollAt = now;
    this.pollStartedAt = now;
  }

  /** The poll was answered (Kafka's recordPollEnd): the share of the time it spent waiting in the poll. */
  ended(now: number): void {
    if (this.pollStartedAt === null) return;
    const inPoll = now - this.pollStartedAt;
    const span = inPoll + this.sinceLastPoll;
    this.pollIdle.record(span > 0 ? inPoll / span : 0, now);
    this.pollStartedAt = null;
  }

  /** last-poll-seconds-ago, poll-idle-ratio-avg, time-between-poll-avg and -max, made by `m` (their group and tags). */
  metrics(m: (name: string, description: string, value: number) => ClientMetric, now: number): ClientMetric[] {
    return [
      m('last-poll-seconds-ago', 'seconds since the application last polled (-1: never yet)', secondsSince(this.lastPollAt, now)),
      m('poll-idle-ratio-avg', 'average share of the time the application spent waiting in poll rather than processing', this.pollIdle.avg(now)),
      m('time-between-poll-avg', 'average milliseconds between polls', this.timeBetweenPolls.avg(now)),
      m('time-between-poll-max', 'longest time between polls, in milliseconds', this.timeBetweenPolls.max(now)),
    ];
  }
}
