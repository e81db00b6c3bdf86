// The certificate helper moved to @cc/testing (the end-to-end suite uses it too).
export { selfSignedCertificate, type TestCertificate } from '@cc/testing';
