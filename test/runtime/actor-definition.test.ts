/**
 * Boundary validation of actor messages (validateMessage): flat field kinds, and nested specs
 * (arrayOf, objectOf) that check what handlers walk. What clients may send (clientMessageProblem).
 */
import { expect } from 'chai';
import { arrayOf, clientMessageProblem, defineActor, objectOf, validateMessage, type ActorDefinition } from '../../src/runtime/actor-definition.js';
import type { Message } from '../../src/runtime/types.js';

type Msg = { type: 'Put'; state: { isr: number[] }; items: { name: string; parts: number[] }[]; note?: { text: string } | null } | { type: 'Flat'; when: object };

const def = defineActor<null, Msg>({
  kind: 'schema-test',
  init: () => null,
  supervision: 'resume',
  schema: {
    Put: { state: objectOf({ isr: arrayOf('integer') }), items: arrayOf(objectOf({ name: 'string', parts: arrayOf('integer') })), note: objectOf({ text: 'string' }, { optional: true }) },
    Flat: { when: 'object' },
  },
  handlers: { Put: () => undefined, Flat: () => undefined },
}) as unknown as ActorDefinition<unknown, Message, unknown>;

const check = (msg: Record<string, unknown>) => validateMessage(def, msg as unknown as Message);
const good = { type: 'Put', state: { isr: [1, 2] }, items: [{ name: 'a', parts: [0] }] };

describe('runtime/actor-definition: validateMessage', () => {
  it('accepts a message whose nested fields match, with or without an optional nested field', () => {
    expect(check(good)).to.equal(null);
    expect(check({ ...good, note: null })).to.equal(null);
    expect(check({ ...good, note: { text: 'x' } })).to.equal(null);
  });

  it('names the first nested field that does not match', () => {
    expect(check({ ...good, state: {} })).to.equal('Put.state.isr is required (array)');
    expect(check({ ...good, state: { isr: [1, 'x'] } })).to.equal('Put.state.isr[1] must be integer, got string');
    expect(check({ ...good, items: [{ name: 'a', parts: [0] }, null] })).to.equal('Put.items[1] is required (object)');
    expect(check({ ...good, items: [{ name: 'a', parts: null }] })).to.equal('Put.items[0].parts is required (array)');
    expect(check({ ...good, note: { text: 5 } })).to.equal('Put.note.text must be string, got number');
    expect(check({ ...good, items: {} })).to.equal('Put.items must be array, got object');
  });

  it('does not take a timestamp (msgpack decodes one as a Date) for an object', () => {
    expect(check({ type: 'Flat', when: new Date(0) })).to.equal('Flat.when must be object, got timestamp');
    expect(check({ ...good, state: new Date(0) })).to.equal('Put.state must be object, got timestamp');
    expect(check({ type: 'Flat', when: {} })).to.equal(null);
  });

  it("takes a bigint for an 'integer' and not for a 'safeInteger'", () => {
    const d = defineActor<null, { type: 'N'; a: number; b: number }>({
      kind: 'ints',
      init: () => null,
      supervision: 'resume',
      schema: { N: { a: 'integer', b: 'safeInteger' } },
      handlers: { N: () => undefined },
    }) as unknown as ActorDefinition<unknown, Message, unknown>;
    const n = (a: unknown, b: unknown) => validateMessage(d, { type: 'N', a, b } as unknown as Message);
    expect(n(2n ** 63n - 1n, 7)).to.equal(null);
    expect(n(1, 2n ** 64n - 1n)).to.equal('N.b must be safeInteger, got bigint');
    expect(n(1, 2 ** 53)).to.equal('N.b must be safeInteger, got number');
    expect(n(1.5, 1)).to.equal('N.a must be integer, got number');
  });
});

type ClientMsg = { type: 'Read'; n: number } | { type: 'Write'; n: number } | { type: 'Internal' };
const handlers = { Read: () => undefined, Write: () => undefined, Internal: () => undefined };
const asDef = (d: unknown) => d as ActorDefinition<unknown, Message, unknown>;

describe('runtime/actor-definition: clientMessageProblem', () => {
  it('refuses everything from clients when the definition says nothing', () => {
    const d = asDef(defineActor<null, ClientMsg>({ kind: 'closed', init: () => null, supervision: 'resume', handlers }));
    expect(clientMessageProblem(d, { type: 'Read' })).to.equal("actor kind 'closed' does not take 'Read' from clients");
    expect(clientMessageProblem(d, { type: 'Internal' })).to.equal("actor kind 'closed' does not take 'Internal' from clients");
  });

  it("takes every message with 'all'", () => {
    const d = asDef(defineActor<null, ClientMsg>({ kind: 'open', init: () => null, supervision: 'resume', clientMessages: 'all', handlers }));
    expect(clientMessageProblem(d, { type: 'Internal' })).to.equal(null);
  });

  it('takes the types listed, each as it is or when its check passes, and no other (not even inherited names)', () => {
    const d = asDef(
      defineActor<null, ClientMsg>({
        kind: 'some',
        init: () => null,
        supervision: 'resume',
        clientMessages: { Read: true, Write: (m) => (m.n > 10 ? `n ${m.n} is above 10` : null) },
        handlers,
      }),
    );
    expect(clientMessageProblem(d, { type: 'Read' })).to.equal(null);
    expect(clientMessageProblem(d, { type: 'Write', n: 3 } as Message)).to.equal(null);
    expect(clientMessageProblem(d, { type: 'Write', n: 11 } as Message)).to.equal("actor kind 'some' does not take this 'Write' from clients: n 11 is above 10");
    expect(clientMessageProblem(d, { type: 'Internal' })).to.equal("actor kind 'some' does not take 'Internal' from clients");
    expect(clientMessageProblem(d, { type: 'toString' })).to.equal("actor kind 'some' does not take 'toString' from clients");
  });

  it('refuses a message its check cannot read (the check runs before the schema)', () => {
    const d = asDef(
      defineActor<null, ClientMsg>({
        kind: 'reads',
        init: () => null,
        supervision: 'resume',
        clientMessages: { Write: (m) => ((m as unknown as { deep: { n: number } }).deep.n > 1 ? 'deep' : null) },
        handlers,
      }),
    );
    expect(clientMessageProblem(d, { type: 'Write', n: 1 } as Message)).to.match(/^actor kind 'reads' does not take this 'Write' from clients: its check failed \(.*\)$/);
  });
});
