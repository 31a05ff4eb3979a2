/**
 * The whole machine's disk and kernel time between two readings, from Linux's /proc (undefined on any other system, or
 * where /proc cannot be read): MiB written to its disks, the shares of the cores' time spent in the kernel and idle
 * waiting on I/O, and how much written data the page cache still held unwritten at the second reading. Every process
 * of the machine counts, not only the bench's: a reading says what the disk was doing while a batch ran, not what the
 * batch did.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';

export interface IoReading {
	/** 512-byte sectors written to the machine's whole disks (not their partitions, nor virtual block devices) since boot. */
	sectorsWritten: number;
	/** Ticks of all cores since boot: waiting on I/O, in the kernel (system, irq, softirq), and in all. */
	iowaitTicks: number;
	kernelTicks: number;
	totalTicks: number;
	/** Data written but not yet on disk (the page cache's Dirty and Writeback), MiB. */
	unwrittenMiB: number;
}

/** What the machine's disks did between `before` and `after`. */
export interface IoBetween {
	writtenMiB: number;
	/** 0–1: the share of the cores' time spent idle waiting on I/O. */
	iowaitShare: number;
	/** 0–1: the share of the cores' time spent in the kernel (every process's system time, interrupts). */
	kernelShare: number;
	/** At `after`: written data not yet on disk, MiB. */
	unwrittenMiB: number;
}

/** The machine's counters now; undefined off Linux or when /proc and /sys cannot be read. */
export function readMachineIo(): IoReading | undefined {
	try {
		// Devices backed by hardware (`device` link): not loop, RAM, device-mapper or RAID devices, whose writes land on those too.
		const disks = new Set(readdirSync('/sys/block').filter((name) => existsSync(`/sys/block/${name}/device`)));
		let sectorsWritten = 0;
		for (const line of readFileSync('/proc/diskstats', 'utf8').split('\n')) {
			const fields = line.trim().split(/\s+/);
			// major minor name, then reads (4 fields), then writes completed, merged, sectors written, …
			if (fields.length >= 10 && disks.has(fields[2])) sectorsWritten += Number(fields[9]);
		}
		const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
		const meminfo = readFileSync('/proc/meminfo', 'utf8');
		const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(meminfo)?.[1] ?? NaN);
		// user nice system idle iowait irq softirq steal (guest time is already inside user)
		const totalTicks = cpu.slice(0, 8).reduce((sum, ticks) => sum + ticks, 0);
		const reading = { sectorsWritten, iowaitTicks: cpu[4], kernelTicks: cpu[2] + cpu[5] + cpu[6], totalTicks, unwrittenMiB: (kib('Dirty') + kib('Writeback')) / 1024 };
		return Object.values(reading).every(Number.isFinite) ? reading : undefined;
	} catch {
		return undefined;
	}
}

export function ioBetween(before: IoReading | undefined, after: IoReading | undefined): IoBetween | undefined {
	if (!before || !after) return undefined;
	const ticks = after.totalTicks - before.totalTicks;
	return {
		writtenMiB: ((after.sectorsWritten - before.sectorsWritten) * 512) / 1024 / 1024,
		iowaitShare: ticks > 0 ? (after.iowaitTicks - before.iowaitTicks) / ticks : 0,
		kernelShare: ticks > 0 ? (after.kernelTicks - before.kernelTicks) / ticks : 0,
		unwrittenMiB: after.unwrittenMiB,
	};
}

/** `prefix` + "machine: kernel 23 % of the cores, iowait 4 %; disk: 812 MiB written, 310 MiB not yet on disk" (empty off Linux). */
export function describeIo(io: IoBetween | undefined, prefix = ''): string {
	if (!io) return '';
	const mib = (n: number) => Math.round(n).toLocaleString('en-US');
	const pct = (share: number) => `${Math.round(share * 100)} %`;
	return `${prefix}machine: kernel ${pct(io.kernelShare)} of the cores, iowait ${pct(io.iowaitShare)}; disk: ${mib(io.writtenMiB)} MiB written, ${mib(io.unwrittenMiB)} MiB not yet on disk`;
}
