#!/usr/bin/env node
// The CLI is TypeScript run directly by Node 24 (type stripping); this file only hands over.
import { runCli } from '../src/cli/main.ts';

process.exitCode = await runCli(process.argv.slice(2));
