/**
 * `samsa log-dirs`: the brokers' log dirs like Kafka's kafka-log-dirs tool, through the admin
 * client's describeLogDirs (each broker asked for its own). --describe prints Kafka's two progress
 * lines and then one JSON line: per broker its log dirs, each with its error and its partition
 * logs' sizes in bytes, offset lags and whether they are future replicas; --broker-list and
 * --topic-list narrow it down.
 */
import type { BrokerLogDirs } from '../../client/admin.js';
import { errorName, ErrorCode } from '../../protocol/errors.js';
import { brokerIdList, type Args, type OptionSpec } from '../args.js';
import { withAdmin, withCluster } from '../cluster.js';
import { BOOTSTRAP_OPTION, HELP_OPTION, type Command } from '../command.js';
import { CliError, EXIT_OK, UsageError } from '../errors.js';
import { out } from '../output.js';

const options: OptionSpec[] = [
  BOOTSTRAP_OPTION,
  { name: 'describe', kind: 'flag', help: 'describe the log dirs of the brokers' },
  { name: 'broker-list', kind: 'string', value: 'id,id,...', help: 'the brokers to ask, such as 1,2,3 (default: every live broker of the cluster)' },
  { name: 'topic-list', kind: 'string', value: 'topic,topic,...', help: 'only the partitions of these topics (default: every partition)' },
  HELP_OPTION,
];

/** Kafka's --broker-list: ids separated by commas, empty entries skipped, each once, ascending. */
export function parseBrokerIds(raw: string): number[] {
  return [...new Set(brokerIdList(raw, true))].sort((a, b) => a - b);
}

/** Kafka's --topic-list: names separated by commas, empty entries skipped, each once. */
export function parseTopicList(raw: string): string[] {
  return [...new Set(raw.split(',').map((s) => s.trim()).filter(Boolean))];
}

/**
 * Kafka's tool's JSON: {"version":1,"brokers":[{"broker":1,"logDirs":[{"logDir":..,"error":..,
 * "partitions":[{"partition":"t-0","size":..,"offsetLag":..,"isFuture":..}]}]}]}, the error being
 * the dir's error name or null.
 */
export function logDirsJson(brokers: readonly BrokerLogDirs[]): string {
  return JSON.stringify({
    version: 1,
    brokers: brokers.map((b) => ({
      broker: b.broker,
      logDirs: b.logDirs.map((d) => ({
        logDir: d.logDir,
        error: d.errorCode === ErrorCode.NONE ? null : errorName(d.errorCode),
        partitions: d.partitions.map((p) => ({ partition: `${p.topic}-${p.partition}`, size: p.size, offsetLag: p.offsetLag, isFuture: p.isFuture })),
      })),
    })),
  });
}

async function run(args: Args): Promise<number> {
  if (!args.has('describe')) throw new UsageError('give --describe (the only action of this command, as in Kafka\'s tool)');
  const brokerList = args.string('broker-list');
  const topicList = args.string('topic-list');
  const asked = brokerList !== undefined ? parseBrokerIds(brokerList) : [];
  const topics = topicList !== undefined ? parseTopicList(topicList) : [];

  await withCluster(args, 'samsa-log-dirs', async (conn) => {
    const md = await conn.metadata();
    const registered = md.brokers.map((b) => b.brokerId).sort((a, b) => a - b);
    const unknown = asked.filter((id) => !registered.includes(id));
    if (unknown.length > 0) {
      throw new CliError(`the given brokers do not exist from --broker-list: ${unknown.join(',')}. Current existent brokers: ${registered.join(',')}`);
    }
    out('Querying brokers for log directories information');
    // without --broker-list, the admin client asks every live broker, in id order
    const result: BrokerLogDirs[] = await withAdmin(conn, (admin) =>
      admin.describeLogDirs({ ...(asked.length > 0 ? { brokers: asked } : {}), ...(topics.length > 0 ? { topics: topics.map((topic) => ({ topic })) } : {}) }),
    );
    const failed = result.filter((b) => b.errorCode !== ErrorCode.NONE);
    if (failed.length > 0) {
      const why = failed.map((b) => `broker ${b.broker}: ${errorName(b.errorCode)}${b.errorMessage ? ` (${b.errorMessage})` : ''}`).join('; ');
      throw new CliError(`could not get the log dirs of broker(s) ${failed.map((b) => b.broker).join(',')}: ${why}`);
    }
    out(`Received log directory information from brokers ${result.map((b) => b.broker).join(',')}`);
    out(logDirsJson(result));
  });
  return EXIT_OK;
}

export const logDirsCommand: Command = {
  name: 'log-dirs',
  summary: "show the brokers' log dirs with each partition's size on disk and offset lag",
  usage: ['[--bootstrap-server host:port] --describe [--broker-list id,id,...] [--topic-list topic,topic,...]'],
  description:
    "Asks each broker for its log dirs, as Kafka's kafka-log-dirs does, and prints Kafka's JSON on one line: per broker its log dirs (absolute paths) with their error (null when none) and the partitions in them, each with its size in bytes on disk, its offset lag (how far its log end is behind the high watermark: 0 for a current replica) and isFuture (the copy of a replica being moved into that log dir, while it is made).\n\nExits 1 when a broker of --broker-list is not registered in the cluster or a broker does not answer.",
  options,
  examples: ['samsa log-dirs --describe', 'samsa log-dirs --describe --broker-list 1,2 --topic-list orders,payments'],
  run,
};
