/**
 * The FLUX 3 Video part of `npm run demo`: examples/flux-3-video-sku-clips.json in the same real n8n,
 * against the same API, its clips written as slot-NN-<SKU>.mp4; prints the collector's report.
 */
import { mkdirSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import * as path from 'node:path';

import { VIDEO_EXAMPLE, formatCounts, formatSeconds, formatSlotTable, loadVideoExample, videoReport, withOutputFolder } from './examples';
import { executeWorkflow, importWorkflows, nodeItems, type N8nHome } from './n8n';

export interface VideoDemoResult {
	ok: boolean;
	clips: number;
}

/** Imports and runs the video example; `say` prints (scrubbed); the folder is `<out>/flux-3-video-sku-clips`. */
export async function runVideoExample(home: N8nHome, out: string, say: (line?: string) => void, timeoutMs: number): Promise<VideoDemoResult> {
	const folder = path.join(realpathSync(out), VIDEO_EXAMPLE.file.replace(/\.json$/, ''));
	rmSync(folder, { recursive: true, force: true });
	mkdirSync(folder, { recursive: true });
	const [id] = await importWorkflows(home, [withOutputFolder(loadVideoExample(), folder)]);
	say();
	say(`▶ examples/${VIDEO_EXAMPLE.file}: ${VIDEO_EXAMPLE.title}`);
	const result = await executeWorkflow(home, id, { timeoutMs });
	const report = result.ok ? videoReport(result) : undefined;
	if (!result.ok || !report) {
		say(`  FAILED after ${formatSeconds(result.durationMs)}: ${result.error?.message ?? `n8n exit code ${result.exitCode}`}`);
		return { ok: false, clips: 0 };
	}
	say(`  n8n execution finished in ${formatSeconds(result.durationMs)}`);
	const written = nodeItems(result, VIDEO_EXAMPLE.writer, 0);
	const rows = report.slots.map((slot, i) => ({ ...slot, file: path.basename(String(written[i]?.json.fileName ?? '')) }));
	say();
	for (const line of formatSlotTable(rows, 14)) say(`  ${line}`);
	say();
	say(`  report: ${formatCounts(report)}`);
	const clips = readdirSync(folder).filter((f) => f.endsWith('.mp4')).length;
	say(`  wrote ${clips} MP4 clips and report.json to ${path.relative(process.cwd(), folder) || folder}/`);
	return { ok: report.allSucceeded && clips === report.total, clips };
}
