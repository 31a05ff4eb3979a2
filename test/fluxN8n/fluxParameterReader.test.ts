/**
 * FluxParameterReader (the submit node's hot path): a parameter without an expression is read once per node
 * run; every item still gets exactly what reading and validating it alone gives (parseFluxParameters over the
 * item's raw parameters), errors included.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { FluxParameterReader } from '../../src/fluxN8n/fluxParameterReader';
import { fluxNodeParameterDefaults, parseFluxParameters } from '../../src/fluxN8n/fluxParameters';

const defaults = fluxNodeParameterDefaults('image');

type Raw = Record<string, unknown>;

/**
 * A node context as n8n's: `parameters` are the node's (expressions are strings starting with "="), an expression
 * "={{ $json.x }}" resolves to item i's `x`; `rawExpressions` returns the stored value. Counts the resolved reads.
 */
function fakeContext(parameters: Raw, items: Raw[], failing: Record<string, string> = {}) {
	const reads: string[] = [];
	const resolve = (value: unknown, item: Raw): unknown => {
		if (typeof value === 'string' && value.startsWith('=')) return item[/\$json\.(\w+)/.exec(value)![1]];
		if (Array.isArray(value)) return value.map((v) => resolve(v, item));
		if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, item)]));
		return value;
	};
	const getNodeParameter = (path: string, itemIndex: number, fallback?: unknown, options?: { rawExpressions?: boolean }) => {
		const stored = path.split('.').reduce<unknown>((at, key) => (at as Raw | undefined)?.[key], parameters) ?? fallback;
		if (options?.rawExpressions) return stored;
		reads.push(path);
		if (failing[path]) throw new Error(`${failing[path]} (item ${itemIndex})`);
		return resolve(stored, items[itemIndex]);
	};
	return { ctx: { getNodeParameter } as unknown as IExecuteFunctions, reads };
}

/** What reading one item alone gives: parseFluxParameters over every parameter as n8n resolves it for the item. */
function alone(parameters: Raw, item: Raw): ReturnType<typeof parseFluxParameters> | string {
	const { ctx } = fakeContext(parameters, [item]);
	try {
		const raw = Object.fromEntries(Object.entries(defaults).map(([name, fallback]) => [name, ctx.getNodeParameter(name, 0, fallback)]));
		return parseFluxParameters(raw);
	} catch (error) {
		return (error as Error).message;
	}
}

function readAll(reader: FluxParameterReader, count: number) {
	return Array.from({ length: count }, (_, i) => {
		try {
			return parseFluxParameters(reader.read(i));
		} catch (error) {
			return (error as Error).message;
		}
	});
}

const items: Raw[] = [
	{ p: 'a fox', r: '2k', t: 5, src: 'photo' },
	{ p: '', r: '1k', t: 'x', src: 'https://example.com/a.png' },
	{ p: 'a hen', r: '9k', t: 3, src: 'ftp://x' },
	{ p: 'an owl', r: '1k', t: 7, src: '' },
];

describe('FluxParameterReader', () => {
	it('reads a parameter without an expression once per run, one with an expression per item', () => {
		const parameters = { prompt: '={{ $json.p }}', resolution: '2k', aspectRatio: '16:9', options: { cache: 'refresh', timeoutMinutes: 3 } };
		const { ctx, reads } = fakeContext(parameters, items);
		const reader = new FluxParameterReader(ctx, defaults);
		const got = readAll(reader, 4);
		expect(reads.filter((path) => path === 'prompt')).toHaveLength(4);
		for (const path of ['resolution', 'aspectRatio', 'options', 'seed', 'referenceImages']) expect(reads.filter((p) => p === path)).toHaveLength(1);
		expect(got).toEqual(items.map((item) => alone(parameters, item)));
	});

	it.each([
		['a constant invalid parameter fails every item naming the field', { prompt: '={{ $json.p }}', resolution: '5k' }],
		['an expression inside a collection makes the whole parameter per item', { prompt: 'x', options: { timeoutMinutes: '={{ $json.t }}' } }],
		['per-item reference rows', { prompt: '={{ $json.p }}', referenceImages: { images: [{ source: '={{ $json.src }}' }, { source: 'https://example.com/b.png' }] } }],
		['constant reference rows, an invalid one', { prompt: 'x', referenceImages: { images: [{ source: 'file:///etc/passwd' }] } }],
		['the first invalid field wins across constant and per-item parameters', { prompt: '={{ $json.p }}', resolution: '={{ $json.r }}', aspectRatio: '7:7' }],
		['a constant invalid option after a per-item invalid prompt', { prompt: '={{ $json.p }}', options: { maxDownloadMb: 0 } }],
	])('%s: every item as if read alone', (_label, parameters) => {
		const { ctx } = fakeContext(parameters, items);
		expect(readAll(new FluxParameterReader(ctx, defaults), 4)).toEqual(items.map((item) => alone(parameters, item)));
	});

	it('a constant parameter that n8n fails to read is read per item: each item gets its own error', () => {
		const { ctx, reads } = fakeContext({ prompt: 'x', seed: 3 }, items, { seed: 'bad seed' });
		expect(readAll(new FluxParameterReader(ctx, defaults), 3)).toEqual(['bad seed (item 0)', 'bad seed (item 1)', 'bad seed (item 2)']);
		expect(reads.filter((path) => path === 'seed').length).toBeGreaterThanOrEqual(3);
	});

	it('items do not share mutable state: changing one item’s result leaves the others alone', () => {
		const { ctx } = fakeContext({ prompt: 'x', referenceImages: { images: [{ source: 'https://example.com/a.png' }] } }, items);
		const reader = new FluxParameterReader(ctx, defaults);
		const first = parseFluxParameters(reader.read(0));
		first.prompt = 'changed';
		(first.referenceImages as unknown[]).push('changed');
		expect(parseFluxParameters(reader.read(1))).toMatchObject({ prompt: 'x', referenceImages: [{ kind: 'url' }] });
	});
});
