import { FluxError as ThisFluxError, isFluxError as thisIsFluxError } from '../../src/flux';
import { flux3ImageRequest } from '../support/imageRequest';

type FluxModule = typeof import('../../src/flux');

/** A second, separately loaded copy of src/flux (as when two copies of the package share the pool). */
function otherCopy(): FluxModule {
	let copy: FluxModule | undefined;
	jest.isolateModules(() => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh module registry needs a synchronous load
		copy = require('../../src/flux') as FluxModule;
	});
	return copy!;
}

describe('FluxError keeps its identity across two copies of the package', () => {
	const other = otherCopy();
	const foreign = new other.FluxError('maybe_submitted', 'FLUX submit failed: the job may exist upstream', { taskId: 't-1', statusCode: 502 });

	it('really is another class', () => {
		expect(other.FluxError).not.toBe(ThisFluxError);
		expect(foreign instanceof ThisFluxError).toBe(false);
	});

	it('is classified by value: stable name and a known kind', () => {
		expect(foreign.name).toBe('FluxError');
		expect(thisIsFluxError(foreign)).toBe(true);
		expect(other.isFluxError(new ThisFluxError('timeout', 'x'))).toBe(true);
		expect(thisIsFluxError(Object.assign(new Error('x'), { name: 'FluxError', kind: 'not-a-kind' }))).toBe(false);
		expect(thisIsFluxError({ name: 'FluxError' })).toBe(false);
	});

	it('converts into this copy with its fields', () => {
		const mine = ThisFluxError.from(foreign);
		expect(mine).toBeInstanceOf(ThisFluxError);
		expect(mine).toMatchObject({ kind: 'maybe_submitted', taskId: 't-1', statusCode: 502, message: foreign.message });
	});

	it('a job failing in one copy is classified by the other', async () => {
		const err: unknown = await other
			.generateImage({ apiStyle: 'relay', baseUrl: 'http://127.0.0.1:9', apiKey: 'k-0123456789' }, flux3ImageRequest('p'), { signal: AbortSignal.abort() })
			.catch((e: unknown) => e);
		expect(err instanceof ThisFluxError).toBe(false);
		expect(thisIsFluxError(err)).toBe(true);
		expect((err as ThisFluxError).kind).toBe('cancelled');
	});
});
