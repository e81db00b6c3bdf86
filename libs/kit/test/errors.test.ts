import { AppError, defineErrorCodes, isConnectivityError, toProblem } from '../src/errors';

describe('toProblem', () => {
  it('maps a coded error to its status, with pointers and instance', () => {
    const p = toProblem(new AppError('REQUEST.VALIDATION', '1 violation', [{ pointer: '/a', message: 'bad' }]), '/x');
    expect(p).toMatchObject({ status: 400, code: 'REQUEST.VALIDATION', detail: '1 violation', instance: '/x' });
    expect(p.errors).toEqual([{ pointer: '/a', message: 'bad' }]);
  });

  it("carries a service's status with each error, with no table to register into", () => {
    const routingError = defineErrorCodes({ 'ROUTING.UNKNOWN_ROUTE': { status: 422, title: 'Unknown route' } });
    const err = routingError('ROUTING.UNKNOWN_ROUTE', 'no route x', [{ pointer: '/route', message: 'unknown' }]);
    expect(err).toBeInstanceOf(AppError);
    expect(toProblem(err, '/x')).toMatchObject({ status: 422, title: 'Unknown route', code: 'ROUTING.UNKNOWN_ROUTE' });
    // A second service's definitions neither see nor change the first one's.
    const other = defineErrorCodes({ 'OTHER.GONE': { status: 410, title: 'Gone' } });
    expect(toProblem(other('OTHER.GONE', 'x')).status).toBe(410);
    expect(toProblem(routingError('REQUEST.CONFLICT', 'kit codes too')).status).toBe(409);
  });

  it('answers 500 for a code nobody defined', () => {
    const err = new AppError('NOBODY.DEFINED' as 'INTERNAL', 'x');
    expect(toProblem(err).status).toBe(500);
  });

  it('hides the message and stack of an unexpected error behind a 500', () => {
    const p = toProblem(new Error('secret connection string mongodb://user:pw@host'));
    expect(p.status).toBe(500);
    expect(JSON.stringify(p)).not.toContain('pw@host');
  });

  it('answers a store or broker connectivity failure with 503, hiding its message', () => {
    class MongoServerSelectionError extends Error {
      override name = 'MongoServerSelectionError';
    }
    const p = toProblem(new MongoServerSelectionError('connect ECONNREFUSED mongodb://user:pw@host'), '/x');
    expect(p).toMatchObject({ status: 503, code: 'DEPENDENCY.UNAVAILABLE', instance: '/x' });
    expect(JSON.stringify(p)).not.toContain('pw@host');
    const buffering = Object.assign(new Error('Operation `a.findOne()` buffering timed out after 10000ms'), {
      name: 'MongooseError',
    });
    expect(toProblem(buffering).status).toBe(503);
    expect(toProblem(Object.assign(new Error('x'), { name: 'MongooseError' })).status).toBe(500);
    expect(isConnectivityError({ name: 'KafkaJSConnectionError' })).toBe(true);
    expect(isConnectivityError(null)).toBe(false);
  });
});

describe('toProblem bounds (issue 19 item 6)', () => {
  it('keeps instance to the path, at most 500 characters, and detail and field errors within their maxima', () => {
    const long = `/things/${'a'.repeat(5000)}`;
    const p = toProblem(
      new AppError('REQUEST.VALIDATION', `No resource at GET ${long}`, [
        { pointer: `/${'p'.repeat(3000)}`, message: 'm'.repeat(3000) },
      ]),
      `${long}?token=secret`,
    );
    expect(p.instance?.length).toBeLessThanOrEqual(500);
    expect(p.instance).toMatch(/^\/things\/a+/);
    expect(p.instance).not.toContain('secret');
    expect(p.detail.length).toBeLessThanOrEqual(2000);
    expect(p.errors?.[0]?.pointer.length).toBeLessThanOrEqual(1000);
    expect(p.errors?.[0]?.message.length).toBeLessThanOrEqual(1000);
    expect(toProblem(new AppError('REQUEST.NOT_FOUND', 'x'), '/a/b?c=d').instance).toBe('/a/b');
  });
});
