'use strict'

// ensureValgrind shares ensureChromium's way of finding and installing a Debian package (chromium.test.js
// covers that path by path); here, what is valgrind's own: its variable, its package, its error.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { ensureValgrind } = require('..')
const { temporaryDir, coded } = require('./helpers')

function executable (file, script = '#!/bin/sh\nexit 0\n') {
  fs.writeFileSync(file, script, { mode: 0o755 })
  return file
}

test('VALGRIND_PATH comes first, and must be an executable file', async (t) => {
  const dir = temporaryDir(t)
  const mine = executable(path.join(dir, 'my-valgrind'))
  assert.equal(await ensureValgrind({ env: { VALGRIND_PATH: mine }, candidates: [path.join(dir, 'missing')] }), mine)
  await assert.rejects(ensureValgrind({ env: { VALGRIND_PATH: dir }, candidates: [], canInstall: false }),
    coded('NB_ERR_VALGRIND_MISSING', /but VALGRIND_PATH is ".*", which is not an executable file\. Install Debian's package as root \(`apt-get update && apt-get install -y --no-install-recommends valgrind`\)/))
})

test('as root with apt-get: installs the valgrind package, announcing what it is for', async (t) => {
  const dir = temporaryDir(t)
  const valgrind = path.join(dir, 'valgrind')
  const log = path.join(dir, 'apt-get.log')
  const aptGet = executable(path.join(dir, 'apt-get'), `#!/bin/sh
echo "$*" >> "${log}"
if [ "$1" = install ]; then printf '#!/bin/sh\\n' > "${valgrind}"; chmod 755 "${valgrind}"; fi
`)
  const progress = []
  assert.equal(await ensureValgrind({ env: {}, candidates: [valgrind], canInstall: true, aptGet, onProgress: (m) => progress.push(m) }), valgrind)
  assert.equal(progress[0], "nodebench: installing Debian's valgrind package (apt-get), once, for the instruction-count benchmark...")
  assert.deepEqual(fs.readFileSync(log, 'utf8').trim().split('\n'), ['update', 'install -y --no-install-recommends valgrind'])
})

test('missing and not installable: NB_ERR_VALGRIND_MISSING', async (t) => {
  const dir = temporaryDir(t)
  await assert.rejects(ensureValgrind({ env: {}, candidates: [path.join(dir, 'valgrind')], canInstall: false }),
    coded('NB_ERR_VALGRIND_MISSING', /none of .*\/valgrind exists and apt-get is not on PATH/))
})
