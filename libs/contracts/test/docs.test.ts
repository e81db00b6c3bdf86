import { documentJson, documentsAsJson, listDocuments, openApiDocuments } from '../src/index';

describe('documents for /docs', () => {
  it('returns every document as a JSON-safe deep copy', () => {
    const docs = documentsAsJson();
    expect(Object.keys(docs)).toEqual([...Object.keys(openApiDocuments), 'asyncapi']);
    expect(docs.interactions).toEqual(JSON.parse(JSON.stringify(openApiDocuments.interactions)));
    (docs.interactions.info as { title: string }).title = 'changed';
    expect((openApiDocuments.interactions.info as { title: string }).title).toBe('Interactions API');
  });

  it('serialises one document by name', () => {
    expect(JSON.parse(documentJson('asyncapi') ?? '{}').asyncapi).toBe('3.0.0');
    expect(JSON.parse(documentJson('statistics') ?? '{}').openapi).toBe('3.1.0');
    expect(documentJson('nope')).toBeUndefined();
    expect(documentJson('__proto__')).toBeUndefined();
  });

  it('lists the documents with title and version', () => {
    expect(listDocuments()).toContainEqual({
      name: 'interactions',
      kind: 'openapi',
      title: 'Interactions API',
      version: '1.0.0',
    });
    expect(listDocuments()).toContainEqual({
      name: 'asyncapi',
      kind: 'asyncapi',
      title: 'Contact-center suite events',
      version: '1.0.0',
    });
    expect(listDocuments()).toHaveLength(9);
  });
});
