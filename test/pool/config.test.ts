import { readPoolConfig } from '../../src/config';

function read(env: Record<string, string | undefined>) {
	const warnings: string[] = [];
	const config = readPoolConfig(env, (message) => warnings.push(message));
	return { config, warnings };
}

describe('readPoolConfig', () => {
	it('uses the defaults when nothing is set', () => {
		expect(read({})).toEqual({
			config: {
				image: { workers: 30, pending: 30 },
				video: { workers: 10, pending: 10 },
				resultTtlMs: 3_600_000,
				resultMaxBytes: 512 * 1024 * 1024,
			},
			warnings: [],
		});
	});

	it('reads every variable, and pending defaults to the worker count', () => {
		const { config, warnings } = read({
			COMFLY_IMAGE_CONCURRENCY: ' 12 ',
			COMFLY_VIDEO_CONCURRENCY: '4',
			COMFLY_VIDEO_PENDING: '0',
			COMFLY_RESULT_TTL_SECONDS: '60',
			COMFLY_RESULT_MAX_MB: '2',
		});
		expect(config).toEqual({
			image: { workers: 12, pending: 12 },
			video: { workers: 4, pending: 0 },
			resultTtlMs: 60_000,
			resultMaxBytes: 2 * 1024 * 1024,
		});
		expect(warnings).toEqual([]);
	});

	it('clamps workers to 1–128 and pending to 0–128, with one warning per clamped variable naming it, its value and the value used', () => {
		const high = read({
			COMFLY_IMAGE_CONCURRENCY: '500',
			COMFLY_IMAGE_PENDING: '129',
			COMFLY_VIDEO_CONCURRENCY: '0',
			COMFLY_VIDEO_PENDING: '-3',
		});
		expect(high.config.image).toEqual({ workers: 128, pending: 128 });
		expect(high.config.video).toEqual({ workers: 1, pending: 0 });
		expect(high.warnings).toEqual([
			expect.stringMatching(/COMFLY_IMAGE_CONCURRENCY="500" is outside 1–128; using 128\.$/),
			expect.stringMatching(/COMFLY_IMAGE_PENDING="129" is outside 0–128; using 128\.$/),
			expect.stringMatching(/COMFLY_VIDEO_CONCURRENCY="0" is outside 1–128; using 1\.$/),
			expect.stringMatching(/COMFLY_VIDEO_PENDING="-3" is outside 0–128; using 0\.$/),
		]);

		const low = read({ COMFLY_IMAGE_CONCURRENCY: '-7' });
		expect(low.config.image).toEqual({ workers: 1, pending: 1 });
		expect(low.warnings).toEqual([expect.stringContaining('COMFLY_IMAGE_CONCURRENCY="-7" is outside 1–128; using 1.')]);
	});

	it('warns of nothing at the ends of a range, nor for a sign or blanks around an integer in range', () => {
		const { config, warnings } = read({ COMFLY_IMAGE_CONCURRENCY: '128', COMFLY_IMAGE_PENDING: '-0', COMFLY_VIDEO_CONCURRENCY: '+1', COMFLY_VIDEO_PENDING: ' 7 ' });
		expect(config.image).toEqual({ workers: 128, pending: 0 });
		expect(config.video).toEqual({ workers: 1, pending: 7 });
		expect(warnings).toEqual([]);
	});

	it('clamps a number too large for any range, and shows at most its first 40 characters', () => {
		const huge = '9'.repeat(400);
		const { config, warnings } = read({ COMFLY_IMAGE_CONCURRENCY: huge });
		expect(config.image.workers).toBe(128);
		expect(warnings).toEqual([expect.stringContaining(`COMFLY_IMAGE_CONCURRENCY="${'9'.repeat(40)}" is outside 1–128; using 128.`)]);
	});

	it('treats blank values as unset', () => {
		expect(read({ COMFLY_IMAGE_CONCURRENCY: '', COMFLY_VIDEO_PENDING: '  ' })).toEqual(read({}));
	});

	it.each(['abc', '12.5', '1e2', '0x10', '3 workers'])(
		'garbage %p → the default and exactly one warning',
		(garbage) => {
			const { config, warnings } = read({ COMFLY_IMAGE_CONCURRENCY: garbage });
			expect(config.image).toEqual({ workers: 30, pending: 30 });
			expect(warnings).toEqual([
				`[n8n-nodes-flux-concurrent] COMFLY_IMAGE_CONCURRENCY=${JSON.stringify(garbage)} is not an integer; using 30.`,
			]);
		},
	);

	it('garbage pending falls back to the worker count', () => {
		const { config, warnings } = read({ COMFLY_VIDEO_CONCURRENCY: '3', COMFLY_VIDEO_PENDING: 'lots' });
		expect(config.video).toEqual({ workers: 3, pending: 3 });
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toMatch(/^\[n8n-nodes-flux-concurrent\] COMFLY_VIDEO_PENDING="lots" .* using 3\.$/);
	});

	it('garbage registry settings fall back to 3600 s and 512 MB', () => {
		const { config, warnings } = read({ COMFLY_RESULT_TTL_SECONDS: 'forever', COMFLY_RESULT_MAX_MB: '1.5' });
		expect(config.resultTtlMs).toBe(3_600_000);
		expect(config.resultMaxBytes).toBe(512 * 1024 * 1024);
		expect(warnings).toHaveLength(2);
	});
});
