/**
 * The metadata proxy on one in-process node, with a fake controller (one live broker, one
 * fenced) and a fake broker that answers FindCoordinator with the key type it was asked:
 * a group's and a transactional id's coordinator are both asked of a live broker with their key
 * type; an unknown key type is refused; no live broker is COORDINATOR_NOT_AVAILABLE.
 */
import { expect } from 'chai';
import { METADATA_PROXY_PATH, metadataProxy, type MetadataProxyMsg } from '../../../actors/cluster-node/metadata-proxy.js';
import { brokerPath, CONTROLLER_PATH } from '../../../src/protocol/cluster.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { defineActor } from '../../../src/runtime/actor-definition.js';
import { ActorSystem } from '../../../src/runtime/actor-system.js';
import type { ActorRef } from '../../../src/runtime/types.js';

type FakeControllerMsg = { type: 'Metadata'; topics?: string[] };
const fakeController = defineActor<{ fenced: boolean }, FakeControllerMsg, { fenced: boolean }>({
  kind: 'fake-controller',
  supervision: 'resume',
  init: (_ctx, args) => ({ fenced: args.fenced }),
  handlers: {
    Metadata: (s, _m, ctx) =>
      ctx.reply({ type: 'MetadataResponse', errorCode: ErrorCode.NONE, metadata: { brokers: [{ brokerId: 1, node: 'n1', fenced: s.fenced }, { brokerId: 2, node: 'n1', fenced: true }], topics: [], controllerEpoch: 1 } }),
  },
});

type FakeBrokerMsg = { type: 'FindCoordinator'; key: string; keyType?: string };
const fakeBroker = defineActor<object, FakeBrokerMsg, object>({
  kind: 'fake-broker',
  supervision: 'resume',
  init: () => ({}),
  handlers: {
    FindCoordinator: (_s, m, ctx) => ctx.reply({ type: 'FindCoordinatorResponse', errorCode: ErrorCode.NONE, brokerId: m.keyType === 'transaction' ? 7 : 3, node: `asked-${m.keyType ?? 'none'}-${m.key}` }),
  },
});

describe('actors/cluster-node/metadata-proxy', function () {
  let sys: ActorSystem;
  const proxy: ActorRef<MetadataProxyMsg> = { node: 'n1', path: METADATA_PROXY_PATH };

  async function start(fenced: boolean): Promise<void> {
    sys = new ActorSystem({ nodeId: 'n1', strictSerialization: true });
    const controller = sys.spawn(fakeController, { name: CONTROLLER_PATH.slice(1), args: { fenced } }) as unknown as ActorRef<never>;
    sys.spawn(fakeBroker, { name: brokerPath(1).slice(1), args: {} });
    sys.spawn(metadataProxy, { name: METADATA_PROXY_PATH.slice(1), args: { controller } });
  }
  const find = (msg: MetadataProxyMsg) => sys.ask(proxy, msg, { timeoutMs: 5_000 }) as unknown as Promise<{ errorCode: number; brokerId: number; node: string; errorMessage?: string }>;

  afterEach(async () => {
    await sys?.stop();
  });

  it("asks a live broker for the coordinator of a group, or of a transactional id, with the key's type", async () => {
    await start(false);
    expect(await find({ type: 'FindCoordinator', key: 'g' })).to.deep.include({ errorCode: ErrorCode.NONE, brokerId: 3, node: 'asked-group-g' });
    expect(await find({ type: 'FindCoordinator', key: 'g', keyType: 'group' })).to.deep.include({ brokerId: 3, node: 'asked-group-g' });
    expect(await find({ type: 'FindCoordinator', key: 'tx', keyType: 'transaction' })).to.deep.include({ errorCode: ErrorCode.NONE, brokerId: 7, node: 'asked-transaction-tx' });
  });

  it('refuses a key type it does not know, and answers COORDINATOR_NOT_AVAILABLE without a live broker', async () => {
    await start(false);
    const bad = await find({ type: 'FindCoordinator', key: 'x', keyType: 'share' as 'group' });
    expect(bad).to.deep.include({ errorCode: ErrorCode.INVALID_REQUEST, brokerId: -1 });
    expect(bad.errorMessage).to.contain("unknown coordinator key type 'share'");
    await sys.stop();
    await start(true);
    expect(await find({ type: 'FindCoordinator', key: 'g' })).to.deep.include({ errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, brokerId: -1 });
  });
});
