/** The collector's run hint: what it says for each kind of unsuccessful slot, for images and for videos. */
import type { CollectorSpec } from '../../src/collect';
import type { CollectReport } from '../../src/collect/report';
import { unsuccessfulSlotsHint } from '../../src/collect/report';

const spec = (one: string, many: string, placeholder?: string) =>
	({
		identity: { noun: { one, many } },
		...(placeholder ? { failedSlot: { describe: placeholder } } : {}),
	}) as unknown as CollectorSpec<never>;
const images = spec('image', 'images', 'a red 64×64 image');
const videos = spec('video', 'videos');

const report = (counts: Partial<CollectReport['counts']>): CollectReport => {
	const all = { success: 0, failed: 0, skipped_error: 0, cancelled: 0, ...counts };
	return { total: Object.values(all).reduce((a, b) => a + b, 0), counts: all, cached: 0, cost: null, allSucceeded: all.success > 0 && all.failed + all.skipped_error + all.cancelled === 0, slots: [] };
};
const placeholder = { numberInputs: 1, failureMode: 'placeholder' as const, binaryPropertyName: 'data' };
const failFast = { ...placeholder, failureMode: 'failFast' as const };

it('says nothing when every slot succeeded', () => {
	expect(unsuccessfulSlotsHint(report({ success: 3 }), images, placeholder, false)).toBeUndefined();
});

it('counts failed, cancelled and skipped slots, says what stands in their place and where to read why', () => {
	expect(unsuccessfulSlotsHint(report({ success: 1, failed: 2, cancelled: 1, skipped_error: 1 }), images, placeholder, false)).toEqual({
		type: 'warning',
		location: 'outputPane',
		message:
			'2 of 5 slots failed: each keeps its place in Images with status failed and a red 64×64 image. 1 of 5 slots was cancelled. 1 of 5 slots hit an error that Skip Error turned into a stand-in image (status skipped_error). The Report output says why (slots → error).',
	});
});

it('a video slot has no placeholder clip; "continue" without Placeholder keeps the slot without a file; the error output takes them', () => {
	expect(unsuccessfulSlotsHint(report({ success: 1, failed: 1 }), videos, placeholder, false)?.message).toMatch(
		/^1 of 2 slots failed: each keeps its place in Videos with status failed and no video\./,
	);
	expect(unsuccessfulSlotsHint(report({ failed: 1 }), images, failFast, false)?.message).toMatch(/^1 of 1 slot failed: each keeps its place in Images with status failed and no image\./);
	expect(unsuccessfulSlotsHint(report({ success: 1, failed: 1 }), images, placeholder, true)?.message).toMatch(/they left through the error output, not Images/);
});
