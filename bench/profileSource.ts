/** Where the package's code is in a profiled process, and a package frame's line in the TypeScript sources (for the profile tables). */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';

import ts from 'typescript';
import { z } from 'zod';

import { REPO_ROOT } from '../scripts/examples';
import type { PackageLocation } from './cpuAttribution';

/** 'dist': the installed package (dist/…js); 'ts-node': this checkout's sources. */
export type PackageRuns = 'dist' | 'ts-node';

/** The package as the attribution finds it: installed under its name (n8n), or this checkout's sources (ts-node); its dependencies from package.json. */
export function packageLocation(runs: PackageRuns): PackageLocation {
	const manifest = z.object({ name: z.string(), dependencies: z.record(z.string()) }).parse(JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')));
	return { name: manifest.name, repoRoot: runs === 'ts-node' ? REPO_ROOT : undefined, dependencies: Object.keys(manifest.dependencies) };
}

/** `file:line` in the TypeScript source of a profile's 0-based position (dist through its .js.map; ts-node through a transpile like its own). */
export function sourceLine(fn: { file: string; lineNumber: number; columnNumber: number }, runs: PackageRuns): string {
	try {
		let map: unknown;
		if (runs === 'dist') {
			map = JSON.parse(readFileSync(path.join(REPO_ROOT, 'dist', `${fn.file}.js.map`), 'utf8'));
		} else {
			const options = ts.parseJsonConfigFileContent(ts.readConfigFile(path.join(REPO_ROOT, 'tsconfig.json'), ts.sys.readFile).config, ts.sys, REPO_ROOT).options;
			const fileName = path.join(REPO_ROOT, `${fn.file}.ts`);
			map = JSON.parse(ts.transpileModule(readFileSync(fileName, 'utf8'), { fileName, compilerOptions: { ...options, sourceMap: true, inlineSourceMap: false, declaration: false } }).sourceMapText ?? '{}');
		}
		const entry = new SourceMap(map as ConstructorParameters<typeof SourceMap>[0]).findEntry(fn.lineNumber, fn.columnNumber) as { originalLine?: number };
		if (entry.originalLine !== undefined) return `${fn.file}.ts:${entry.originalLine + 1}`;
	} catch {
		/* no map: the generated line below */
	}
	return `${fn.file} (generated line ${fn.lineNumber + 1})`;
}
