import { asyncApiDocument } from './asyncapi';
import { type OpenApiName, openApiDocuments } from './openapi/index';

/** The name of a contract document: an OpenAPI document's API name, or `asyncapi` for the events. */
export type DocumentName = OpenApiName | 'asyncapi';

/** A document listed for the /docs index. */
export interface DocumentEntry {
  name: DocumentName;
  kind: 'openapi' | 'asyncapi';
  title: string;
  version: string;
}

/** Every contract document as a JSON-safe deep copy keyed by name, for the gateway to serve at /docs. */
export function documentsAsJson(): Record<DocumentName, Record<string, unknown>> {
  const all: Record<string, unknown> = { ...openApiDocuments, asyncapi: asyncApiDocument };
  return JSON.parse(JSON.stringify(all)) as Record<DocumentName, Record<string, unknown>>;
}

/** One document as a JSON string, or undefined for an unknown name. */
export function documentJson(name: string): string | undefined {
  const all: Record<string, unknown> = { ...openApiDocuments, asyncapi: asyncApiDocument };
  return Object.hasOwn(all, name) ? JSON.stringify(all[name]) : undefined;
}

/** The list of documents with their titles and versions, for an index page. */
export function listDocuments(): DocumentEntry[] {
  const entry = (name: DocumentName, kind: DocumentEntry['kind'], doc: Record<string, unknown>): DocumentEntry => {
    const info = doc.info as { title: string; version: string };
    return { name, kind, title: info.title, version: info.version };
  };
  return [
    ...Object.entries(openApiDocuments).map(([name, doc]) => entry(name as OpenApiName, 'openapi', doc)),
    entry('asyncapi', 'asyncapi', asyncApiDocument),
  ];
}
