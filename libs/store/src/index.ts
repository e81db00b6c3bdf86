export * from './connection';
export * from './expiry';
export * from './tenancy';
