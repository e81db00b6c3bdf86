import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/** A strict draft 2020-12 ajv without defaults or coercion, to check schemas and examples found in the documents. */
export function strictAjv(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, strictRequired: false });
  addFormats(ajv);
  ajv.addKeyword('x-message');
  return ajv;
}
