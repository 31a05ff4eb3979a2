/**
 * What writing a file costs this machine's kernel as the bytes it keeps grow, without n8n, the package or a socket:
 * files of 1 GiB written in 16 MiB writes (one buffer, filled once), first each deleted before the next is written
 * ("reuse": the kernel can hand the freed pages out again), then all kept until the end ("keep": every file needs
 * pages that held nothing of this run). Prints each file's wall time and this process's system CPU, in ms per GiB.
 * `npx ts-node --transpile-only bench/probeFreshPages.ts [--files=6] [--dir=/dev/shm]` (dir: default the OS's
 * temporary folder; a tmpfs keeps the disk out of it). Writes up to files × 1 GiB there, removed at the end. Not part
 * of `npm run bench`: the probe behind "The tail of 16 MiB batches is this machine's fresh memory" in bench/README.md.
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';

const GIB = 1024 * 1024 * 1024;
const CHUNK = 16 * 1024 * 1024;

function option(name: string, fallback: string): string {
	return process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
}

/** Writes one file of 1 GiB; its wall time and this process's system CPU, ms. */
function writeOneGib(file: string, chunk: Buffer): { wallMs: number; systemMs: number } {
	const cpu = process.cpuUsage();
	const start = performance.now();
	const fd = openSync(file, 'wx', 0o600);
	try {
		for (let written = 0; written < GIB; ) written += writeSync(fd, chunk);
	} finally {
		closeSync(fd);
	}
	return { wallMs: performance.now() - start, systemMs: process.cpuUsage(cpu).system / 1000 };
}

function main(): void {
	const files = Number(option('files', '6'));
	if (!Number.isInteger(files) || files < 1) throw new Error(`--files must be a whole number ≥ 1, not ${option('files', '')}`);
	const dir = mkdtempSync(path.join(option('dir', tmpdir()), 'flux-fresh-pages-'));
	const chunk = Buffer.alloc(CHUNK, 0x5a);
	console.log(`machine: ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}; load average ${loadavg().map((n) => n.toFixed(2)).join(' / ')}; folder ${path.dirname(dir)}`);
	try {
		for (const arm of ['reuse', 'keep'] as const) {
			const rows: string[] = [];
			for (let i = 0; i < files; i++) {
				const file = path.join(dir, `${arm}-${i}.bin`);
				const { wallMs, systemMs } = writeOneGib(file, chunk);
				rows.push(`${Math.round(wallMs)} ms (system ${Math.round(systemMs)})`);
				if (arm === 'reuse') rmSync(file);
			}
			console.log(`${arm}: ${files} files of 1 GiB, each: ${rows.join(', ')}`); // the kept files go with the folder
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

main();
