import { appendFileSync, copyFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config.ts';
import { Networks } from '../modules/serving/index.ts';
import { type Command, UsageError } from './command.ts';

/**
 * The lists of general invalid traffic, replaced without a release (docs/invalid-traffic.md):
 * files an operator downloaded are checked line by line and copied into DATA_DIR/ivt, where the
 * server reads them at start and on SIGHUP.
 */
export const ivtCommands: Command[] = [
  {
    name: 'ivt update-lists',
    usage: 'ivt update-lists [--asn FILE[,FILE]] [--hosting FILE]',
    summary:
      'Check and install a newer ASN table (ip-location-db CSV: first,last,asn[,name]; IPv4 and IPv6 files, comma-separated) and/or hosting list (one AS number per line) into DATA_DIR/ivt; then send the server SIGHUP.',
    async run({ args, json }) {
      const asnFiles = (args.options.asn ?? '')
        .split(',')
        .map((file) => file.trim())
        .filter((file) => file !== '')
        .map((file) => path.resolve(file));
      const hostingFile = args.options.hosting === undefined ? undefined : path.resolve(args.options.hosting);
      if (asnFiles.length === 0 && hostingFile === undefined) throw new UsageError('give --asn FILE, --hosting FILE or both');
      let counted: { ranges: number; hostingAsns: number };
      try {
        // Read as the server will: every line must parse, or nothing is installed.
        counted = new Networks({ asnFiles, hostingFile }).load();
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
      if (asnFiles.length > 0 && counted.ranges < 1000) {
        throw new UsageError(`the ASN table has ${counted.ranges} ranges: a whole table has hundreds of thousands`);
      }
      const folder = path.join(loadConfig().dataDir, 'ivt');
      mkdirSync(folder, { recursive: true });
      const installed: string[] = [];
      if (asnFiles.length > 0) {
        const target = path.join(folder, 'asn.csv');
        const partial = `${target}.partial`;
        writeFileSync(partial, '');
        for (const file of asnFiles) copyInto(file, partial);
        renameSync(partial, target);
        installed.push(target);
      }
      if (hostingFile !== undefined) {
        const target = path.join(folder, 'hosting-asns.tsv');
        copyFileSync(hostingFile, `${target}.partial`);
        renameSync(`${target}.partial`, target);
        installed.push(target);
      }
      const result = { installed, ranges: asnFiles.length > 0 ? counted.ranges : undefined, hostingAsns: counted.hostingAsns };
      if (json) process.stdout.write(`${JSON.stringify(result)}\n`);
      else {
        process.stdout.write(
          `installed ${installed.join(' and ')} (${asnFiles.length > 0 ? `${counted.ranges} ranges, ` : ''}${counted.hostingAsns} hosting networks); send the server SIGHUP to read them now\n`,
        );
      }
    },
  },
];

/** Appends a file to another (ASN tables of both address families become one). */
function copyInto(source: string, target: string): void {
  const text = readFileSync(source, 'latin1');
  appendFileSync(target, text.endsWith('\n') ? text : `${text}\n`, 'latin1');
}
