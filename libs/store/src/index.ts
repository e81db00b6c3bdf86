export * from './connection';
export * from './tenancy';
