/** The poll answer's hot-path check (isPollResponse) accepts exactly what pollResponseSchema accepts. */
import { isPollResponse, pollResponseSchema } from '../../src/flux/poll';

const answers: unknown[] = [
	{ status: 'Ready', result: { sample: 'https://x/y.png' } },
	{ id: 'task-1', status: 'Pending', progress: 0.5 },
	{ id: null, status: 'Pending' },
	{ id: undefined, status: 'Pending', cost: 2 },
	{ status: 'x', extra: [1, 2] },
	{ status: '' },
	{ status: ' ' },
	{ status: 3 },
	{ status: null },
	{},
	{ id: 7, status: 'Ready' },
	{ id: {}, status: 'Ready' },
	[{ status: 'Ready' }],
	Object.assign([], { status: 'Ready' }),
	null,
	'Ready',
	42,
	true,
	undefined,
];

describe('isPollResponse', () => {
	it.each(answers.map((answer) => [JSON.stringify(answer) ?? String(answer), answer]))('%s: as the schema says', (_, answer) => {
		expect(isPollResponse(answer)).toBe(pollResponseSchema.safeParse(answer).success);
	});

	it('keeps the answer as it is (every field the schema would pass through)', () => {
		const answer = { id: 'a', status: 'Ready', result: { sample: 'u' }, details: 'd' };
		expect(isPollResponse(answer) && answer).toEqual(pollResponseSchema.parse(answer));
	});
});
