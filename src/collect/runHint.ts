/**
 * A collector run that returned although slots did not succeed (Placeholder mode, Skip Error, "On Error:
 * Continue") must not look green: an execution hint on the node says how many slots failed, what stands in
 * their place, and that the Report output says why. n8n shows it above the node's output (NodeExecutionHint,
 * n8n-workflow 2.0 and later).
 */
import type { NodeExecutionHint } from 'n8n-workflow';

import type { CollectableResult, CollectorSpec } from './collectorSpec';
import type { CollectorParameters } from './parameters';
import type { CollectReport } from './report';

/** "2 of 4 slots", "1 of 1 slot". */
const ofSlots = (n: number, total: number) => `${n} of ${total} slot${total === 1 ? '' : 's'}`;

/** What stands in a failed slot's place in this run. */
function failedSlotsGet<Result extends CollectableResult>(spec: CollectorSpec<Result>, params: CollectorParameters, toErrorOutput: boolean): string {
	const { one, many } = spec.identity.noun;
	if (toErrorOutput) return `they left through the error output, not ${capital(many)}`;
	if (params.failureMode === 'placeholder' && spec.failedSlot) return `each keeps its place in ${capital(many)} with status failed and ${spec.failedSlot.describe}`;
	return `each keeps its place in ${capital(many)} with status failed and no ${one}`;
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The hint for a run in which some slots did not succeed; undefined when every slot succeeded. */
export function unsuccessfulSlotsHint<Result extends CollectableResult>(
	report: CollectReport,
	spec: CollectorSpec<Result>,
	params: CollectorParameters,
	toErrorOutput: boolean,
): NodeExecutionHint | undefined {
	const { failed, skipped_error: skipped, cancelled } = report.counts;
	if (failed + skipped + cancelled === 0) return undefined;
	const parts: string[] = [];
	if (failed > 0) parts.push(`${ofSlots(failed, report.total)} failed: ${failedSlotsGet(spec, params, toErrorOutput)}.`);
	if (cancelled > 0) parts.push(`${ofSlots(cancelled, report.total)} ${cancelled === 1 ? 'was' : 'were'} cancelled.`);
	if (skipped > 0) {
		parts.push(`${ofSlots(skipped, report.total)} hit an error that Skip Error turned into a stand-in ${spec.identity.noun.one} (status skipped_error).`);
	}
	parts.push('The Report output says why (slots → error).');
	return { message: parts.join(' '), type: 'warning', location: 'outputPane' };
}
