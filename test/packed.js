'use strict'

// The published packages packed once per `npm test` run, for every test that installs them into an app: run.js
// gives the run a folder (NODEBENCH_TEST_RUN_DIR, removed when the run ends), the first test to ask packs into
// it (tools/pack.js) and the later ones reuse its tarballs. A file run on its own packs into a folder of its own.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { packPublished } = require('../tools/pack')

const INDEX = 'packed.json'

/**
 * The six tarballs, `[{ name, version, file, files }]` as packPublished gives them, packed at most once per run.
 * Packing goes to a folder of its own, renamed into place whole, so a concurrent test never reads half of it.
 * `pack`: tools/pack.js's packPublished, or a stand-in for tests.
 */
function packedPackages ({ runDir = process.env.NODEBENCH_TEST_RUN_DIR, pack = packPublished } = {}) {
  const base = runDir || fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-packed-'))
  if (!runDir) process.once('exit', () => fs.rmSync(base, { recursive: true, force: true }))
  const ready = path.join(base, 'packed')
  if (fs.existsSync(path.join(ready, INDEX))) return read(ready)
  const packing = fs.mkdtempSync(path.join(base, 'packing-'))
  const packed = pack(packing)
  fs.writeFileSync(path.join(packing, INDEX), JSON.stringify(packed.map((entry) => ({ ...entry, file: path.basename(entry.file) }))))
  try {
    fs.renameSync(packing, ready)
  } catch (err) {
    if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err
    fs.rmSync(packing, { recursive: true, force: true })
  }
  return read(ready)
}

function read (dir) {
  return JSON.parse(fs.readFileSync(path.join(dir, INDEX), 'utf8')).map((entry) => ({ ...entry, file: path.join(dir, entry.file) }))
}

module.exports = { packedPackages }
