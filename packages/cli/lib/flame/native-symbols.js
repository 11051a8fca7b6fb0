'use strict'

const fs = require('node:fs')
const { execFileSync } = require('node:child_process')
const { StringDecoder } = require('node:string_decoder')

// Names for the native addresses V8's tick processor left unresolved. On Node 20 `node --prof-process
// --preprocess` (which 0x runs) names the C++ of the node binary only in the first of the binary's mappings,
// so most samples in V8's C++ (JsonStringifier, the runtime, the heap) reach us as raw addresses.
// We name them the way the tick processor means to: the `shared-library` lines of the
// raw V8 log give each library's address range, and `nm` gives its symbols. Without the raw log, without
// `nm`, or for an address in no library, the address stays unnamed and the analysis charges it to its
// JavaScript caller as it would any native frame.

const TEXT_SYMBOL = /^([0-9a-f]+) (?:([0-9a-f]+) )?[TtWwi] (.+)$/

// One `nm` per library file and modification time, shared by the HTML and the JSON profile of one run.
const symbolCache = new Map()

const SHARED_LIBRARY = /^shared-library,([^,]*),(0x[0-9a-f]+),(0x[0-9a-f]+)/

// V8 escapes its log's fields (LogFile::MessageBuilder::AppendCharacter): ',' as \x2C, '\' as \\, and so on.
function unescapeField (text) {
  return text.replace(/\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|(\\))/g, (_, hex, unicode, backslash) =>
    backslash || String.fromCharCode(parseInt(hex || unicode, 16)))
}

/**
 * The libraries of a V8 log, `{ name, start, end }`; a library mapped in several pieces becomes one range.
 * The log can be hundreds of megabytes and a library loaded late (a native addon) is logged late: the whole
 * file is scanned, a megabyte at a time.
 */
function readSharedLibraries (logPath) {
  const byName = new Map()
  const addLine = (line) => {
    const match = SHARED_LIBRARY.exec(line)
    if (!match) return
    const name = unescapeField(match[1])
    const start = Number(match[2])
    const end = Number(match[3])
    const known = byName.get(name)
    // A name seen twice (code moved or logged again) covers both ranges.
    if (known === undefined) byName.set(name, { name, start, end })
    else byName.set(name, { name, start: Math.min(known.start, start), end: Math.max(known.end, end) })
  }
  const fd = fs.openSync(logPath, 'r')
  try {
    const chunk = Buffer.alloc(1024 * 1024)
    const decoder = new StringDecoder('utf8')
    let carry = ''
    let bytes
    while ((bytes = fs.readSync(fd, chunk, 0, chunk.length, null)) > 0) {
      const lines = (carry + decoder.write(chunk.subarray(0, bytes))).split('\n')
      carry = lines.pop()
      for (const line of lines) if (line.startsWith('shared-library,')) addLine(line)
    }
    if (carry.startsWith('shared-library,')) addLine(carry)
  } finally {
    fs.closeSync(fd)
  }
  return [...byName.values()]
}

function runNm (file, extraArgs) {
  try {
    return execFileSync('nm', ['-C', '-n', '-S', '--defined-only', ...extraArgs, file],
      { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'], timeout: 60_000 })
  } catch {
    return ''
  }
}

function parseNm (text) {
  const symbols = []
  for (const line of text.split('\n')) {
    const match = TEXT_SYMBOL.exec(line)
    if (match) {
      symbols.push({ start: parseInt(match[1], 16), size: match[2] ? parseInt(match[2], 16) : 0, name: match[3] })
    }
  }
  return symbols
}

/** A library's code symbols sorted by address: `{ starts: number[], ends: number[], names: string[] }`, or null. */
function loadSymbols (file) {
  let stat
  try { stat = fs.statSync(file) } catch { return null }
  const key = `${file}\0${stat.mtimeMs}`
  if (symbolCache.has(key)) return symbolCache.get(key)
  // A stripped library keeps only its dynamic symbols.
  let symbols = parseNm(runNm(file, []))
  if (symbols.length === 0) symbols = parseNm(runNm(file, ['-D']))
  const table = symbols.length
    ? {
        starts: symbols.map((s) => s.start),
        // Without a size a symbol runs to the next one.
        ends: symbols.map((s, i) => (s.size ? s.start + s.size : nextStart(symbols, i))),
        names: symbols.map((s) => s.name)
      }
    : null
  symbolCache.set(key, table)
  return table
}

function nextStart (symbols, i) {
  return symbols[i + 1] ? symbols[i + 1].start : symbols[i].start + 1
}

function lastAtOrBelow (sorted, value) {
  let low = 0
  let high = sorted.length - 1
  let found = -1
  while (low <= high) {
    const middle = (low + high) >> 1
    if (sorted[middle] <= value) {
      found = middle
      low = middle + 1
    } else {
      high = middle - 1
    }
  }
  return found
}

/**
 * A function naming native addresses of one profile: `(address) -> { name, library } | null`, null when the
 * address is in no library of the log. `name` is null when the library is known but not the function.
 * `symbolize.inLibrary(name, offset)` names an address given as an offset into a library: Node 22 and later
 * write a sample in unnamed C++ of the node binary as the binary's SHARED_LIB entry and the offset from its
 * start, where Node 20 wrote the raw address.
 */
function nativeSymbolizer (logPath) {
  let libraries = []
  try {
    libraries = readSharedLibraries(logPath).sort((a, b) => a.start - b.start)
  } catch {}
  const libraryStarts = libraries.map((library) => library.start)
  const tables = new Map()
  function tableOf (library) {
    if (!tables.has(library.name)) {
      const table = loadSymbols(library.name)
      // An executable's symbols carry their load addresses; a position-independent library's start at 0.
      const base = table && table.starts[table.starts.length - 1] < library.start ? library.start : 0
      tables.set(library.name, table && { ...table, base })
    }
    return tables.get(library.name)
  }
  function symbolize (address) {
    const index = lastAtOrBelow(libraryStarts, address)
    const library = index === -1 ? null : libraries[index]
    if (!library || address >= library.end) return null
    const table = tableOf(library)
    if (!table) return { name: null, library: library.name }
    const offset = address - table.base
    const symbol = lastAtOrBelow(table.starts, offset)
    if (symbol === -1 || offset >= table.ends[symbol]) return { name: null, library: library.name }
    return { name: table.names[symbol], library: library.name }
  }
  symbolize.inLibrary = function inLibrary (name, offset) {
    const library = libraries.find((candidate) => candidate.name === name)
    return library === undefined ? null : symbolize(library.start + offset)
  }
  return symbolize
}

module.exports = { nativeSymbolizer, readSharedLibraries }
