// biome-ignore-all lint/suspicious/noExplicitAny: the tests walk untyped JSON documents.
import { Parser } from '@asyncapi/parser';
import {
  asyncApiCatalog,
  asyncApiDocument,
  type EventDataMap,
  type EventType,
  EventValidator,
  eventCatalog,
  eventDataExamples,
  eventSchemas,
  exampleEvent,
  messageKey,
  topicOf,
  topics,
  validateEvent,
  validateEventData,
} from '../src/index';

const doc = asyncApiDocument as Record<string, any>;

// Compile-time: the TS data types and the schemas cover exactly the same event types.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameEventTypes: Same<keyof EventDataMap, EventType> = true;

describe('AsyncAPI document', () => {
  it('parses with @asyncapi/parser without errors or warnings', async () => {
    const { document, diagnostics } = await new Parser().parse(structuredClone(asyncApiDocument) as never);
    expect(document).toBeDefined();
    expect(
      diagnostics.filter((d) => d.severity <= 1).map((d) => `${d.code}: ${d.message} at ${d.path.join('/')}`),
    ).toEqual([]);
    expect(doc.asyncapi).toBe('3.0.0');
    expect(sameEventTypes).toBe(true);
  });

  it('describes the six topics with their event types', () => {
    expect(Object.keys(topics)).toEqual([
      'cc.provider.v1',
      'cc.interaction.v1',
      'cc.agent-activity.v1',
      'cc.analysis.v1',
      'cc.notification-delivery.v1',
      'cc.account.v1',
    ]);
    expect(topics['cc.provider.v1']).toEqual(['provider.registered', 'provider.updated', 'provider.deleted']);
    expect(topics['cc.account.v1']).toEqual(['account.feature-flags-changed']);
    expect(topics['cc.interaction.v1']).toEqual(
      expect.arrayContaining([
        'interaction.queued',
        'interaction.offered',
        'interaction.assigned',
        'interaction.rejected',
        'interaction.held',
        'interaction.retrieved',
        'interaction.transferred',
        'interaction.wrap-started',
        'interaction.wrap-ended',
        'interaction.released',
      ]),
    );
    expect(topics['cc.agent-activity.v1']).toContain('agent-activity.presence-changed');
    for (const [topic, types] of Object.entries(topics)) {
      expect(doc.channels[topic].address).toBe(topic);
      expect(Object.keys(doc.channels[topic].messages)).toEqual(types);
      for (const type of types) expect(topicOf(type)).toBe(topic);
    }
    expect(Object.keys(eventSchemas).sort()).toEqual(Object.values(topics).flat().sort());
  });

  it("names each topic's producer and consumers as operations", () => {
    expect(doc.operations['routing.send.cc.interaction.v1'].action).toBe('send');
    expect(doc.operations['notifier.receive.cc.interaction.v1'].action).toBe('receive');
    expect(doc.operations['summaries.receive.cc.agent-activity.v1'].action).toBe('receive');
    expect(doc.operations['gateway.send.cc.account.v1'].action).toBe('send');
  });

  it('keys messages by <accountId>:<entityId> and wraps data in a structured CloudEvent', () => {
    const message = doc.components.messages['interaction.assigned'];
    expect(message.bindings.kafka.key.pattern).toBe('^[^:]+:.+$');
    expect(message.contentType).toBe('application/cloudevents+json');
    expect(message.payload.required).toEqual([
      'specversion',
      'id',
      'source',
      'type',
      'time',
      'subject',
      'accountid',
      'datacontenttype',
      'data',
    ]);
    expect(message.payload.properties.data).toBe(eventSchemas['interaction.assigned']);
    expect(messageKey('acme', 'x-1')).toBe('acme:x-1');
    expect(doc.info.description).toMatch(/structured mode/);
  });

  it.each(Object.keys(eventSchemas) as EventType[])('validates the %s example event (envelope and data)', (type) => {
    expect(validateEvent(exampleEvent(type))).toEqual({ ok: true, value: exampleEvent(type) });
    expect(validateEventData(type, structuredClone(eventDataExamples[type])).ok).toBe(true);
  });

  it('is what the event validator runs: its payloads and topics are read from the document', () => {
    const catalog = asyncApiCatalog();
    expect(Object.keys(catalog.payloads).sort()).toEqual(Object.keys(eventSchemas).sort());
    for (const type of Object.keys(eventSchemas))
      expect(catalog.payloads[type]).toBe(doc.components.messages[type].payload);
    expect(catalog.topics).toEqual(topics);
    // A change to the document is a change to what runs.
    const edited = structuredClone(doc);
    edited.components.messages['provider.deleted'].payload.properties.data.required.push('addedLater');
    const event = exampleEvent('provider.deleted');
    expect(new EventValidator().check(event).kind).toBe('valid');
    expect(new EventValidator(asyncApiCatalog(edited)).check(event)).toMatchObject({
      kind: 'invalid',
      errors: [{ pointer: '/data/addedLater' }],
    });
  });

  it('documents the dead-letter topics: one kind of message, the consumed message unchanged with x-dlq-* headers', () => {
    const channel = doc.channels['dead-letter'];
    expect(channel.address).toBe('{group}.dlq');
    expect(channel.parameters.group.enum).toEqual(['analysis', 'notifier', 'routing', 'statistics', 'summaries']);
    expect(Object.keys(channel.messages)).toEqual(['dead-letter']);
    expect(doc.components.messages['dead-letter'].headers.required).toContain('x-dlq-error');
    expect(doc.operations['notifier.send.dead-letter'].action).toBe('send');
    expect(Object.keys(asyncApiCatalog().payloads)).not.toContain('dead-letter');
  });

  it('tells an unknown type (skippable) from an invalid event, and a type on the wrong topic is invalid', () => {
    const validator = new EventValidator();
    const event = exampleEvent('provider.deleted');
    expect(validator.check({ ...event, type: 'provider.renamed' }, 'cc.provider.v1')).toEqual({
      kind: 'unknown-type',
      type: 'provider.renamed',
    });
    expect(validator.check(event, 'cc.provider.v1').kind).toBe('valid');
    expect(validator.check(event, 'cc.interaction.v1')).toEqual({
      kind: 'invalid',
      errors: [{ pointer: '/type', message: 'type provider.deleted is not carried on cc.interaction.v1' }],
    });
    // The strict contract envelope: a source outside /cc/<service>, a time without milliseconds.
    expect(validator.check({ ...event, source: '/test' }).kind).toBe('invalid');
    expect(validator.check({ ...event, time: '2024-05-01T08:00:00Z' }).kind).toBe('invalid');
    expect(validator.check({ ...event, type: 'NotAType' }).kind).toBe('invalid');
  });

  it("answers in one pass what the envelope's pass and the type's would: only what both accept is valid", () => {
    // Catalog types whose data schema accepts anything, one of them not a type the envelope allows.
    const validator = new EventValidator(eventCatalog({ 'x.made': {}, Bad_Type: {} }, { 'cc.x.v1': ['x.made'] }));
    const event = { ...exampleEvent('provider.deleted'), type: 'x.made', data: { any: 1 } };
    expect(validator.check(event, 'cc.x.v1').kind).toBe('valid');
    expect(validator.check({ ...event, data: 5 }, 'cc.x.v1')).toEqual({
      kind: 'invalid',
      errors: [{ pointer: '/data', message: 'data must be an object' }],
    });
    expect(validator.check({ ...event, data: [] }).kind).toBe('invalid');
    expect(validator.check({ ...event, type: 'Bad_Type' }).kind).toBe('invalid');
    expect(validator.check(event, 'cc.other.v1').kind).toBe('valid'); // a topic not listed carries any type
    expect(validator.check({ ...event, id: '' }, 'cc.x.v1')).toMatchObject({
      kind: 'invalid',
      errors: [{ pointer: '/id' }],
    });
  });

  it('allows unknown data fields (additive changes keep the version) but checks known ones', () => {
    const data = { ...structuredClone(eventDataExamples['interaction.held']), addedLater: 1 };
    expect(validateEventData('interaction.held', data).ok).toBe(true);
    const bad = validateEventData('interaction.rejected', {
      ...eventDataExamples['interaction.rejected'],
      outcome: 'Answered',
    });
    expect(bad).toEqual({
      ok: false,
      errors: [{ pointer: '/outcome', message: 'outcome must be one of: Unexpected, Failed' }],
    });
  });

  it('rejects bad envelopes and unknown types with pointers', () => {
    const event = exampleEvent('provider.deleted');
    expect(validateEvent({ ...event, specversion: '0.3' })).toEqual({
      ok: false,
      errors: [{ pointer: '/specversion', message: 'specversion must be 1.0' }],
    });
    expect(validateEvent({ ...event, type: 'provider.renamed' })).toEqual({
      ok: false,
      errors: [{ pointer: '/type', message: 'type provider.renamed is not a known event type' }],
    });
    expect(validateEvent({ ...event, data: { provider: 'x' } })).toMatchObject({
      ok: false,
      errors: [
        { pointer: '/data/version', message: 'version is required' },
        { pointer: '/data/occurredAt', message: 'occurredAt is required' },
      ],
    });
  });
});
