'use strict'

// Naming native addresses of a V8 log with nm: a raw address (how Node 20's tick processor leaves C++ it could
// not name) and an offset into a library (how Node 22 and later leave it), against the running node binary.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { nativeSymbolizer } = require('../lib/flame/native-symbols')

/** A symbol of the node binary from nm: `{ address, name }` (a sized text symbol whose name says JSON). */
function nodeSymbol () {
  const nm = spawnSync('nm', ['-C', '-n', '-S', '--defined-only', process.execPath], { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 })
  if (nm.status !== 0) return null
  for (const line of nm.stdout.split('\n')) {
    const match = /^([0-9a-f]+) ([0-9a-f]+) [Tt] (v8::internal::JsonStringifier::.+)$/.exec(line)
    if (match && parseInt(match[2], 16) > 16) return { address: parseInt(match[1], 16), name: match[3] }
  }
  return null
}

test('a raw address and an offset into the node binary are both named from its symbols', (t) => {
  const symbol = nodeSymbol()
  if (symbol === null) {
    t.skip('no nm, or a node binary without symbols: nothing to name addresses with')
    return
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-native-symbols-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  // The official binaries are not position-independent: their symbols carry load addresses from 0x400000.
  const start = 0x400000
  const log = path.join(dir, 'isolate-0x1-1-1-v8.log')
  fs.writeFileSync(log, [
    'v8-version,12,4,254,21,0,0',
    `shared-library,${process.execPath.replace(/,/g, '\\x2C')},0x${start.toString(16)},0x${(symbol.address + 0x1000000).toString(16)},0`,
    'shared-library,/usr/lib/x86_64-linux-gnu/libc.so.6,0x7f0000000000,0x7f0000100000,0',
    ''
  ].join('\n'))
  const symbolize = nativeSymbolizer(log)
  const base = symbol.address >= start ? 0 : start
  const address = base + symbol.address + 4
  assert.deepEqual(symbolize(address), { name: symbol.name, library: process.execPath })
  assert.deepEqual(symbolize.inLibrary(process.execPath, address - start), { name: symbol.name, library: process.execPath })
  assert.equal(symbolize.inLibrary('/not/in/the/log', 4), null)
  assert.equal(symbolize(0x10), null, 'an address below every library is in none')
})
