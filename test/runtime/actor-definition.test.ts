/**
 * Boundary validation of actor messages (validateMessage): flat field kinds, and nested specs
 * (arrayOf, objectOf) that check what handlers walk.
 */
import { expect } from 'chai';
import { arrayOf, defineActor, objectOf, validateMessage, type ActorDefinition } from '../../src/runtime/actor-definition.js';
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
});
