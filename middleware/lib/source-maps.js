'use strict'

const fs = require('fs')
const path = require('path')
const { fileURLToPath, pathToFileURL } = require('url')
const { SourceMap, findSourceMap } = require('module')
const { reportInternalError } = require('./internal-errors')

// Where a function of compiled code was written: a TypeScript app run from tsc's output, or any build that
// leaves a source map (babel, esbuild, swc, webpack). V8 places a function in the file it ran (dist/users.js:10);
// the user wrote it in src/users.ts:12, and that is where a segment's file and line should send them.
//
// The map is the one Node.js keeps when source maps are on (--enable-source-maps, process.setSourceMapsEnabled),
// else the one the file names itself (`//# sourceMappingURL=`, a file beside it or inline), read as Node.js reads
// it: its sources resolved against the map's URL after `sourceRoot`, decoded by Node.js's own SourceMap. A place
// moves only when the map names it on the function's own line and the source it names is a file that exists;
// otherwise the compiled file stays, which the user can still open. Read off the request path, once a file a batch.

// The last `sourceMappingURL` comment of a script, as Node.js's source map cache matches it.
const SOURCE_MAPPING_URL = /\/[*/]#\s+sourceMappingURL=(?<url>[^\s]+)/g
const DATA_URL = /^data:application\/json[^,]*?(?<base64>;base64)?,(?<data>.*)$/

/**
 * The source maps read for one naming batch (function-names.js's resolveNames), dropped with it: a bundled app's map
 * can be megabytes, and names are resolved once, not per request.
 */
class SourceMaps {
  constructor () {
    // compiled file -> { map, mapUrl } or null; a source's URL -> its path when that file exists, else null
    this.mapsByFile = new Map()
    this.sourcePaths = new Map()
  }

  /**
   * Where the code at (lineNumber, columnNumber) of `file` (both 0-based, as V8 gives a function's location) was
   * written, as `{ file, line }` (line 1-based), or null when `file` has no source map that places it.
   * `columnNumber` may be null (only the line is known): the line's last mapping then. `scriptText`: the code V8
   * ran for `file` when a loader compiled it in memory (ts-node, @babel/register), whose own comment names its map.
   */
  originalPlace (file, lineNumber, columnNumber, scriptText = null) {
    if (typeof file !== 'string' || !path.isAbsolute(file)) return null
    try {
      const found = this.sourceMapOf(file, scriptText)
      if (found === null) return null
      const entry = entryOnLine(found.map, lineNumber, columnNumber)
      if (entry === null) return null
      const source = this.sourcePath(entry.originalSource, found.mapUrl)
      if (source === null) return null
      return { file: source, line: entry.originalLine + 1 }
    } catch (err) {
      reportInternalError('source map', err)
      return null
    }
  }

  /**
   * `{ map, mapUrl }` for a compiled file, or null: Node.js's own when it keeps one, else the one named by the
   * comment of the code that ran (`scriptText`) or of the file.
   */
  sourceMapOf (file, scriptText) {
    const key = scriptText === null ? file : `${file}\u0000ran`
    if (this.mapsByFile.has(key)) return this.mapsByFile.get(key)
    let found = null
    const kept = typeof findSourceMap === 'function' ? findSourceMap(file) : undefined
    // Node.js has resolved a kept map's sources to absolute URLs already.
    if (kept !== undefined) found = { map: kept, mapUrl: pathToFileURL(file).href }
    else found = namedSourceMap(file, scriptText === null ? fileText(file) : scriptText)
    this.mapsByFile.set(key, found)
    return found
  }

  /** The path of a map's source (an absolute URL), or null when it is not a file on this machine. */
  sourcePath (sourceUrl, mapUrl) {
    const url = new URL(sourceUrl, mapUrl).href
    if (this.sourcePaths.has(url)) return this.sourcePaths.get(url)
    let found = null
    if (url.startsWith('file:')) {
      const file = fileURLToPath(url)
      if (fs.existsSync(file)) found = file
    }
    this.sourcePaths.set(url, found)
    return found
  }
}

/** The map's entry for a place on the compiled line `lineNumber`, or null when the map has none on that line. */
function entryOnLine (map, lineNumber, columnNumber) {
  // findEntry answers with the nearest mapping at or before the place, which may be on an earlier line.
  if (columnNumber !== null) {
    const entry = map.findEntry(lineNumber, columnNumber)
    if (entry && entry.generatedLine === lineNumber && typeof entry.originalSource === 'string') return entry
  }
  const last = map.findEntry(lineNumber, Number.MAX_SAFE_INTEGER)
  if (last && last.generatedLine === lineNumber && typeof last.originalSource === 'string') return last
  return null
}

function fileText (file) {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch {
    return null
  }
}

/** The source map the script `text` of `file` names in its last `sourceMappingURL` comment, or null. */
function namedSourceMap (file, text) {
  if (text === null) return null
  let url = null
  for (const match of text.matchAll(SOURCE_MAPPING_URL)) url = match.groups.url
  if (url === null) return null
  const fileUrl = pathToFileURL(file).href
  let json
  let mapUrl
  const inline = DATA_URL.exec(url)
  if (inline !== null) {
    json = inline.groups.base64 ? Buffer.from(inline.groups.data, 'base64').toString('utf8') : decodeURIComponent(inline.groups.data)
    mapUrl = fileUrl
  } else {
    mapUrl = new URL(url, fileUrl).href
    if (!mapUrl.startsWith('file:')) return null
    try {
      json = fs.readFileSync(fileURLToPath(mapUrl), 'utf8')
    } catch {
      return null
    }
  }
  let payload
  try {
    payload = JSON.parse(json)
  } catch {
    return null
  }
  if (payload === null || typeof payload !== 'object' || !Array.isArray(payload.sources) || typeof payload.mappings !== 'string') return null
  // As Node.js's cache does: each source after `sourceRoot`, against the map's URL.
  const root = typeof payload.sourceRoot === 'string' ? payload.sourceRoot : ''
  payload.sources = payload.sources.map((source) => new URL(root + source, mapUrl).href)
  payload.sourceRoot = ''
  return { map: new SourceMap(payload), mapUrl }
}

module.exports = { SourceMaps }
