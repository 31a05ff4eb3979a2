/** The batch's cost in the collector's Report: known costs added up, and a warning that says why some are unknown. */
import { batchCost } from '../../src/collect/report';
import type { SlotOutcome } from '../../src/collect/waitForSlots';

const outcome = (slot: number, cost: number | null | undefined, status: SlotOutcome['status'] = 'success'): SlotOutcome => ({
	slot: { slot, inputIndex: 0, itemIndex: slot - 1 } as SlotOutcome['slot'],
	status,
	timings: { queuedAt: '', startedAt: '', finishedAt: '', queuedMs: 0, runMs: 0 } as unknown as SlotOutcome['timings'],
	attempts: 1,
	cost,
});

describe('batchCost', () => {
	it('adds up the known costs; a refused slot (cost 0) is no unknown cost', () => {
		expect(batchCost([outcome(1, 4), outcome(2, 4), outcome(3, 0, 'failed')])).toEqual({ cost: 8 });
	});

	it('is null when no slot’s cost is known (a relay that never reports cost)', () => {
		expect(batchCost([outcome(1, null), outcome(2, undefined)])).toEqual({ cost: null });
	});

	it('a delivered slot without a cost: the warning counts it and does not claim the API never reported it (a job sent by a run that n8n’s restart cut short is picked up without its submit answer)', () => {
		const { cost, warning } = batchCost([outcome(1, 4), outcome(2, null), outcome(3, null)]);
		expect(cost).toBe(4);
		expect(warning).toMatch(/^2 delivered slots have no known cost/);
		expect(warning).toMatch(/earlier run/);
	});
});
