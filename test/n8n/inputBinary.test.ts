/**
 * Reading an input item's binary in both of n8n's binary modes. The fake context's helpers behave as
 * n8n-core 2.41.1's (`binary-helper-functions.js`): in combined mode a string is a JSON path into the
 * item (lodash `get`), an object is used as is, and the bytes come from the object. The same code
 * runs in a real n8n 2.41.1 with both modes in test/e2e/binaryModes.test.ts.
 */
import type { IBinaryData, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { isCombinedBinaryMode, locateInputBinary, readInputBinary } from '../../src/n8n/inputBinary';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

function binaryOf(bytes: Buffer, fileName = 'photo.png'): IBinaryData {
	return { data: bytes.toString('base64'), mimeType: 'image/png', fileName };
}

function getPath(json: unknown, path: string): unknown {
	return path.split('.').reduce<unknown>((at, key) => (at && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined), json);
}

/** An execute context as n8n 2.41.1 builds it (`binaryMode` from the workflow settings); `legacy`: as n8n 2.0 (no getWorkflowSettings). */
function context(items: INodeExecutionData[], binaryMode?: 'separate' | 'combined', legacy = false): IExecuteFunctions {
	const combined = binaryMode === 'combined';
	const isBinary = (v: unknown): v is IBinaryData => !!v && typeof v === 'object' && 'mimeType' in v;
	const ctx = {
		getInputData: () => items,
		helpers: {
			assertBinaryData: (itemIndex: number, parameter: string | IBinaryData): IBinaryData => {
				if (typeof parameter !== 'string') return parameter;
				const found = combined ? getPath(items[itemIndex].json, parameter) : items[itemIndex].binary?.[parameter];
				if (!isBinary(found)) throw new Error(`no binary at '${parameter}' [item ${itemIndex}]`);
				return found;
			},
			getBinaryDataBuffer: async (itemIndex: number, parameter: string | IBinaryData): Promise<Buffer> => {
				const binary = typeof parameter === 'string' ? ctx.helpers.assertBinaryData(itemIndex, parameter) : parameter;
				return Buffer.from(binary.data, 'base64');
			},
		},
		...(legacy ? {} : { getWorkflowSettings: () => (binaryMode ? { binaryMode } : {}) }),
	};
	return ctx as unknown as IExecuteFunctions;
}

describe('isCombinedBinaryMode', () => {
	it('is true only for the workflow setting binaryMode: combined', () => {
		expect(isCombinedBinaryMode(context([], 'combined'))).toBe(true);
		expect(isCombinedBinaryMode(context([], 'separate'))).toBe(false);
		expect(isCombinedBinaryMode(context([]))).toBe(false);
		expect(isCombinedBinaryMode(context([], undefined, true))).toBe(false); // n8n 2.0: no such setting
	});
});

describe('readInputBinary', () => {
	it('separate mode (and n8n 2.0): item.binary[property]', async () => {
		const items = [{ json: {}, binary: { photo: binaryOf(PNG) } }];
		for (const ctx of [context(items, 'separate'), context(items, undefined, true)]) {
			await expect(readInputBinary(ctx, 0, 'photo')).resolves.toEqual({ buffer: PNG, mimeType: 'image/png', fileName: 'photo.png' });
		}
	});

	it('combined mode: the binary n8n moved to json._files is found by its plain name', async () => {
		const ctx = context([{ json: { sku: 'A', _files: { photo: binaryOf(PNG) } } }], 'combined');
		await expect(readInputBinary(ctx, 0, 'photo')).resolves.toMatchObject({ buffer: PNG, mimeType: 'image/png' });
	});

	it('combined mode: a JSON path to a binary works as n8n’s own helpers read it', async () => {
		const other = Buffer.concat([PNG, Buffer.from([1])]);
		const ctx = context([{ json: { _files: { photo: binaryOf(PNG) }, upload: { image: binaryOf(other) } } }], 'combined');
		await expect(readInputBinary(ctx, 0, '_files.photo')).resolves.toMatchObject({ buffer: PNG });
		await expect(readInputBinary(ctx, 0, 'upload.image')).resolves.toMatchObject({ buffer: other });
	});

	it('combined mode: a binary the engine left in item.binary (not stored) is still read', async () => {
		const ctx = context([{ json: {}, binary: { photo: binaryOf(PNG) } }], 'combined');
		expect(locateInputBinary(ctx, 0, 'photo')).toEqual(binaryOf(PNG));
		await expect(readInputBinary(ctx, 0, 'photo')).resolves.toMatchObject({ buffer: PNG });
	});

	it('separate mode never takes a binary from the JSON (it may come from a webhook)', async () => {
		const ctx = context([{ json: { _files: { photo: binaryOf(PNG) }, photo: binaryOf(PNG) } }], 'separate');
		await expect(readInputBinary(ctx, 0, 'photo')).resolves.toBeUndefined();
	});

	it('missing, non-binary and prototype names are "no such binary" in both modes', async () => {
		const items = [{ json: { _files: { photo: binaryOf(PNG) }, text: 'not a binary' }, binary: {} }];
		for (const mode of ['separate', 'combined'] as const) {
			const ctx = context(items, mode);
			for (const name of ['other', 'text', 'constructor', '__proto__', 'toString', '_files.constructor']) {
				await expect(readInputBinary(ctx, 0, name)).resolves.toBeUndefined();
			}
		}
		await expect(readInputBinary(context(items, 'combined'), 5, 'photo')).resolves.toBeUndefined();
	});
});
