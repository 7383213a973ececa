#!/usr/bin/env node
// `node mulino.mjs`: the engine in WebAssembly on stdin and stdout, as the
// native binary speaks (protocol.md): the same lines, the same greeting
// at a terminal only, the same exit status; `node mulino.mjs perft 4` runs
// one protocol command, as `mulino perft 4` does. The tools (`match`,
// `tb`, `gui`, ...) and `--help` are the binary's only.

import { startEngine } from './mulino-engine.mjs';

const args = process.argv.slice(2);
const engine = await startEngine({
  outFd: 1,
  errFd: 2,
  terminal: args.length === 0 && !!process.stdin.isTTY,
  once: args.length ? args.join(' ') : undefined,
  onStderr: (text) => process.stderr.write(text),
  onExit: (status) => process.exit(status),
});
if (args.length === 0) {
  process.stdin.on('data', (chunk) => engine.write(chunk));
  process.stdin.on('end', () => engine.end());
  process.stdin.on('error', () => engine.end());
}
