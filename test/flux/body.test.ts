/** The bounded body reader: one copy per byte, into a buffer sized from Content-Length when declared. */
import { Readable } from 'node:stream';

import { BodyCutOffError, BodyTooLargeError, readBody } from '../../src/flux/body';

type Body = Parameters<typeof readBody>[0];
const bodyOf = (chunks: Buffer[]) => Readable.from(chunks) as unknown as Body;
const chunksOf = (sizes: number[]) => sizes.map((size, i) => Buffer.alloc(size, i + 1));

describe('readBody', () => {
	it('fills one buffer of the declared length with every chunk, in order', async () => {
		const chunks = chunksOf([3, 5, 2]);
		const bytes = await readBody(bodyOf(chunks), 100, 10);
		expect(bytes).toEqual(Buffer.concat(chunks));
		expect(bytes.buffer.byteLength).toBeGreaterThanOrEqual(10);
		for (const chunk of chunks) expect(bytes.buffer).not.toBe(chunk.buffer);
	});

	it('a body shorter than declared gives what arrived (the caller checks the length)', async () => {
		expect(await readBody(bodyOf(chunksOf([4])), 100, 10)).toEqual(Buffer.alloc(4, 1));
	});

	it('a body longer than declared is still read whole', async () => {
		const chunks = chunksOf([6, 6, 6]);
		expect(await readBody(bodyOf(chunks), 100, 10)).toEqual(Buffer.concat(chunks));
	});

	it('without a declared length: one chunk is returned as it is, several are joined', async () => {
		const [one] = chunksOf([7]);
		expect(await readBody(bodyOf([one]), 100)).toBe(one);
		const chunks = chunksOf([2, 2, 2]);
		expect(await readBody(bodyOf(chunks), 100)).toEqual(Buffer.concat(chunks));
	});

	it('refuses more than the limit, declared length or not', async () => {
		await expect(readBody(bodyOf(chunksOf([60, 60])), 100, 120)).rejects.toBeInstanceOf(BodyTooLargeError);
		await expect(readBody(bodyOf(chunksOf([60, 60])), 100)).rejects.toBeInstanceOf(BodyTooLargeError);
	});

	it('a stream that fails midway is a BodyCutOffError saying how much had arrived', async () => {
		async function* failing() {
			yield Buffer.alloc(5);
			throw new Error('socket hang up');
		}
		const error = await readBody(Readable.from(failing()) as unknown as Body, 100, 10).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(BodyCutOffError);
		expect((error as BodyCutOffError).received).toBe(5);
	});
});
