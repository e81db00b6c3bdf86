import { AppError, registerErrorCodes, toProblem } from '../src/errors';

describe('toProblem', () => {
  it('maps a coded error to its status, with pointers and instance', () => {
    const p = toProblem(new AppError('REQUEST.VALIDATION', '1 violation', [{ pointer: '/a', message: 'bad' }]), '/x');
    expect(p).toMatchObject({ status: 400, code: 'REQUEST.VALIDATION', detail: '1 violation', instance: '/x' });
    expect(p.errors).toEqual([{ pointer: '/a', message: 'bad' }]);
  });

  it('uses codes registered by a service', () => {
    registerErrorCodes({ 'ROUTING.UNKNOWN_ROUTE': { status: 404, title: 'Unknown route' } });
    expect(toProblem(new AppError('ROUTING.UNKNOWN_ROUTE', 'no route x')).status).toBe(404);
  });

  it('hides the message and stack of an unexpected error behind a 500', () => {
    const p = toProblem(new Error('secret connection string mongodb://user:pw@host'));
    expect(p.status).toBe(500);
    expect(JSON.stringify(p)).not.toContain('pw@host');
  });
});
