// @cc/contracts: the one source of the suite's interfaces. JSON Schemas (TS objects) → OpenAPI 3.1 and AsyncAPI 3
// documents, validators, and TypeScript types.

export { asyncApiDocument, exampleEvent } from './asyncapi';
export { type DocumentEntry, type DocumentName, documentJson, documentsAsJson, listDocuments } from './docs';
export * from './event-validation';
export * from './examples';
export type { JsonSchema, JsonType } from './json-schema';
export { limits } from './limits';
export { type OpenApiName, type OpenApiObject, openApiDocuments } from './openapi/index';
export * from './schemas/admin';
export * from './schemas/agent-desktop';
export * from './schemas/analysis';
export * from './schemas/auth';
export * from './schemas/common';
export * from './schemas/event-stream';
export * from './schemas/events/index';
export * from './schemas/interactions';
export * from './schemas/notification';
export * from './schemas/problem';
export * from './schemas/providers';
export * from './schemas/statistics';
export * from './schemas/summaries';
export * from './schemas/v0';
export type * from './types';
export * from './v0-deprecation';
export * from './validation';
export * from './versions';
